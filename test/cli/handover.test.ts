// `shpa handover` and `shpa handback` against the local API server, through a kubeconfig as a user
// runs them: KEDA's pause confirmed (Paused True and its HPA deleted) before ours leaves dry-run, and
// taken back when KEDA never confirms; the refusals that keep two controllers from acting at once.
// This test plays KEDA's operator; the sync's decisions are written into the status by hand.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handBack, handOver, HANDED_OVER_ANNOTATION, KEDA_PAUSED_ANNOTATION, type HandoverOptions } from '../../lib/cli/handover.js';
import { connectKube, type KubeClient } from '../../lib/cli/kube-client.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { writeKubeconfig } from '../../lib/local/kubernetes/kubeconfig.js';

const scaledObjectCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'scaledobjects.keda.sh' },
  spec: {
    group: 'keda.sh',
    names: { kind: 'ScaledObject', listKind: 'ScaledObjectList', plural: 'scaledobjects', singular: 'scaledobject', shortNames: ['so'] },
    scope: 'Namespaced',
    versions: [{ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

const OURS = '/apis/shpa.dev/v1/namespaces/demo/serverlesshorizontalpodautoscalers/queue';
const SO = '/apis/keda.sh/v1alpha1/namespaces/demo/scaledobjects/queue';
const HPAS = '/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers';

describe('shpa handover and handback', () => {
  let server: K8sApiServer;
  let kube: KubeClient;
  let said: string[];
  let opts: HandoverOptions;

  const ours = (annotations: Record<string, string>, shadow?: object) => ({
    apiVersion: 'shpa.dev/v1',
    kind: 'ServerlessHorizontalPodAutoscaler',
    metadata: { name: 'queue', namespace: 'demo', annotations },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'worker' }, maxReplicas: 10, metrics: [{ type: 'External', external: { metric: { name: 'depth' }, target: { type: 'AverageValue', averageValue: '5' } } }] },
    ...(shadow ? { status: { desiredReplicas: 2, shadow } } : {}),
  });
  const shadowed = { of: 'ScaledObject/queue', since: '2026-11-28T03:00:00Z', decisions: 12, agreed: 11, maxDifference: 1 };
  const annotationsOf = async (path: string) => ((await kube.request('GET', path)).body as { metadata: { annotations?: Record<string, string> } }).metadata.annotations ?? {};
  const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'keda-hpa-queue', namespace: 'demo' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'worker' }, maxReplicas: 10 } };

  /** KEDA's operator: on the pause annotation, deletes its HPA and sets Paused True (scaledobject_controller.go). */
  const keda = () => {
    const t = setInterval(() => {
      void (async () => {
        if ((await annotationsOf(SO))[KEDA_PAUSED_ANNOTATION] !== 'true') return;
        await kube.request('DELETE', `${HPAS}/keda-hpa-queue`);
        await kube.request('PATCH', `${SO}/status`, { status: { conditions: [{ type: 'Paused', status: 'True', reason: 'ScaledObjectPaused', message: 'ScaledObject is paused' }] } });
      })();
    }, 100);
    return () => clearInterval(t);
  };

  beforeEach(async () => {
    server = await startK8sApiServer({ crds: [serverlessHpaCrd(), scaledObjectCrd] });
    const kubeconfig = await writeKubeconfig(server, join(mkdtempSync(join(tmpdir(), 'shpa-handover-')), 'kubeconfig'), { namespace: 'demo' });
    kube = connectKube({ kubeconfig });
    said = [];
    opts = { namespace: kube.namespace, timeoutMs: 1500, pollMs: 50, say: (l) => said.push(l) };
    expect((await kube.request('POST', '/apis/keda.sh/v1alpha1/namespaces/demo/scaledobjects', { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'queue', namespace: 'demo' }, spec: { scaleTargetRef: { name: 'worker' } } })).status).toBe(201);
    expect((await kube.request('POST', HPAS, hpa)).status).toBe(201);
  });
  afterEach(async () => {
    await server.stop();
  });

  async function createOurs(annotations: Record<string, string>, shadow?: object) {
    expect((await kube.request('POST', '/apis/shpa.dev/v1/namespaces/demo/serverlesshorizontalpodautoscalers', ours(annotations))).status).toBe(201);
    if (shadow) expect((await kube.request('PATCH', `${OURS}/status`, { status: { desiredReplicas: 2, shadow } })).status).toBe(200);
  }

  it('pauses the ScaledObject, waits for KEDA to confirm, then takes ours out of dry-run; handback unpauses after ours is confirmed in dry-run', async () => {
    await createOurs({ 'shpa.dev/dry-run': 'true', 'shpa.dev/shadow-of': 'ScaledObject/queue' }, shadowed);
    const stop = keda();
    try {
      await handOver(kube, 'queue', opts);
    } finally {
      stop();
    }
    expect(said).toEqual([
      'shadow of ScaledObject/queue: 12 decisions compared since 2026-11-28T03:00:00Z, 11 agreed, largest difference 1',
      'scaledobject.keda.sh/queue paused (Paused True, keda-hpa-queue deleted by KEDA; the replicas stay)',
      'serverlesshorizontalpodautoscaler.shpa.dev/queue out of dry-run: it writes /scale from its next evaluation',
    ]);
    expect(await annotationsOf(OURS)).not.toHaveProperty(['shpa.dev/dry-run']);
    // Ordering at the API server: the dry-run annotation left only after KEDA's HPA was seen gone.
    const log = server.requestLog;
    const hpaGone = log.findIndex((r) => r.method === 'GET' && r.path === `${HPAS}/keda-hpa-queue` && r.status === 404);
    const takeover = log.findIndex((r) => r.method === 'PATCH' && r.path === OURS);
    expect(hpaGone).toBeGreaterThan(-1);
    expect(takeover).toBeGreaterThan(hpaGone);

    // Back: a dry-run decision after the request confirms ours stopped; only then is KEDA unpaused.
    said.length = 0;
    const sync = setInterval(() => {
      void (async () => {
        if ((await annotationsOf(OURS))['shpa.dev/dry-run'] !== 'true') return;
        await kube.request('PATCH', `${OURS}/status`, { status: { shadow: { ...shadowed, last: { time: new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z'), desiredReplicas: 2 } } } });
      })();
    }, 100);
    try {
      await handBack(kube, 'queue', { ...opts, timeoutMs: 4000 });
    } finally {
      clearInterval(sync);
    }
    expect(said[1]).toBe('scaledobject.keda.sh/queue unpaused: KEDA re-creates its HPA and scales again');
    expect(await annotationsOf(SO)).not.toHaveProperty([KEDA_PAUSED_ANNOTATION]);
    expect(await annotationsOf(OURS)).toMatchObject({ 'shpa.dev/dry-run': 'true' });
  });

  it('takes the pause back when KEDA does not confirm it: ours stays in dry-run', async () => {
    await createOurs({ 'shpa.dev/dry-run': 'true', 'shpa.dev/shadow-of': 'so/queue' }, shadowed);
    await expect(handOver(kube, 'queue', opts)).rejects.toThrow(/KEDA did not confirm the pause of ScaledObject demo\/queue within 1.5 s .*: the pause was taken back, ours stays in dry-run/);
    expect(await annotationsOf(SO)).not.toHaveProperty([KEDA_PAUSED_ANNOTATION]);
    expect(await annotationsOf(OURS)).toMatchObject({ 'shpa.dev/dry-run': 'true' });
  });

  it('refuses to hand over to an autoscaler that has compared nothing yet (unless --force), or that names no live one', async () => {
    await createOurs({ 'shpa.dev/dry-run': 'true', 'shpa.dev/shadow-of': 'ScaledObject/queue' });
    await expect(handOver(kube, 'queue', opts)).rejects.toThrow('has not compared a decision with ScaledObject/queue yet (status.shadow): let it shadow a while (shpa describe hpa queue), or pass --force');
    expect(await annotationsOf(SO)).not.toHaveProperty([KEDA_PAUSED_ANNOTATION]);
    await kube.request('PATCH', OURS, { metadata: { annotations: { 'shpa.dev/shadow-of': null } } });
    await expect(handOver(kube, 'queue', opts)).rejects.toThrow('has no shpa.dev/shadow-of annotation: name the live autoscaler first, e.g. kubectl annotate shpa queue shpa.dev/shadow-of=HorizontalPodAutoscaler/queue');
    await expect(handOver(kube, 'nope', opts)).rejects.toThrow('serverlesshorizontalpodautoscalers.shpa.dev "nope" not found in namespace demo');
  });

  it('says when both act: ours out of dry-run while the live HPA exists', async () => {
    await createOurs({ 'shpa.dev/shadow-of': 'HorizontalPodAutoscaler/keda-hpa-queue' });
    await expect(handOver(kube, 'queue', opts)).rejects.toThrow('is not in dry-run and HorizontalPodAutoscaler keda-hpa-queue exists: both act on the target now; run "shpa handback queue"');
  });

  it('handback without a dry-run decision since leaves the live autoscaler stopped and says why', async () => {
    await createOurs({ 'shpa.dev/shadow-of': 'HorizontalPodAutoscaler/keda-hpa-queue', [HANDED_OVER_ANNOTATION]: JSON.stringify(hpa) });
    await kube.request('DELETE', `${HPAS}/keda-hpa-queue`);
    await expect(handBack(kube, 'queue', opts)).rejects.toThrow(/is in dry-run but made no decision within 1.5 s, so it may still write \/scale: HorizontalPodAutoscaler\/keda-hpa-queue is not restored/);
    expect((await kube.request('GET', `${HPAS}/keda-hpa-queue`)).status).toBe(404);
  });
});
