// SQSQueueMetric end to end on the local stack (`shpa local up`: the local API server with the CRDs,
// the real worker on a 5 s period, the local SQS endpoint), driven with the real kubectl and the real
// SQS client: the worker reads the queue with GetQueueAttributes at each tick, scales from zero when
// the backlog passes the activation threshold, and back to zero when the queue is drained. Real time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKubectl, KUBECTL, kubectlWith } from '../support/kubectl.js';
import { startLocalUp, type LocalUp } from '../../lib/local/stack/up.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/stack/functions.js';

if (!haveKubectl) console.warn(`skipping the SQS queue end-to-end test: ${KUBECTL} is not installed`);

const PERIOD = 5;

describe.skipIf(!haveKubectl)('an SQSQueueMetric on the local stack, with kubectl', () => {
  let up: LocalUp;
  let dir: string;
  let sqs: SQSClient;
  let queueUrl: string;
  const kubectl = (...args: string[]) => kubectlWith(up.kubeconfig, ...args);
  const replicas = () => up.model.replicasOf('demo', 'Deployment', 'reports');

  async function within<T>(periods: number, read: () => T | Promise<T>, check: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + periods * PERIOD * 1000;
    for (;;) {
      const v = await read();
      if (check(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function send(count: number): Promise<void> {
    for (let i = 0; i < count; i += 10) {
      const n = Math.min(10, count - i);
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: Array.from({ length: n }, (_, j) => ({ Id: String(j), MessageBody: `report ${i + j}` })) }));
    }
  }

  async function drain(): Promise<void> {
    for (;;) {
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
      if (!got.Messages?.length) return;
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: got.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-sqs-'));
    up = await startLocalUp({ kubeconfig: join(dir, 'kubeconfig'), periodSeconds: PERIOD });
    sqs = new SQSClient({ endpoint: up.fns.sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'reports' }))).QueueUrl!;
  });
  afterAll(async () => {
    sqs?.destroy();
    await up?.stop();
  });

  it('scales from zero past the activation threshold, to the backlog, and back to zero when drained', async () => {
    const account = up.fns.sqs.accountId;
    writeFileSync(
      join(dir, 'reports.yaml'),
      [
        'apiVersion: shpa.dev/v1',
        'kind: SQSQueueMetric',
        'metadata: {name: reports-queue, namespace: demo}',
        `spec: {queueName: reports, accountId: "${account}", region: ${LOCAL_REGION}}`,
        '---',
        'apiVersion: shpa.dev/v1',
        'kind: ServerlessHorizontalPodAutoscaler',
        'metadata: {name: reports, namespace: demo}',
        'spec:',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: reports}',
        '  minReplicas: 0',
        '  maxReplicas: 10',
        '  metrics: [{type: External, external: {metric: {name: reports-queue}, target: {type: AverageValue, averageValue: "5"}, activation: {value: "10"}}}]',
        '  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}',
      ].join('\n'),
    );
    expect(await kubectl('apply', '-f', join(dir, 'reports.yaml'))).toBe('sqsqueuemetric.shpa.dev/reports-queue created\nserverlesshorizontalpodautoscaler.shpa.dev/reports created\n');
    expect(await kubectl('get', 'sqm', '-n', 'demo', '-o', 'name')).toBe('sqsqueuemetric.shpa.dev/reports-queue\n');

    // The empty queue takes the workload to zero; 8 messages stay under the activation threshold.
    expect(await within(6, replicas, (n) => n === 0), await kubectl('describe', 'shpa', 'reports', '-n', 'demo')).toBe(0);
    await send(8);
    await new Promise((r) => setTimeout(r, 3 * PERIOD * 1000));
    expect(replicas()).toBe(0);

    // 40 messages: activated, and 40 / 5 = 8 replicas.
    await send(32);
    expect(await within(6, replicas, (n) => n === 8)).toBe(8);
    // At 8 replicas the status says 40 / 8 per replica, as upstream's AverageValue.
    const perReplica = () => kubectl('get', 'shpa', 'reports', '-n', 'demo', '-o', 'jsonpath={.status.currentMetrics[0].external.current.averageValue}');
    expect(await within(3, perReplica, (v) => v === '5')).toBe('5');

    await drain();
    expect(await within(6, replicas, (n) => n === 0)).toBe(0);
  }, 150_000);
});
