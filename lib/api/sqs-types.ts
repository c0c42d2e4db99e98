// Our own kind, shpa.dev/v1 SQSQueueMetric: an SQS queue's backlog, read live with
// GetQueueAttributes, that an HPA's External metric reads when metric.name equals this object's
// name (same namespace), as a CloudWatchMetric. What counts follows KEDA's aws-sqs-queue scaler.
import type { ObjectMeta } from '#hpa';

export interface SQSQueueMetricSpec {
  /** The queue's URL (https://sqs.<region>.amazonaws.com/<account>/<name>); or queueName with region and accountId. */
  queueURL?: string;
  queueName?: string;
  /** With queueName; default: the function's region. */
  region?: string;
  /** With queueName, required: the queue's account (another account's usually needs roleArn). */
  accountId?: string;
  /** An IAM role to assume to read the queue (another account). */
  roleArn?: string;
  /** Count messages received and not yet deleted (ApproximateNumberOfMessagesNotVisible); default true, as KEDA. */
  scaleOnInFlight?: boolean;
  /** Count messages sent with a delay not yet visible (ApproximateNumberOfMessagesDelayed); default false, as KEDA. */
  scaleOnDelayed?: boolean;
}

export interface SQSQueueMetric {
  apiVersion: 'shpa.dev/v1';
  kind: 'SQSQueueMetric';
  metadata: ObjectMeta;
  spec: SQSQueueMetricSpec;
}

/** A queue as GetQueueAttributes addresses it, and as access rules name it. */
export interface SqsQueueIdentity {
  region: string;
  accountId: string;
  name: string;
  /** The URL sent to SQS. */
  url: string;
  /** arn:<partition>:sqs:<region>:<account>:<name>. */
  arn: string;
}

const URL_HOST = /^(?:sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?|([a-z0-9-]+)\.queue\.amazonaws\.com(\.cn)?)$/;
export const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}(\.fifo)?$/;
export const ACCOUNT_ID = /^\d{12}$/;

/** The queue named by a URL, or why the URL is not an SQS queue URL. */
export function parseQueueUrl(url: string): Omit<SqsQueueIdentity, 'url' | 'arn'> & { partition: string } | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an SQS queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/orders';
  }
  const host = URL_HOST.exec(u.hostname);
  if (u.protocol !== 'https:' || !host || u.search || u.hash || u.username || u.port) {
    return 'must be an https SQS queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/orders';
  }
  const parts = u.pathname.split('/').filter((p) => p !== '');
  if (parts.length !== 2 || !ACCOUNT_ID.test(parts[0]) || !QUEUE_NAME.test(parts[1])) {
    return 'must end in /<12-digit account>/<queue name>';
  }
  return { region: host[1] ?? host[3], accountId: parts[0], name: parts[1], partition: host[2] || host[4] ? 'aws-cn' : 'aws' };
}

/** Where the object's queue is; the URL a name resolves to uses the deploy's SQS endpoint shape. */
export function sqsQueueIdentity(spec: SQSQueueMetricSpec, defaultRegion?: string): SqsQueueIdentity {
  if (spec.queueURL !== undefined) {
    const parsed = parseQueueUrl(spec.queueURL);
    if (typeof parsed === 'string') throw new Error(`spec.queueURL ${parsed}`);
    const { region, accountId, name, partition } = parsed;
    return { region, accountId, name, url: spec.queueURL, arn: `arn:${partition}:sqs:${region}:${accountId}:${name}` };
  }
  const region = spec.region ?? defaultRegion ?? 'us-east-1';
  const accountId = spec.accountId ?? '';
  const name = spec.queueName ?? '';
  const partition = region.startsWith('cn-') ? 'aws-cn' : 'aws';
  const host = `sqs.${region}.amazonaws.com${partition === 'aws-cn' ? '.cn' : ''}`;
  return { region, accountId, name, url: `https://${host}/${accountId}/${name}`, arn: `arn:${partition}:sqs:${region}:${accountId}:${name}` };
}
