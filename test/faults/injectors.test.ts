// The fault injectors the suite adds to the local servers, seen from the real clients: the
// DynamoDB proxy (condition failure, 500, hang, endpoint down), the Kubernetes API server
// (connection reset before or after serving, held requests, killed and restarted) and the
// CloudWatch endpoint (faults by metric, PartialData, hang, NaN on the wire).
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { ConditionalCheckFailedException, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { startK8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { createDynamoClient } from '../../lib/store/dynamo-client.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { startFaultProxy } from '../support/dynamo-faults.js';

describe('DynamoDB fault proxy', () => {
  let db: DynamoServer;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(() => db?.stop());

  it('fails chosen requests with a failed condition, a 500 or no answer, and takes the endpoint down and up', async () => {
    const proxy = await startFaultProxy(db.endpoint);
    const client = createDynamoClient({ endpoint: proxy.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, maxAttempts: 1, requestTimeoutMs: 300 });
    const list = () => client.send(new ListTablesCommand({}));
    try {
      const remove = proxy.add({ fault: 'conditionalCheckFailed', when: (r) => r.operation === 'ListTables' });
      await expect(list()).rejects.toBeInstanceOf(ConditionalCheckFailedException);
      remove();
      proxy.add({ operation: 'ListTables', fault: 'internalError', times: 1 });
      await expect(list()).rejects.toMatchObject({ name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
      proxy.add({ operation: 'ListTables', fault: 'hang', times: 1 });
      await expect(list()).rejects.toThrow(/no answer from 127\.0\.0\.1 within 300 ms of the server's time/);
      expect(proxy.injected).toEqual({ conditionalCheckFailed: 1, internalError: 1, hang: 1 });
      await proxy.down();
      await expect(list()).rejects.toThrow(/ECONNREFUSED/);
      await proxy.up();
      await expect(list()).resolves.toMatchObject({ TableNames: expect.any(Array) });
    } finally {
      client.destroy();
      await proxy.stop();
    }
  });
});

describe('Kubernetes API server faults', () => {
  it('resets a connection before or after serving, holds requests in order, dies and comes back on its port', async () => {
    const model = new WorkloadModel({ clock: { now: () => new Date() } });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas: 2, selector: { app: 'web' } });
    const k8s = await startK8sApiServer({ model });
    const path = '/apis/apps/v1/namespaces/apps/deployments/web/scale';
    const patch = (replicas: number) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${k8s.url}${path}`, { method: 'PATCH', ca: k8s.caPem, agent: false, headers: { authorization: `Bearer ${k8s.token}`, 'content-type': 'application/merge-patch+json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ spec: { replicas } }));
      });
    try {
      const before = k8s.faults.add({ method: 'PATCH', path, reset: 'request', times: 1 });
      await expect(patch(3)).rejects.toThrow();
      expect(model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
      before();
      k8s.faults.add({ method: 'PATCH', path, reset: 'answer', times: 1 });
      await expect(patch(4)).rejects.toThrow();
      expect(model.replicasOf('apps', 'Deployment', 'web')).toBe(4);

      let open!: () => void;
      k8s.faults.add({ method: 'PATCH', path, waitFor: new Promise<void>((resolve) => (open = resolve)), times: 2 });
      const first = patch(5);
      await until(() => k8s.requestLog.filter((r) => r.method === 'PATCH').length === 3);
      const second = patch(6);
      await until(() => k8s.requestLog.filter((r) => r.method === 'PATCH').length === 4);
      expect(model.replicasOf('apps', 'Deployment', 'web')).toBe(4);
      open();
      expect([await first, await second]).toEqual([200, 200]);
      expect(model.replicasOf('apps', 'Deployment', 'web')).toBe(6);

      await k8s.kill();
      await expect(patch(7)).rejects.toThrow();
      await k8s.restart();
      expect(await patch(7)).toBe(200);
    } finally {
      await k8s.stop();
    }
  });
});

describe('CloudWatch endpoint faults', () => {
  it('fails the requests reading one metric, answers PartialData without the newest datapoint, hangs, and sends NaN as AWS does', async () => {
    const now = Date.parse('2025-01-01T12:00:00Z');
    const cw = await startLocalCloudWatch({ clock: () => now });
    const client = new CloudWatchClient({ endpoint: cw.url, region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 1, requestHandler: { requestTimeout: 300, throwOnRequestTimeout: true } });
    const read = (name: string) =>
      client.send(
        new GetMetricDataCommand({
          StartTime: new Date(now - 300_000),
          EndTime: new Date(now),
          MetricDataQueries: [{ Id: 'q', MetricStat: { Metric: { Namespace: 'App', MetricName: name }, Period: 60, Stat: 'Average' } }],
        }),
      );
    cw.setSeriesFunction({ namespace: 'App', metricName: 'Queue' }, () => 7, 60);
    cw.setSeriesFunction({ namespace: 'App', metricName: 'Other' }, () => NaN, 60);
    try {
      const stop = cw.failWhile('InternalError', 'Queue');
      await expect(read('Queue')).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 } });
      const values = (await read('Other')).MetricDataResults![0].Values!;
      expect(values.length).toBeGreaterThan(0);
      expect(values.every(Number.isNaN)).toBe(true);
      stop();
      const whole = (await read('Queue')).MetricDataResults![0];
      const partialStop = cw.failWhile('PartialData');
      const partial = (await read('Queue')).MetricDataResults![0];
      partialStop();
      expect(partial.StatusCode).toBe('PartialData');
      expect(partial.Timestamps).toEqual(whole.Timestamps!.slice(1));
      cw.failWhile('Hang', 'Queue');
      await expect(read('Queue')).rejects.toThrow();
      expect(cw.requests.map((r) => r.fault ?? '-')).toEqual(['InternalError', '-', '-', 'PartialData', 'Hang']);
    } finally {
      client.destroy();
      await cw.close();
    }
  });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
}
