import { describe, expect, it } from 'vitest';
import { validateSQSQueueMetric } from '../../lib/api/sqs-validation.js';
import { parseMetricAccess } from '../../lib/api/metric-access.js';
import { sqsQueueIdentity } from '../../lib/api/sqs-types.js';

const doc = (spec: Record<string, unknown>) => ({ apiVersion: 'shpa.dev/v1', kind: 'SQSQueueMetric', metadata: { name: 'backlog', namespace: 'shop' }, spec });
const errors = (spec: Record<string, unknown>) => {
  const v = validateSQSQueueMetric(doc(spec));
  return v.valid ? [] : v.errors.map((e) => `${e.field}: ${e.message}`);
};

describe('SQSQueueMetric validation', () => {
  it('accepts a queue by URL, or by name with region and account, standard or FIFO', () => {
    expect(errors({ queueURL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders' })).toEqual([]);
    expect(errors({ queueURL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo', scaleOnInFlight: false, scaleOnDelayed: true })).toEqual([]);
    expect(errors({ queueName: 'orders', region: 'us-east-2', accountId: '123456789012', roleArn: 'arn:aws:iam::123456789012:role/reader' })).toEqual([]);
  });

  it('names each bad field', () => {
    expect(errors({})).toEqual(['spec: one of queueURL or queueName must be set']);
    expect(errors({ queueURL: 'http://sqs.eu-west-1.amazonaws.com/123456789012/orders' })[0]).toMatch(/^spec\.queueURL: must be an https SQS queue URL/);
    expect(errors({ queueURL: 'https://evil.example.com/123456789012/orders' })[0]).toMatch(/^spec\.queueURL: must be an https SQS queue URL/);
    expect(errors({ queueURL: 'https://sqs.eu-west-1.amazonaws.com/orders' })).toEqual(['spec.queueURL: must end in /<12-digit account>/<queue name>']);
    expect(errors({ queueURL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders', region: 'us-east-1' })).toEqual(['spec.region: applies with queueName (queueURL says it)']);
    expect(errors({ queueName: 'orders' })).toEqual(['spec.accountId: must be set with queueName: the queue URL names the account']);
    expect(errors({ queueName: 'bad name', accountId: '12' }).map((e) => e.split(':')[0])).toEqual(['spec.queueName', 'spec.accountId']);
    expect(errors({ queueName: 'orders', accountId: '123456789012', scaleOnInFlight: 'yes', roleArn: 'reader', extra: 1 }).map((e) => e.split(':')[0]).sort()).toEqual(
      ['spec.extra', 'spec.roleArn', 'spec.scaleOnInFlight'].sort(),
    );
  });

  it('resolves the queue ARN from a URL (China partition included) or a name', () => {
    expect(sqsQueueIdentity({ queueURL: 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs.fifo' }).arn).toBe('arn:aws-cn:sqs:cn-north-1:123456789012:jobs.fifo');
    expect(sqsQueueIdentity({ queueName: 'jobs', accountId: '123456789012' }, 'eu-central-1')).toEqual({
      region: 'eu-central-1',
      accountId: '123456789012',
      name: 'jobs',
      url: 'https://sqs.eu-central-1.amazonaws.com/123456789012/jobs',
      arn: 'arn:aws:sqs:eu-central-1:123456789012:jobs',
    });
  });

  it('metricAccess takes sqsQueues patterns per namespace', () => {
    expect(parseMetricAccess('{"shop":{"sqsQueues":["arn:aws:sqs:*:123456789012:orders-*"]}}')).toEqual({ shop: { sqsQueues: ['arn:aws:sqs:*:123456789012:orders-*'] } });
    expect(() => parseMetricAccess('{"shop":{"sqsQueues":"arn"}}')).toThrow('shop.sqsQueues: must be a list of names');
  });
});
