// An SQS endpoint that answers with text of its own (an error message carrying secrets, or counts
// that are not numbers) through the real SDK client and SqsSource: nothing it wrote reaches the
// answer the cycle reports, and a queue no grant allows is never asked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsSource } from '../../lib/metrics/sqs-source.js';
import type { SQSQueueMetric } from '../../lib/api/sqs-types.js';
import { SECRETS } from './attackers.js';

const ACCOUNT = '123456789012';
const URL = `https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/orders`;
let server: Server;
let client: SQSClient;
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const asked: string[] = [];

const metric = (queueURL: string): SQSQueueMetric => ({ apiVersion: 'shpa.dev/v1', kind: 'SQSQueueMetric', metadata: { name: 'q', namespace: 'shop' }, spec: { queueURL } });
const source = () =>
  new SqsSource({ access: { shop: { sqsQueues: [`arn:aws:sqs:us-east-1:${ACCOUNT}:orders`] } }, defaultRegion: 'us-east-1', clientFor: () => client });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      asked.push(body);
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  client = new SQSClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await new Promise((r) => server.close(r));
});

describe('SQSQueueMetric against an endpoint that writes its own text', () => {
  it('an error message full of secrets: the answer names the queue and the kind of failure only', async () => {
    answer = { status: 400, body: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: SECRETS.join(' ') } };
    const [a] = await source().fetch([metric(URL)], new Date());
    expect(a.result.error).toBe(`SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:orders does not exist`);
    answer = { status: 403, body: { __type: SECRETS[0], message: SECRETS.join(' ') } };
    const [b] = await source().fetch([metric(URL)], new Date());
    expect(b.result.error).toBe(`SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:orders: GetQueueAttributes failed (HTTP 403)`);
    for (const s of SECRETS) expect(JSON.stringify([a, b])).not.toContain(s);
  });

  it('counts that are not numbers are a failure in our words, never the text', async () => {
    answer = { status: 200, body: { Attributes: { ApproximateNumberOfMessages: SECRETS[1], ApproximateNumberOfMessagesNotVisible: '0', ApproximateNumberOfMessagesDelayed: '0' } } };
    const [a] = await source().fetch([metric(URL)], new Date());
    expect(a.result.error).toBe(`SQS queue arn:aws:sqs:us-east-1:${ACCOUNT}:orders: GetQueueAttributes answered without the message counts`);
    expect(JSON.stringify(a)).not.toContain(SECRETS[1]);
  });

  it('a queue no grant allows is never asked', async () => {
    const before = asked.length;
    const [a] = await source().fetch([metric(`https://sqs.us-east-1.amazonaws.com/${ACCOUNT}/payroll`)], new Date());
    expect(a.result.error).toContain(':payroll is not one namespace shop may read');
    expect(asked.length).toBe(before);
  });
});
