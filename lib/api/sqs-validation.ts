// Validation of shpa.dev/v1 SQSQueueMetric documents, with field paths as for HPAs.
import type { FieldError } from '#hpa/api';
import { isAwsRegion, isRoleArn } from '../shared/aws-patterns.cjs';
import { FieldCollector } from './field-collector.js';
import { ACCOUNT_ID, QUEUE_NAME, parseQueueUrl, type SQSQueueMetric } from './sqs-types.js';

export type SQSQueueMetricValidation = { valid: true; object: SQSQueueMetric } | { valid: false; errors: FieldError[] };

const FIELDS = ['queueURL', 'queueName', 'region', 'accountId', 'roleArn', 'scaleOnInFlight', 'scaleOnDelayed'];

function validateBoolean(c: FieldCollector, path: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'boolean') c.add(path, 'TypeInvalid', 'must be true or false', v);
}

/** Validates a decoded SQSQueueMetric document; on success returns it typed (not defaulted). */
export function validateSQSQueueMetric(input: unknown): SQSQueueMetricValidation {
  const c = new FieldCollector();
  const spec = c.envelope(input, 'SQSQueueMetric');
  if (spec) {
    c.unknownFields('spec', spec, FIELDS);
    const url = c.string('spec.queueURL', spec.queueURL, false, 2048);
    const name = c.string('spec.queueName', spec.queueName, false, 80);
    if (spec.queueURL === undefined && spec.queueName === undefined) c.add('spec', 'Required', 'one of queueURL or queueName must be set');
    if (spec.queueURL !== undefined && spec.queueName !== undefined) c.add('spec', 'Forbidden', 'queueURL and queueName are exclusive: a URL names the queue, its region and account');
    if (url !== undefined) {
      const parsed = parseQueueUrl(url);
      if (typeof parsed === 'string') c.add('spec.queueURL', 'Invalid', parsed, url);
      for (const f of ['region', 'accountId'] as const) {
        if (spec[f] !== undefined) c.add(`spec.${f}`, 'Forbidden', 'applies with queueName (queueURL says it)');
      }
    }
    if (name !== undefined && !QUEUE_NAME.test(name)) {
      c.add('spec.queueName', 'Invalid', 'must be 1 to 80 letters, digits, - or _, ending in .fifo for a FIFO queue', name);
    }
    const region = c.string('spec.region', spec.region, false, 64);
    if (region !== undefined && !isAwsRegion(region)) c.add('spec.region', 'Invalid', 'must be an AWS region such as us-east-1', region);
    const account = c.string('spec.accountId', spec.accountId, false, 12);
    if (spec.queueName !== undefined && spec.queueURL === undefined && spec.accountId === undefined) {
      c.add('spec.accountId', 'Required', 'must be set with queueName: the queue URL names the account');
    }
    if (account !== undefined && !ACCOUNT_ID.test(account)) c.add('spec.accountId', 'Invalid', 'must be a 12-digit AWS account id', account);
    const role = c.string('spec.roleArn', spec.roleArn, false, 2048);
    if (role !== undefined && !isRoleArn(role)) c.add('spec.roleArn', 'Invalid', 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name', role);
    validateBoolean(c, 'spec.scaleOnInFlight', spec.scaleOnInFlight);
    validateBoolean(c, 'spec.scaleOnDelayed', spec.scaleOnDelayed);
  }
  return c.errors.length ? { valid: false, errors: c.errors } : { valid: true, object: input as SQSQueueMetric };
}
