// The SQS queue source against the local SQS endpoint, through the real SDK client.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LocalSqs } from '../../lib/local/sqs/server.js';
import { useLocalSqs } from '../support/local-sqs.js';
import { SqsSource, type SqsAnswer } from '../../lib/metrics/sqs-source.js';
import type { SQSQueueMetric, SQSQueueMetricSpec } from '../../lib/api/sqs-types.js';
import type { MetricAccess } from '../../lib/api/metric-access.js';

const ACCOUNT = '123456789012';
const T0 = Date.parse('2026-01-01T12:00:00Z');
let now = T0;
let sqs: LocalSqs;
let client: SQSClient;
let n = 0;
const credentials = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'secret' };
const access: MetricAccess = { shop: { sqsQueues: [`arn:aws:sqs:us-east-1:${ACCOUNT}:orders-*`] }, other: { sqsQueues: [] } };
const roles: (string | undefined)[] = [];

const source = (grants: MetricAccess = access) =>
  new SqsSource({
    access: grants,
    defaultRegion: 'us-east-1',
    clientFor: (_region, role) => {
      roles.push(role);
      return client;
    },
  });
const metric = (spec: SQSQueueMetricSpec, namespace = 'shop', name = 'backlog'): SQSQueueMetric => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'SQSQueueMetric',
  metadata: { name, namespace },
  spec,
});
const values = (answers: SqsAnswer[]) => answers.map((a) => a.result.value?.[0]?.value ?? a.result.error);
const awsUrl = (name: string) => `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/${name}`;

async function queue(): Promise<string> {
  const name = `orders-${++n}`;
  await client.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '30' } }));
  return name;
}

const local = useLocalSqs(() => now, { accountId: ACCOUNT });
beforeAll(() => void ({ sqs, client } = local));
beforeEach(() => {
  now = T0;
  roles.length = 0;
  sqs.clearFaults();
});

describe('SqsSource', () => {
  it('counts visible, in-flight and delayed messages as KEDA does, reading each queue once for every object on it', async () => {
    const name = await queue();
    const url = awsUrl(name);
    for (const body of ['a', 'b', 'c']) await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 60 }));
    await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 1 }));
    const before = sqs.count('GetQueueAttributes');
    const answers = await source().fetch(
      [
        metric({ queueURL: url }),
        metric({ queueName: name, region: 'us-east-1', accountId: ACCOUNT, scaleOnInFlight: false }),
        metric({ queueURL: url, scaleOnDelayed: true }),
        metric({ queueURL: url, scaleOnInFlight: false, scaleOnDelayed: true }),
      ],
      new Date(now),
    );
    // 2 visible, 1 in flight, 1 delayed.
    expect(values(answers)).toEqual(['3', '2', '4', '3']);
    expect(answers[0].result.value?.[0].timestamp).toBe('2026-01-01T12:00:00Z');
    expect(sqs.count('GetQueueAttributes') - before).toBe(1);
  });

  it('follows the queue: the in-flight message becomes visible when its visibility timeout ends, the delayed one after its delay', async () => {
    const name = await queue();
    const url = awsUrl(name);
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'a' }));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'b', DelaySeconds: 45 }));
    await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 1 }));
    const s = source();
    const visibleOnly = metric({ queueURL: url, scaleOnInFlight: false });
    expect(values(await s.fetch([visibleOnly], new Date(now)))).toEqual(['0']);
    now += 31_000;
    expect(values(await s.fetch([visibleOnly], new Date(now)))).toEqual(['1']);
    now += 15_000;
    expect(values(await s.fetch([visibleOnly], new Date(now)))).toEqual(['2']);
  });

  it('says a queue does not exist in its own words, naming the queue, and answers the other objects', async () => {
    const name = await queue();
    await client.send(new SendMessageCommand({ QueueUrl: awsUrl(name), MessageBody: 'a' }));
    const answers = await source().fetch([metric({ queueURL: awsUrl('orders-missing') }), metric({ queueURL: awsUrl(name) })], new Date(now));
    expect(answers[0].result.error).toBe(`SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:orders-missing does not exist`);
    expect(answers[0].result.error).not.toContain('specified');
    expect(values(answers)[1]).toBe('1');
  });

  it('refuses a queue the namespace is not granted, and a role it may not assume, without asking SQS (fail closed)', async () => {
    const name = await queue();
    const before = sqs.count('GetQueueAttributes');
    const answers = await source().fetch(
      [
        metric({ queueURL: awsUrl(name) }, 'other'),
        metric({ queueURL: awsUrl(name) }, 'ungranted'),
        metric({ queueURL: `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/payments` }, 'shop'),
        metric({ queueURL: awsUrl(name), roleArn: `arn:aws:iam::${ACCOUNT}:role/reader` }, 'shop'),
      ],
      new Date(now),
    );
    expect(answers[0].result.error).toBe(`queue arn:aws:sqs:us-east-1:${ACCOUNT}:${name} is not one namespace other may read (param metricAccess, sqsQueues: none)`);
    expect(answers[1].result.error).toContain('is not one namespace ungranted may read');
    expect(answers[2].result.error).toContain(`:payments is not one namespace shop may read (param metricAccess, sqsQueues: arn:aws:sqs:us-east-1:${ACCOUNT}:orders-*)`);
    expect(answers[3].result.error).toContain('spec.roleArn');
    expect(sqs.count('GetQueueAttributes')).toBe(before);
  });

  it('reads through the granted role, separately from the same queue read without it', async () => {
    const name = await queue();
    const role = `arn:aws:iam::${ACCOUNT}:role/reader`;
    const grants: MetricAccess = { shop: { sqsQueues: [`arn:aws:sqs:*:${ACCOUNT}:orders-?*`], roles: [role] } };
    const before = sqs.count('GetQueueAttributes');
    const answers = await source(grants).fetch([metric({ queueURL: awsUrl(name), roleArn: role }), metric({ queueURL: awsUrl(name) })], new Date(now));
    expect(values(answers)).toEqual(['0', '0']);
    expect(roles.sort()).toEqual([role, undefined].sort());
    expect(sqs.count('GetQueueAttributes') - before).toBe(2);
  });

  it('makes throttling a metric failure with a clear message', async () => {
    const name = await queue();
    sqs.failNext('GetQueueAttributes', 'throttle');
    const answers = await source().fetch([metric({ queueURL: awsUrl(name) }), metric({ queueURL: awsUrl(name), scaleOnDelayed: true })], new Date(now));
    const error = `SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:${name}: GetQueueAttributes throttled by SQS`;
    expect(values(answers)).toEqual([error, error]);
    // The next tick reads again.
    expect(values(await source().fetch([metric({ queueURL: awsUrl(name) })], new Date(now)))).toEqual(['0']);
  });

  it('reports an internal failure by HTTP status only', async () => {
    const name = await queue();
    sqs.failNext('GetQueueAttributes', 'internal-error');
    const [a] = await source().fetch([metric({ queueURL: awsUrl(name) })], new Date(now));
    expect(a.result.error).toBe(`SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:${name}: GetQueueAttributes failed (HTTP 500)`);
  });
});

describe('SQSQueueMetric queries in a shard fetch (createMetricsAccess)', () => {
  it('asks each queue once per fetch for every autoscaler on it, and refuses all when the deploy reads no queues', async () => {
    const { createMetricsAccess } = await import('../../lib/metrics/metrics-access.js');
    const { CloudWatchClient } = await import('@aws-sdk/client-cloudwatch');
    const name = await queue();
    await client.send(new SendMessageCommand({ QueueUrl: awsUrl(name), MessageBody: 'a' }));
    const cloudWatch = { client: new CloudWatchClient({ region: 'us-east-1', credentials }) };
    const clusterMetrics = () => {
      throw new Error('no cluster metrics here');
    };
    const q = (spec: SQSQueueMetricSpec, metricName: string) => ({ type: 'SQS' as const, cluster: 'c1', namespace: 'shop', source: metric(spec, 'shop', metricName) });
    const queries = [q({ queueURL: awsUrl(name) }, 'a'), q({ queueURL: awsUrl(name), scaleOnInFlight: false }, 'b')];
    const metrics = createMetricsAccess({ clusterMetrics, cloudWatch, sqs: { access, clientFor: () => client } });
    const before = sqs.count('GetQueueAttributes');
    const answers = await metrics.fetchAll(queries, new Date(now));
    expect(answers.map((a) => [a.type, (a.result.value as { value: string }[] | undefined)?.[0]?.value])).toEqual([
      ['SQS', '1'],
      ['SQS', '1'],
    ]);
    expect(sqs.count('GetQueueAttributes') - before).toBe(1);
    expect(metrics.stats().sqs).toEqual({ calls: 1, objects: 2 });
    const none = await createMetricsAccess({ clusterMetrics, cloudWatch }).fetchAll(queries, new Date(now));
    expect(none.map((a) => a.result.error)).toEqual(['SQS: this deploy reads no SQS queues (param sqsQueueArns)', 'SQS: this deploy reads no SQS queues (param sqsQueueArns)']);
    cloudWatch.client.destroy();
  });
});
