// The AWS name rules shared by the deploy's parameters, the functions' environment, our kinds and the CLI
// (lib/shared/aws-patterns.cjs): one rule each, so a value one of them accepts the others accept too.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isAwsRegion, isClusterName, isRoleArn } from '../../lib/shared/aws-patterns.cjs';
import { parseClusters } from '../../lib/sync/config.js';
import { validateCloudWatchMetric } from '#api';

const params = createRequire(import.meta.url)('../../infra/params.cjs') as { parseClusters(raw: unknown, region: string, namespaces?: string[]): unknown[] };

const REGIONS: [string, boolean][] = [
  ['us-east-1', true],
  ['ap-southeast-7', true],
  ['us-gov-west-1', true],
  ['cn-northwest-1', true],
  ['us-iso-east-1', true],
  ['us-isob-east-1', true],
  ['eu-isoe-west-1', true],
  ['mars', false],
  ['us-east-100', false],
  ['US-EAST-1', false],
  ['us-east-1 ', false],
];
const ROLES: [string, boolean][] = [
  ['arn:aws:iam::123456789012:role/reader', true],
  ['arn:aws:iam::123456789012:role/path/reader', true],
  ['arn:aws-cn:iam::123456789012:role/x', true],
  ['arn:aws-us-gov:iam::123456789012:role/x', true],
  ['arn:aws-iso-b:iam::123456789012:role/x', true],
  ['arn:aws:iam::123456789012:role/', false],
  ['arn:aws:iam::12345:role/x', false],
  ['arn:aws:iam::123456789012:user/x', false],
  ['arn:awsx:iam::123456789012:role/x', false],
  [`arn:aws:iam::123456789012:role/${'r'.repeat(513)}`, false],
];
const NAMES: [string, boolean][] = [
  ['prod', true],
  ['Prod_eu-1', true],
  ['1st', true],
  ['c'.repeat(100), true],
  ['c'.repeat(101), false],
  ['-prod', false],
  ['prod.eu', false],
  ['', false],
];

describe('aws-patterns', () => {
  it.each(REGIONS)('region %s: %s, alike in the deploy, the functions and CloudWatchMetric', (region, ok) => {
    expect(isAwsRegion(region)).toBe(ok);
    const cluster = JSON.stringify([{ name: 'a', region }]);
    if (ok) expect(parseClusters(cluster, 'eu-west-1')[0]?.region).toBe(region);
    else expect(() => parseClusters(cluster, 'eu-west-1')).toThrow(/\.region: invalid region/);
    if (ok) expect(() => params.parseClusters(cluster, 'eu-west-1')).not.toThrow();
    else expect(() => params.parseClusters(cluster, 'eu-west-1')).toThrow(/invalid region/);
  });

  it.each(ROLES)('role ARN %s: %s, alike in the deploy, the functions and CloudWatchMetric', (roleArn, ok) => {
    expect(isRoleArn(roleArn)).toBe(ok);
    const cluster = JSON.stringify([{ name: 'a', roleArn }]);
    if (ok) expect(parseClusters(cluster, 'eu-west-1')[0]?.roleArn).toBe(roleArn);
    else expect(() => parseClusters(cluster, 'eu-west-1')).toThrow(/\.roleArn: not an IAM role ARN/);
    if (ok) expect(() => params.parseClusters(cluster, 'eu-west-1')).not.toThrow();
    else expect(() => params.parseClusters(cluster, 'eu-west-1')).toThrow(/not an IAM role ARN/);
    const doc = { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: 'm', namespace: 'web' }, spec: { roleArn, queries: [{ id: 'm1', expression: 'SUM(SEARCH(\'{AWS/SQS} x\', \'Sum\', 60))' }] } };
    const result = validateCloudWatchMetric(doc);
    expect(result.valid ? [] : result.errors.filter((e) => e.field === 'spec.roleArn')).toHaveLength(ok ? 0 : 1);
  });

  it.each(NAMES)('cluster name %j: %s, alike in the deploy and the functions', (name, ok) => {
    expect(isClusterName(name)).toBe(ok);
    const cluster = JSON.stringify([{ name }]);
    if (ok) expect(parseClusters(cluster, 'eu-west-1')[0]?.name).toBe(name);
    else expect(() => parseClusters(cluster, 'eu-west-1')).toThrow(/\.name: invalid cluster name/);
    if (ok) expect(() => params.parseClusters(cluster, 'eu-west-1')).not.toThrow();
    else expect(() => params.parseClusters(cluster, 'eu-west-1')).toThrow(/invalid cluster name/);
  });
});
