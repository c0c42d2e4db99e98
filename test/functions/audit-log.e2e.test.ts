// Edits of Kubernetes objects acted on within seconds, from the cluster's audit log: kubectl
// against `shpa local up`, then each audit.k8s.io/v1 event of the edit wrapped as a CloudWatch Logs
// subscription delivers it (JSON, gzip, base64, awslogs.data) into the real events function. The
// sync period is a minute, so what acts within seconds is the audit path (the decision says
// "evaluate"), not a tick.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKubectl, KUBECTL, kubectlWith } from '../support/kubectl.js';
import { startLocalUp, type LocalUp } from '../../lib/local/stack/up.js';
import { fromAuditLogData } from '../../lib/sync/audit-events.js';

if (!haveKubectl) console.warn(`skipping the audit-log end-to-end test: ${KUBECTL} is not installed`);

let seq = 0;
/** An audit.k8s.io/v1 Event at level Metadata, as the API server writes one at ResponseComplete. */
function auditEvent(verb: string, name: string | undefined, over: { resource?: string; subresource?: string; code?: number; namespace?: string } = {}) {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `a-${++seq}`,
    stage: 'ResponseComplete',
    requestURI: `/apis/shpa.dev/v1/namespaces/demo/${over.resource ?? 'serverlesshorizontalpodautoscalers'}${name ? `/${name}` : ''}`,
    verb,
    user: { username: 'kubernetes-admin', groups: ['system:masters'] },
    objectRef: { resource: over.resource ?? 'serverlesshorizontalpodautoscalers', namespace: over.namespace ?? 'demo', ...(name ? { name } : {}), apiGroup: 'shpa.dev', apiVersion: 'v1', ...(over.subresource ? { subresource: over.subresource } : {}) },
    responseStatus: { metadata: {}, code: over.code ?? 200 },
    requestReceivedTimestamp: new Date().toISOString(),
    stageTimestamp: new Date().toISOString(),
  };
}

/** As CloudWatch Logs delivers a subscription's batch to Lambda: awslogs.data. */
function delivery(logGroup: string, events: unknown[]): string {
  const body = { messageType: 'DATA_MESSAGE', owner: '123456789012', logGroup, logStream: 'kube-apiserver-audit-1', subscriptionFilters: ['shpa'], logEvents: events.map((e, i) => ({ id: String(i), timestamp: Date.now(), message: JSON.stringify(e) })) };
  return gzipSync(Buffer.from(JSON.stringify(body))).toString('base64');
}

describe('audit events as evaluations (lib/sync/audit-events.ts)', () => {
  const clusters = [{ name: 'local', region: 'us-east-1', shards: 1 }];
  const targets = (data: string) => fromAuditLogData(data, clusters).messages.map((m) => (JSON.parse(m.body) as { targets: unknown[] }).targets).flat();

  it('takes successful creates, updates and patches of our kinds; leaves out status writes, failures, reads and other kinds', () => {
    const data = delivery('/aws/eks/local/cluster', [
      auditEvent('patch', 'web'),
      auditEvent('create', 'jobs-backlog', { resource: 'cloudwatchmetrics' }),
      auditEvent('update', 'web', { subresource: 'status' }),
      auditEvent('patch', 'api', { code: 422 }),
      auditEvent('get', 'api'),
      { ...auditEvent('patch', 'api'), stage: 'RequestReceived' },
      { ...auditEvent('patch', 'web'), objectRef: { resource: 'deployments', namespace: 'demo', name: 'web', apiGroup: 'apps' } },
    ]);
    expect(targets(data)).toEqual([
      { kind: 'hpa', namespace: 'demo', name: 'web' },
      { kind: 'cwm', namespace: 'demo', name: 'jobs-backlog' },
    ]);
  });

  it('says what it cannot use: another log group, an unknown cluster, a create that names no object, a delivery that does not decode', () => {
    expect(fromAuditLogData(delivery('/aws/lambda/x', [auditEvent('patch', 'web')]), clusters).ignored).toEqual(['log group "/aws/lambda/x" is not an EKS control-plane log group (/aws/eks/CLUSTER/cluster)']);
    expect(fromAuditLogData(delivery('/aws/eks/other/cluster', [auditEvent('patch', 'web')]), clusters).ignored).toEqual(['demo/web: cluster other is not configured for this deploy']);
    expect(fromAuditLogData(delivery('/aws/eks/local/cluster', [auditEvent('create', undefined)]), clusters).ignored[0]).toMatch(/names no object: set the audit policy level of shpa.dev to RequestResponse/);
    expect(fromAuditLogData('bm90IGd6aXA=', clusters).ignored[0]).toMatch(/^a CloudWatch Logs delivery that is not base64 of gzip of JSON/);
  });
});

describe.skipIf(!haveKubectl)('shpa local up with the audit-log path', () => {
  let up: LocalUp;
  const kubectl = (...args: string[]) => kubectlWith(up.kubeconfig, ...args);
  const scales = () => up.fns.lines.filter((l) => l.message === 'decision' && l.hpa === 'web' && l.patched);

  async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
    const start = performance.now();
    while (!(await check())) {
      if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return performance.now() - start;
  }

  beforeAll(async () => {
    up = await startLocalUp({ kubeconfig: join(mkdtempSync(join(tmpdir(), 'shpa-audit-')), 'kubeconfig'), periodSeconds: 60 });
  });
  afterAll(async () => {
    await up?.stop();
  });

  it('a create and each patch are evaluated within seconds, with a tick only every minute', async () => {
    await kubectl('apply', '-f', 'examples/kubernetes/web.yaml');
    await up.fns.deliverLogs(delivery('/aws/eks/local/cluster', [auditEvent('create', 'web')]));
    await until(async () => (await kubectl('get', 'shpa', 'web', '-o', 'jsonpath={.status.observedGeneration}')) === '1', 5_000);
    const took: number[] = [];
    for (const min of [5, 6, 7]) {
      const start = performance.now();
      await kubectl('patch', 'shpa', 'web', '--type', 'merge', '-p', JSON.stringify({ spec: { minReplicas: min } }));
      await up.fns.deliverLogs(delivery('/aws/eks/local/cluster', [auditEvent('patch', 'web'), auditEvent('update', 'web', { subresource: 'status' })]));
      await until(() => up.model.replicasOf('demo', 'Deployment', 'web') === min, 5_000);
      took.push(performance.now() - start);
      // The decision line follows the patch, at the end of its cycle.
      await until(() => scales().some((l) => l.desiredReplicas === min), 5_000);
    }
    console.log(`audit log → patch: ${took.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} (kubectl patch included)`);
    expect(Math.max(...took)).toBeLessThan(5_000);
    // Each patch reached the Deployment from an evaluation the audit event asked for, not from a tick.
    expect(scales().slice(-3).map((l) => [l.desiredReplicas, l.trigger])).toEqual([
      [5, 'evaluate'],
      [6, 'evaluate'],
      [7, 'evaluate'],
    ]);
    expect(await kubectl('get', 'shpa', 'web', '-o', 'jsonpath={.metadata.generation} {.status.observedGeneration}')).toBe('4 4');
  });
});
