// lib/cluster with the real @kubernetes/client-node over HTTPS against the local API server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { selectPods, type KubernetesCluster } from '../../lib/cluster/index.js';
import { staticTokenProvider } from '../../lib/cluster/eks-token.js';
import { SelectorError } from '../../lib/hpa/selector.js';
import type { K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import type { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { ClusterApiError } from '../../lib/sync/ports/cluster-access.js';
import { accessFor, startCluster, type VirtualClock } from './fixture.js';

let server: K8sApiServer;
let model: WorkloadModel;
let clock: VirtualClock;
let access: KubernetesCluster;

beforeEach(async () => {
  ({ server, model, clock } = await startCluster());
  access = accessFor(server, clock);
});
afterEach(async () => {
  await access.close();
  await server.stop();
});

const targets = [
  { ref: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, path: '/apis/apps/v1/namespaces/default/deployments/web/scale', replicas: 2, selector: 'app=web' },
  { ref: { kind: 'StatefulSet', name: 'db', apiVersion: 'apps/v1' }, path: '/apis/apps/v1/namespaces/default/statefulsets/db/scale', replicas: 3, selector: 'app=db' },
  { ref: { kind: 'ReplicaSet', name: 'rs', apiVersion: 'apps/v1' }, path: '/apis/apps/v1/namespaces/default/replicasets/rs/scale', replicas: 1, selector: 'app=rs,tier=back' },
  { ref: { kind: 'ReplicationController', name: 'legacy', apiVersion: 'v1' }, path: '/api/v1/namespaces/default/replicationcontrollers/legacy/scale', replicas: 1, selector: 'app=legacy' },
  { ref: { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' }, path: '/apis/example.com/v1/namespaces/default/workers/queue/scale', replicas: 2, selector: 'app=queue' },
];

describe('scale subresource', () => {
  it.each(targets)('reads and merge-patches /scale of a $ref.kind, with the resourceVersion read', async ({ ref, path, replicas, selector }) => {
    const read = await access.getScale('default', ref);
    expect(read).toEqual({ specReplicas: replicas, statusReplicas: replicas, selector, resourceVersion: expect.any(String) });
    await access.updateScale('default', ref, replicas + 2, read.resourceVersion);
    const patch = server.requestLog.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({ path, contentType: 'application/merge-patch+json', body: { metadata: { resourceVersion: read.resourceVersion }, spec: { replicas: replicas + 2 } }, status: 200 });
    expect(model.replicasOf('default', ref.kind, ref.name)).toBe(replicas + 2);
    // status.replicas follows the pods the model created
    expect(await access.getScale('default', ref)).toMatchObject({ specReplicas: replicas + 2, statusReplicas: replicas + 2 });
  });

  it('resolves a custom resource by discovery once, and refuses kinds without a scale subresource', async () => {
    const ref = { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' };
    await access.getScale('default', ref);
    await access.getScale('default', ref);
    expect(server.count('GET', '/apis/example.com/v1')).toBe(1);
    await expect(access.getScale('default', { kind: 'Config', name: 'x', apiVersion: 'example.com/v1' })).rejects.toThrow(
      'configs.example.com has no scale subresource',
    );
    await expect(access.getScale('default', { kind: 'Nope', name: 'x', apiVersion: 'example.com/v1' })).rejects.toThrow(
      'no matches for kind "Nope" in version "example.com/v1"',
    );
    // upstream maps the group of apiVersion: no apiVersion, no apps group
    await expect(access.getScale('default', { kind: 'Deployment', name: 'web' })).rejects.toThrow('no matches for kind "Deployment" in group ""');
  });

  it('reads discovery afresh each cycle, so a kind added since is found', async () => {
    await access.getScale('default', { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' });
    model.defineResource({ group: 'example.com', version: 'v1', kind: 'Batch', resource: 'batches', scale: true });
    model.addWorkload({ kind: 'Batch', apiVersion: 'example.com/v1', namespace: 'default', name: 'nightly', replicas: 1, selector: { app: 'nightly' } });
    const ref = { kind: 'Batch', name: 'nightly', apiVersion: 'example.com/v1' };
    await expect(access.getScale('default', ref)).rejects.toThrow('no matches for kind "Batch"');
    access.beginCycle();
    expect(await access.getScale('default', ref)).toMatchObject({ specReplicas: 1 });
    expect(server.count('GET', '/apis/example.com/v1')).toBe(2);
  });

  it('names an unknown group as a kind with no match, not as the 404 of its discovery', async () => {
    await expect(access.getScale('default', { kind: 'Worker', name: 'queue', apiVersion: 'typo.example.com/v1' })).rejects.toThrow(
      'no matches for kind "Worker" in version "typo.example.com/v1"',
    );
  });

  it('names a denied discovery as a non-resource URL', async () => {
    const denied = await startCluster({ authorize: (a) => a.resourceRequest });
    const a = accessFor(denied.server, denied.clock);
    const err = await a.getScale('default', { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 403 });
    expect((err as Error).message).toContain('missing RBAC permission: verb "get" on non-resource URL "/apis/example.com/v1"');
    await a.close();
    await denied.server.stop();
  });

  it('validates replicas before any call', async () => {
    await expect(access.updateScale('default', targets[0].ref, -1)).rejects.toThrow('non-negative integer');
    expect(server.requestLog).toEqual([]);
  });

  it('names a missing target as the API server does (404)', async () => {
    const err = await access.getScale('default', { kind: 'Deployment', name: 'gone', apiVersion: 'apps/v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterApiError);
    expect(err).toMatchObject({ statusCode: 404, message: 'deployments.apps "gone" not found' });
    await expect(access.getScale('default', { kind: 'Worker', name: 'gone', apiVersion: 'example.com/v1' })).rejects.toThrow('workers.example.com "gone" not found');
  });

  it('a kubectl scale between the read and the write is a 409 conflict: never written over, never retried blindly', async () => {
    const ref = targets[0].ref;
    const read = await access.getScale('default', ref);
    model.setReplicas('default', model.typeOf('apps', 'Deployment')!, 'web', 6); // someone else wrote 6
    const err = await access.updateScale('default', ref, 5, read.resourceVersion).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 409, outcomeUnknown: false });
    expect((err as Error).message).toMatch(/the object has been modified/);
    expect(server.count('PATCH', targets[0].path)).toBe(1);
    expect(model.replicasOf('default', 'Deployment', 'web')).toBe(6);
  });
});

describe('transient failures', () => {
  it('retries 503 and 429 (honouring Retry-After) within the deadline', async () => {
    server.faults.add({ path: targets[0].path, status: 503, times: 2 });
    server.faults.add({ path: '/api/v1/namespaces/default/pods', status: 429, retryAfterSeconds: 0, times: 1 });
    expect(await access.getScale('default', targets[0].ref)).toMatchObject({ specReplicas: 2 });
    expect(server.count('GET', targets[0].path)).toBe(3);
    expect((await access.listPods('default')).length).toBeGreaterThan(0);
    expect(server.count('GET', '/api/v1/namespaces/default/pods')).toBe(2);
  });

  it('retries a persistent 500 until its time budget is spent, and keeps the status code', async () => {
    server.faults.add({ path: targets[0].path, status: 500, message: 'etcdserver: leader changed' });
    const started = Date.now();
    const err = await access.getScale('default', targets[0].ref).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 500 });
    expect((err as Error).message).toContain('etcdserver: leader changed');
    expect(server.count('GET', targets[0].path)).toBeGreaterThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('rides out an API server that is down for a moment: attempts bounded by time, not by count', async () => {
    const a = accessFor(server, clock, { retry: { budgetMs: 3_000, baseBackoffMs: 20, maxBackoffMs: 200 } });
    server.faults.add({ path: targets[0].path, status: 503, times: 8 });
    expect(await a.getScale('default', targets[0].ref)).toMatchObject({ specReplicas: 2 });
    expect(server.count('GET', targets[0].path)).toBe(9);
    await a.close();
  });

  it('stops at once when the cycle gives up (its AbortSignal), saying so', async () => {
    const a = accessFor(server, clock, { retry: { budgetMs: 5_000 } });
    server.faults.add({ path: targets[0].path, hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(a.getScale('default', targets[0].ref, controller.signal)).rejects.toThrow(/abandoned \(cycle deadline\)/);
    expect(Date.now() - started).toBeLessThan(1_000);
    await a.close();
  });

  it('times out a hanging call inside the per-call budget', async () => {
    const a = accessFor(server, clock, { retry: { attemptTimeoutMs: 150, budgetMs: 400, baseBackoffMs: 5, maxBackoffMs: 10 } });
    server.faults.add({ path: targets[0].path, hang: true });
    const started = Date.now();
    await expect(a.getScale('default', targets[0].ref)).rejects.toThrow(/no answer within \d+ ms/);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(server.count('GET', targets[0].path)).toBeGreaterThanOrEqual(2);
    await a.close();
  });

  it('does not retry 4xx other than 401/429', async () => {
    server.faults.add({ path: targets[0].path, status: 400, message: 'bad' });
    await expect(access.getScale('default', targets[0].ref)).rejects.toMatchObject({ statusCode: 400 });
    expect(server.count('GET', targets[0].path)).toBe(1);
  });

  it('gets a fresh token once after a 401', async () => {
    let calls = 0;
    const a = accessFor(server, clock, {
      token: undefined,
      tokenProvider: { getToken: async () => (calls === 0 ? 'stale' : server.token), invalidate: () => void calls++ },
    });
    expect(await a.getScale('default', targets[0].ref)).toMatchObject({ specReplicas: 2 });
    expect(calls).toBe(1);
    await a.close();
    const bad = accessFor(server, clock, { token: undefined, tokenProvider: staticTokenProvider('wrong') });
    await expect(bad.getScale('default', targets[0].ref)).rejects.toMatchObject({ statusCode: 401 });
    await bad.close();
  });
});

describe('pods', () => {
  it('converts pods through their life: Pending, Running unready, Ready, terminating, gone', async () => {
    const ref = targets[0].ref;
    clock.advance(15);
    await access.getScale('default', ref);
    await access.updateScale('default', ref, 3);
    const created = clock.now().toISOString().replace('.000', '');
    access.beginCycle();
    let web = selectPods(await access.listPods('default'), 'app=web');
    const fresh = web.filter((p) => p.phase === 'Pending');
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ ready: 'False', readyTransitionTime: created, containers: [{ name: 'app', requests: { cpu: '100m', memory: '128Mi' } }] });
    expect(fresh[0].startTime).toBeUndefined();

    clock.advance(5);
    access.beginCycle();
    web = selectPods(await access.listPods('default'), 'app=web');
    expect(web.find((p) => p.name === fresh[0].name)).toMatchObject({ phase: 'Running', ready: 'False', startTime: '2026-01-01T00:00:17Z' });

    clock.advance(10);
    access.beginCycle();
    web = selectPods(await access.listPods('default'), 'app=web');
    expect(web.every((p) => p.ready === 'True')).toBe(true);

    await access.updateScale('default', ref, 1);
    access.beginCycle();
    web = selectPods(await access.listPods('default'), 'app=web');
    expect(web.filter((p) => p.deletionTimestamp === '2026-01-01T00:01:00Z')).toHaveLength(2);
    clock.advance(31);
    access.beginCycle();
    expect(selectPods(await access.listPods('default'), 'app=web')).toHaveLength(1);
  });

  it('selects pods locally with set-based selectors and rejects malformed ones', async () => {
    const pods = await access.listPods('default');
    expect(selectPods(pods, 'app in (web,db)').map((p) => p.labels?.app).sort()).toEqual(['db', 'db', 'db', 'web', 'web']);
    expect(selectPods(pods, 'app=rs,tier notin (front)')).toHaveLength(1);
    expect(selectPods(pods, 'app,!tier').length).toBe(pods.length - 1);
    expect(() => selectPods(pods, 'app in (web')).toThrow(SelectorError);
  });

  it('names what is wrong with a malformed pod list', async () => {
    server.faults.add({ path: '/api/v1/namespaces/default/pods', status: 200 });
    // a 200 Status body is not a PodList
    await expect(access.listPods('default')).rejects.toThrow(/list pods \(core\) in namespace "default": unexpected answer: PodList: kind is not "PodList"/);
  });

  it('pages through large namespaces', async () => {
    const a = accessFor(server, clock, { podPageSize: 3 });
    expect(await a.listPods('default')).toHaveLength(9);
    expect(server.count('GET', '/api/v1/namespaces/default/pods')).toBe(3);
    await a.close();
  });
});

describe('metrics APIs', () => {
  it('lists PodMetrics, with CPU following the load over ready pods', async () => {
    model.setLoad('default', 'Deployment', 'web', () => ({ cpu: 1, memory: 200 * 1024 * 1024 }));
    clock.advance(12);
    const metrics = await access.listPodMetrics('default');
    const web = metrics.filter((m) => m.pod.startsWith('web-'));
    expect(web).toHaveLength(2);
    expect(web[0]).toMatchObject({ timestamp: '2026-01-01T00:00:12Z', windowSeconds: 15, containers: [{ name: 'app' }] });
    // 0.5 core each plus the 2m baseline, in nanocores as metrics-server reports them
    expect(web[0].containers[0].usage.cpu).toBe('502000000n');
    expect(web[0].containers[0].usage.memory).toBe(`${(100 + 32) * 1024}Ki`);
  });

  it('lists pods and PodMetrics by a label selector: only the pods it selects, each read as without it', async () => {
    clock.advance(12);
    const all = await access.listPodMetrics('default');
    const some = await access.listPodMetrics('default', undefined, 'app in (web)');
    expect(server.requestLog.at(-1)!).toMatchObject({ query: { labelSelector: 'app in (web)' } });
    expect(some.map((m) => m.pod).sort()).toEqual(all.filter((m) => m.pod.startsWith('web-')).map((m) => m.pod).sort());
    expect(some.length).toBeLessThan(all.length);
    expect(some).toEqual(all.filter((m) => m.pod.startsWith('web-')));
    const pods = await access.listPods('default', undefined, 'app in (web)');
    expect(pods.map((p) => p.name).sort()).toEqual(some.map((m) => m.pod).sort());
  });

  it('reads a Pods metric with pod and metric selectors', async () => {
    clock.advance(3);
    model.setPodsMetric('default', 'requests_per_second', (pod) => (pod.startsWith('web-') ? '12' : '1'), { path: 'api' });
    model.setPodsMetric('default', 'requests_per_second', '99', { path: 'health' });
    const samples = await access.getPodsMetric('default', { name: 'requests_per_second', selector: { matchLabels: { path: 'api' } } }, 'app=web');
    expect(samples.map((s) => s.value)).toEqual(['12', '12']);
    expect(samples[0]).toMatchObject({ timestamp: '2026-01-01T00:00:03Z' });
    const req = server.requestLog.at(-1)!;
    expect(req.path).toBe('/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/requests_per_second');
    expect(req.query).toEqual({ labelSelector: 'app=web', metricLabelSelector: 'path=api' });
  });

  it('reads Object metrics of a Deployment, a Service and a Namespace', async () => {
    model.setObjectMetric('default', { kind: 'Deployment', name: 'web' }, 'queue_depth', 42);
    model.setObjectMetric('default', { kind: 'Service', name: 'front' }, 'rps', 1.5);
    model.setObjectMetric('', { kind: 'Namespace', name: 'default' }, 'budget', '3k');
    expect(await access.getObjectMetric('default', { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, { name: 'queue_depth' })).toEqual({
      value: '42',
      timestamp: '2026-01-01T00:00:00Z',
    });
    expect(server.requestLog.at(-1)!.path).toBe('/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/web/queue_depth');
    expect(await access.getObjectMetric('default', { kind: 'Service', name: 'front', apiVersion: 'v1' }, { name: 'rps' })).toMatchObject({ value: '1500m' });
    expect(await access.getObjectMetric('default', { kind: 'Namespace', name: 'default', apiVersion: 'v1' }, { name: 'budget' })).toMatchObject({ value: '3k' });
    expect(server.requestLog.at(-1)!.path).toBe('/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/metrics/budget');
    await expect(access.getObjectMetric('default', { kind: 'Service', name: 'front', apiVersion: 'v1' }, { name: 'missing' })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reads External metrics, one sample per matching series', async () => {
    model.setExternalMetric('default', 'sqs_messages', 30, { queue: 'a' });
    model.setExternalMetric('default', 'sqs_messages', 12, { queue: 'b' });
    expect((await access.getExternalMetric('default', { name: 'sqs_messages' })).map((s) => s.value)).toEqual(['30', '12']);
    const one = await access.getExternalMetric('default', { name: 'sqs_messages', selector: { matchExpressions: [{ key: 'queue', operator: 'In', values: ['b'] }] } });
    expect(one).toEqual([{ value: '12', timestamp: '2026-01-01T00:00:00Z' }]);
    expect(server.requestLog.at(-1)!).toMatchObject({ path: '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/sqs_messages', query: { labelSelector: 'queue in (b)' } });
  });

  it('reports a metrics API that is not registered as a 404 error', async () => {
    const bare = await startCluster({ apis: { metrics: false, customMetrics: false, externalMetrics: false } });
    const a = accessFor(bare.server, bare.clock);
    await expect(a.listPodMetrics('default')).rejects.toMatchObject({ statusCode: 404, message: 'the server could not find the requested resource' });
    await expect(a.getExternalMetric('default', { name: 'x' })).rejects.toMatchObject({ statusCode: 404 });
    await a.close();
    await bare.server.stop();
  });

  it('names the field of a malformed metrics answer', async () => {
    server.faults.add({ path: /metrics/, status: 200 });
    // a 200 Status body is not a PodMetricsList
    await expect(access.listPodMetrics('default')).rejects.toThrow(/unexpected answer: PodMetricsList: kind is not "PodMetricsList"/);
  });
});
