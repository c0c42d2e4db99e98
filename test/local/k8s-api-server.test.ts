// The local API server on the wire: HTTPS with its own CA, auth, shapes, errors, faults.
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { PendingTimers } from '../../lib/local/shared/pending-timers.js';
import { startCluster } from '../cluster/fixture.js';

let server: K8sApiServer;
beforeAll(async () => {
  ({ server } = await startCluster());
});
afterAll(() => server.stop());

function call(method: string, path: string, opts: { body?: unknown; contentType?: string; token?: string | null; timeoutMs?: number } = {}) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (opts.token !== null) headers.authorization = `Bearer ${opts.token ?? server.token}`;
    if (opts.contentType) headers['content-type'] = opts.contentType;
    const req = request(`${server.url}${path}`, { method, ca: server.caPem, headers, timeout: opts.timeoutMs }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(JSON.stringify(opts.body));
    req.end();
  });
}

const scale = '/apis/apps/v1/namespaces/default/deployments/web/scale';

describe('local Kubernetes API server', () => {
  it('answers 401 with a Status without a valid bearer token', async () => {
    for (const token of [null, 'nope']) {
      expect(await call('GET', scale, { token })).toEqual({
        status: 401,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
      });
    }
  });

  it('serves discovery with the scale subresources', async () => {
    const groups = (await call('GET', '/apis')).body as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'example.com', 'metrics.k8s.io', 'custom.metrics.k8s.io', 'external.metrics.k8s.io']));
    const core = (await call('GET', '/api/v1')).body as { resources: { name: string; kind: string }[] };
    expect(core.resources).toContainEqual(expect.objectContaining({ name: 'replicationcontrollers/scale', kind: 'Scale' }));
    const custom = (await call('GET', '/apis/example.com/v1')).body as { resources: { name: string }[] };
    expect(custom.resources.map((r) => r.name)).toEqual(['workers', 'workers/scale', 'configs']);
    expect((await call('GET', '/apis/nope.io/v1')).status).toBe(404);
  });

  it('applies JSON patches and refuses unknown media types and invalid replicas', async () => {
    const r = await call('PATCH', scale, { contentType: 'application/json-patch+json', body: [{ op: 'replace', path: '/spec/replicas', value: 4 }] });
    expect(r).toMatchObject({ status: 200, body: { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 }, status: { replicas: 4, selector: 'app=web' } } });
    expect((await call('PATCH', scale, { contentType: 'application/json', body: {} })).body).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    const invalid = await call('PATCH', scale, { contentType: 'application/merge-patch+json', body: { spec: { replicas: -2 } } });
    expect(invalid.body).toMatchObject({ code: 422, reason: 'Invalid', message: expect.stringContaining('spec.replicas: Invalid value: -2') });
  });

  it('rejects a PUT with a stale resourceVersion with 409 Conflict', async () => {
    const current = (await call('GET', scale)).body as { metadata: { resourceVersion: string } };
    const stale = await call('PUT', scale, { contentType: 'application/json', body: { spec: { replicas: 2 }, metadata: { resourceVersion: '1' } } });
    expect(stale.body).toMatchObject({ code: 409, reason: 'Conflict', message: expect.stringContaining('Operation cannot be fulfilled on deployments.apps "web"') });
    const ok = await call('PUT', scale, { contentType: 'application/json', body: { spec: { replicas: 2 }, metadata: current.metadata } });
    expect(ok.status).toBe(200);
  });

  it('filters pods by labelSelector and rejects a malformed one', async () => {
    const list = (await call('GET', '/api/v1/namespaces/default/pods?labelSelector=app%20in%20(db,rs),tier!=front')).body as { kind: string; items: unknown[] };
    expect(list.kind).toBe('PodList');
    expect(list.items).toHaveLength(4);
    expect((await call('GET', '/api/v1/namespaces/default/pods?labelSelector=app%20in%20(db')).body).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  it('injects latency, statuses for a number of requests, and hangs; logs every request', async () => {
    const before = server.requestLog.length;
    const remove = server.faults.add({ path: scale, latencyMs: 120, status: 503, times: 1 });
    const started = Date.now();
    expect((await call('GET', scale)).body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect((await call('GET', scale)).status).toBe(200);
    remove();
    server.faults.add({ path: scale, hang: true, times: 1 });
    await expect(call('GET', scale, { timeoutMs: 200 })).rejects.toThrow('timeout');
    expect(server.requestLog.slice(before).map((r) => r.status)).toEqual([503, 200, -1]);
  });

  it('survives a client that goes away in the middle of its body', async () => {
    const req = request(`${server.url}${scale}`, { method: 'PATCH', ca: server.caPem, headers: { authorization: `Bearer ${server.token}`, 'content-length': '100' } });
    req.on('error', () => undefined);
    req.write('{"spec":');
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect((await call('GET', scale)).status).toBe(200);
  });
});

describe('PendingTimers', () => {
  it('cancels every pending delay at once', () => {
    vi.useFakeTimers();
    try {
      const timers = new PendingTimers();
      let done = 0;
      void timers.delay(1_000).then(() => done++);
      void timers.delay(2_000).then(() => done++);
      expect(vi.getTimerCount()).toBe(2);
      timers.cancelAll();
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(5_000);
      expect(done).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
