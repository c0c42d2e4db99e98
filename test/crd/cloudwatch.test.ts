// The CloudWatchMetric CRD against validateCloudWatchMetric: what it accepts the CRD admits; what
// it rejects, the CRD rejects where CEL can tell (the rest the sync reports).
import { describe, expect, it } from 'vitest';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { validateCloudWatchMetric } from '../../lib/api/cloudwatch-validation.js';
import { CLOUDWATCH_UNITS } from '../../lib/api/cloudwatch-schema.js';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { cloudWatchMetricCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { mathMetric, queueMetric, stat } from '../metrics/cloudwatch-fixtures.js';

const crd = cloudWatchMetricCrd();
const admit = (doc: unknown) => admitCustomResource(crd, 'v1', doc).errors.map(formatError);

type Variant = [name: string, doc: CloudWatchMetric];
const variant = (name: string, change: (d: CloudWatchMetric) => void): Variant => {
  const doc = queueMetric('jobs-backlog', 'jobs');
  change(doc);
  return [name, doc];
};
const metricStat = (d: CloudWatchMetric) => d.spec.queries[0].metricStat!;

const variants: Variant[] = [
  ['the documented example', queueMetric('jobs-backlog', 'jobs', { alarmName: 'jobs backlog high' })],
  ['metric math', mathMetric('ratio', [stat('errors', 'Errors', 'api'), stat('total', 'Requests', 'api'), { id: 'rate', expression: '100 * errors / total' }])],
  ['SEARCH with a period', mathMetric('s', [{ id: 'e', expression: "SUM(SEARCH('{AWS/SQS,QueueName} visible', 'Average', 60))", period: 60 }])],
  ['an expression without period', mathMetric('i', [{ id: 'e', expression: 'SELECT AVG(cpu_usage) FROM App' }])],
  ['an unknown id in an expression', mathMetric('x', [stat('a', 'A', 'x'), { id: 'e', expression: 'a + b' }])],
  ['two queries returning data', mathMetric('x', [stat('a', 'A', 'x', true), stat('b', 'B', 'y', true)])],
  ['no query returning data', mathMetric('x', [stat('a', 'A', 'x')])],
  ['duplicate ids', mathMetric('x', [stat('a', 'A', 'x'), { ...stat('a', 'B', 'y'), returnData: true }])],
  ['no queries', mathMetric('x', [])],
  ['both metricStat and expression', mathMetric('x', [{ ...stat('a', 'A', 'x', true), expression: 'a' }])],
  ['neither metricStat nor expression', mathMetric('x', [{ id: 'a' }])],
  ['period beside metricStat', mathMetric('x', [{ ...stat('a', 'A', 'x', true), period: 60 }])],
  ...['M1', 'm-2', '', 'a'.repeat(256)].map((id) => variant(`id ${JSON.stringify(id).slice(0, 12)}`, (d) => (d.spec.queries[0].id = id))),
  ...[0, 1, 5, 15, 30, 60, 90, 300, 60.5, -60].map((p) => variant(`period ${p}`, (d) => (metricStat(d).period = p))),
  ...['Average', 'p99', 'p99.9', 'p101', 'TM(10%:90%)', 'TM(:)', 'TM(90%:10%)', 'PR(10%:90%)', 'Avg', 'p99.12345678901', ''].map((s) =>
    variant(`stat ${s}`, (d) => (metricStat(d).stat = s)),
  ),
  ...[...CLOUDWATCH_UNITS, 'Furlongs'].map((u) => variant(`unit ${u}`, (d) => (metricStat(d).unit = u))),
  ...['us-east-1', 'us-gov-west-1', 'cn-north-1', 'Virginia', 'us-east-100', ''].map((r) => variant(`region ${r}`, (d) => (d.spec.region = r))),
  ...['arn:aws:iam::123456789012:role/path/reader', 'arn:aws-cn:iam::123456789012:role/x', 'arn:aws:iam::12345:user/me', 'arn:aws:iam::123456789012:role/'].map((a) =>
    variant(`roleArn ${a}`, (d) => (d.spec.roleArn = a)),
  ),
  ...[-1, 0, 86_400, 86_401].map((n) => variant(`endTimeOffsetSeconds ${n}`, (d) => (d.spec.endTimeOffsetSeconds = n))),
  ...[0, 1, 1440, 1441].map((n) => variant(`lookbackPeriods ${n}`, (d) => (d.spec.lookbackPeriods = n))),
  ...['high-cpu', 'Ünïcödé alarm', '', 'a'.repeat(255), 'a'.repeat(256), 'tab\there', 'del\u007f'].map((n) =>
    variant(`alarmName ${JSON.stringify(n).slice(0, 16)}`, (d) => (d.spec.alarmName = n)),
  ),
  variant('namespace starting with a colon', (d) => (metricStat(d).metric.namespace = ':x')),
  variant('an empty metric name', (d) => (metricStat(d).metric.metricName = '')),
  variant('31 dimensions', (d) => (metricStat(d).metric.dimensions = Array.from({ length: 31 }, (_, i) => ({ name: `d${i}`, value: 'v' })))),
  variant('duplicate dimensions', (d) => (metricStat(d).metric.dimensions = [{ name: 'Q', value: 'a' }, { name: 'Q', value: 'b' }])),
  variant('an empty dimension value', (d) => (metricStat(d).metric.dimensions = [{ name: 'Q', value: '' }])),
];

// What validateCloudWatchMetric rejects and only the sync can: it needs the expression grammar,
// the references between queries, or the statistic's bounds.
const REPORTED_BY_THE_SYNC = new Set(['an expression without period', 'an unknown id in an expression', 'stat p101', 'stat TM(:)', 'stat TM(90%:10%)', 'stat PR(10%:90%)']);

describe('CloudWatchMetric CRD', () => {
  it.each(variants)('%s: admitted exactly when valid, except what only the sync can tell', (name, doc) => {
    const valid = validateCloudWatchMetric(doc).valid;
    const errors = admit(doc);
    if (valid) expect(errors).toEqual([]);
    else expect(errors.length > 0, `${name}: rejected by validateCloudWatchMetric, admitted by the CRD`).toBe(!REPORTED_BY_THE_SYNC.has(name));
  });

  it('says what is wrong in the words of validateCloudWatchMetric', () => {
    const doc = queueMetric('q', 'jobs', { region: 'Virginia', alarmName: 'bad\u0001name', endTimeOffsetSeconds: -1 });
    metricStat(doc).stat = 'Avg';
    expect(admit(doc)).toEqual([
      'spec.queries[0].metricStat.stat: Invalid value: "Avg": must be SampleCount, Average, Sum, Minimum, Maximum, IQM, pNN, tmNN, wmNN, tcNN, tsNN or TM/WM/TC/TS/PR(lower:upper)',
      'spec.region: Invalid value: "Virginia": must be an AWS region such as us-east-1',
      'spec.alarmName: Invalid value: "bad\\u0001name": must not contain ASCII control characters (a CloudWatch alarm name)',
      'spec.endTimeOffsetSeconds: Invalid value: -1: must be between 0 and 86400',
    ]);
    const r = validateCloudWatchMetric(doc);
    expect(r.valid ? [] : r.errors.map((e) => `${e.field}: ${e.message}`)).toEqual([
      'spec.queries[0].metricStat.stat: must be SampleCount, Average, Sum, Minimum, Maximum, IQM, pNN, tmNN, wmNN, tcNN, tsNN or TM/WM/TC/TS/PR(lower:upper)',
      'spec.region: must be an AWS region such as us-east-1',
      'spec.endTimeOffsetSeconds: must be between 0 and 86400',
      'spec.alarmName: must not contain ASCII control characters (a CloudWatch alarm name)',
    ]);
  });

  it('reports duplicate ids and dimension names as list-type map duplicates', () => {
    expect(admit(mathMetric('x', [stat('a', 'A', 'x'), { ...stat('a', 'B', 'y'), returnData: true }]))).toEqual([
      'spec.queries[1]: Duplicate value: {"id":"a"}',
    ]);
  });
});
