// PrometheusMetric objects in a cluster: the local API server admits them by the CRD's schema and
// CEL rules (infra/crds/prometheusmetrics.yaml), and the real client lists them with the
// autoscalers; a cluster without the CRD has none, and its autoscalers are listed as before.
import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { cloudWatchMetricCrd, prometheusMetricCrd, serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import type { K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { accessFor, startCluster } from './fixture.js';

let server: K8sApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function post(path: string, body: unknown): Promise<{ status: number; body: { message?: string } }> {
  const s = server!;
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}${path}`, { method: 'POST', ca: s.caPem, headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { message?: string } }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const requests = (spec: Record<string, unknown>, name = 'requests') => ({ apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name, namespace: 'default' }, spec });
const PATH = '/apis/shpa.dev/v1/namespaces/default/prometheusmetrics';

describe('PrometheusMetric objects in the cluster', () => {
  it('are admitted by the CRD, refused when CEL says so, and listed with the autoscalers', async () => {
    const started = await startCluster({ crds: [serverlessHpaCrd(), cloudWatchMetricCrd(), prometheusMetricCrd()] });
    server = started.server;
    expect((await post(PATH, requests({ query: 'sum(up)', server: { url: 'http://prometheus:9090' } }))).status).toBe(201);
    const two = await post(PATH, requests({ query: 'sum(up)', cloudWatch: {}, server: { url: 'http://prometheus:9090' } }, 'two'));
    expect(two.status).toBe(422);
    expect(two.body.message).toContain('exactly one of amp, cloudWatch or server must be set');
    const role = await post(PATH, requests({ query: 'sum(up)', server: { url: 'http://p:9090' }, roleArn: 'arn:aws:iam::123456789012:role/x' }, 'role'));
    expect(role.status).toBe(422);
    expect(role.body.message).toContain('roleArn applies to amp and cloudWatch');

    const listed = await accessFor(started.server, started.clock).listAutoscalerObjects(undefined);
    expect(listed.prometheusMetrics).toEqual([
      expect.objectContaining({ apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: expect.objectContaining({ name: 'requests', namespace: 'default' }), spec: { query: 'sum(up)', server: { url: 'http://prometheus:9090' } } }),
    ]);
  });

  it('a cluster without the PrometheusMetric CRD has none, and is listed as before', async () => {
    const started = await startCluster({ crds: [serverlessHpaCrd(), cloudWatchMetricCrd()] });
    server = started.server;
    const listed = await accessFor(started.server, started.clock).listAutoscalerObjects(undefined);
    expect(listed).toEqual({ autoscalers: [], cloudWatchMetrics: [], prometheusMetrics: [], sqsQueueMetrics: [] });
  });
});
