// The SQSQueueMetric CRD against validateSQSQueueMetric: what it accepts the CRD admits, and what it
// rejects the CRD rejects (every rule of the kind is one CEL can express).
import { describe, expect, it } from 'vitest';
import type { SQSQueueMetric, SQSQueueMetricSpec } from '../../lib/api/sqs-types.js';
import { validateSQSQueueMetric } from '../../lib/api/sqs-validation.js';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { metricCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { METRIC_KINDS } from '../../lib/api/metric-kinds.js';

const crd = metricCrd(METRIC_KINDS.find((k) => k.kind === 'SQSQueueMetric')!);
const admit = (doc: unknown) => admitCustomResource(crd, 'v1', doc).errors.map(formatError);
const doc = (spec: SQSQueueMetricSpec): SQSQueueMetric => ({ apiVersion: 'shpa.dev/v1', kind: 'SQSQueueMetric', metadata: { name: 'orders', namespace: 'shop' }, spec });
const URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/orders';

const variants: [string, SQSQueueMetricSpec][] = [
  ['a queue URL', { queueURL: URL }],
  ['a FIFO queue URL', { queueURL: `${URL}.fifo`, scaleOnInFlight: false }],
  ['a legacy queue host', { queueURL: 'https://us-east-1.queue.amazonaws.com/123456789012/orders' }],
  ['a China region URL', { queueURL: 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/orders' }],
  ['a name with account and region', { queueName: 'orders', accountId: '123456789012', region: 'eu-west-1', scaleOnDelayed: true }],
  ['a name with account, role', { queueName: 'orders.fifo', accountId: '123456789012', roleArn: 'arn:aws:iam::123456789012:role/reader' }],
  ['neither URL nor name', {}],
  ['both URL and name', { queueURL: URL, queueName: 'orders' }],
  ['a name without account', { queueName: 'orders' }],
  ['a region beside a URL', { queueURL: URL, region: 'us-east-1' }],
  ['an http URL', { queueURL: URL.replace('https', 'http') }],
  ['a URL on another host', { queueURL: 'https://sqs.us-east-1.example.com/123456789012/orders' }],
  ['a URL with a query', { queueURL: `${URL}?Action=GetQueueAttributes` }],
  ['a URL without account', { queueURL: 'https://sqs.us-east-1.amazonaws.com/orders' }],
  ['a name with a dot', { queueName: 'orders.v2', accountId: '123456789012' }],
  ['a name of 81 characters', { queueName: 'q'.repeat(81), accountId: '123456789012' }],
  ['an account of 11 digits', { queueName: 'orders', accountId: '12345678901' }],
  ['a region in words', { queueName: 'orders', accountId: '123456789012', region: 'Virginia' }],
  ['a user ARN as role', { queueURL: URL, roleArn: 'arn:aws:iam::123456789012:user/me' }],
];

describe('SQSQueueMetric CRD', () => {
  it.each(variants)('%s: admitted exactly when valid', (name, spec) => {
    const valid = validateSQSQueueMetric(doc(spec)).valid;
    expect(admit(doc(spec)).length === 0, `${name}: validation says ${valid ? 'valid' : 'invalid'}`).toBe(valid);
  });

  it('says what is wrong in the words of validateSQSQueueMetric', () => {
    expect(admit(doc({ queueName: 'orders', region: 'Virginia' }))).toEqual([
      'spec.accountId: Required value: accountId must be set with queueName: the queue URL names the account',
      'spec.region: Invalid value: "Virginia": must be an AWS region such as us-east-1',
    ]);
    const r = validateSQSQueueMetric(doc({ queueName: 'orders', region: 'Virginia' }));
    expect(r.valid ? [] : r.errors.map((e) => `${e.field}: ${e.message}`).sort()).toEqual([
      'spec.accountId: must be set with queueName: the queue URL names the account',
      'spec.region: must be an AWS region such as us-east-1',
    ]);
  });
});
