// Custom resources, events and workloads of the local API server, driven by the
// real @kubernetes/client-node (and raw HTTPS where a client hides the wire).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { admitCustomResource, invalidStatus } from '../../lib/local/kubernetes/crd/admission.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import type { RequestAttributes } from '../../lib/local/kubernetes/rbac.js';
import { writeKubeconfig } from '../../lib/local/kubernetes/kubeconfig.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { VirtualClock } from '../cluster/fixture.js';

export function loadCrds(): Record<string, unknown>[] {
  return ['serverlesshorizontalpodautoscalers', 'cloudwatchmetrics'].flatMap((f) =>
    parseAllDocuments(readFileSync(`infra/crds/${f}.yaml`, 'utf8')).map((d) => d.toJS() as Record<string, unknown>),
  );
}

const G = { group: 'shpa.dev', version: 'v1', plural: 'serverlesshorizontalpodautoscalers' };
const PATH = '/apis/shpa.dev/v1/namespaces/default/serverlesshorizontalpodautoscalers';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function autoscaler(name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>) {
  return {
    apiVersion: 'shpa.dev/v1',
    kind: 'ServerlessHorizontalPodAutoscaler',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10 },
    ...extra,
  };
}

type Obj = Record<string, any>;

let server: K8sApiServer;
let clock: VirtualClock;
let model: WorkloadModel;
let dir: string;
let custom: CustomObjectsApi;
let core: CoreV1Api;
let apps: AppsV1Api;
let kc: KubeConfig;
const seen: RequestAttributes[] = [];
let deny: ((a: RequestAttributes) => boolean) | undefined;

beforeAll(async () => {
  clock = new VirtualClock();
  model = new WorkloadModel({ clock, startDelaySeconds: 2, readyDelaySeconds: 4 });
  model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'default', name: 'web', replicas: 2, selector: { app: 'web' } });
  server = await startK8sApiServer({
    model,
    crds: loadCrds(),
    authorize: (a) => {
      seen.push({ ...a });
      return !deny?.(a);
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'shpa-k8s-'));
  kc = new KubeConfig();
  kc.loadFromFile(await writeKubeconfig(server, join(dir, 'kubeconfig')));
  custom = kc.makeApiClient(CustomObjectsApi);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
});

afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function call(method: string, path: string, opts: { body?: unknown; contentType?: string; accept?: string } = {}) {
  return new Promise<{ status: number; body: Obj; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${server.token}` };
    if (opts.contentType) headers['content-type'] = opts.contentType;
    if (opts.accept) headers.accept = opts.accept;
    const req = request(`${server.url}${path}`, { method, ca: server.caPem, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Obj, headers: res.headers }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(JSON.stringify(opts.body));
    req.end();
  });
}

async function failure(p: Promise<unknown>): Promise<{ code: number; body: Obj }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiException);
  const { code, body } = e as ApiException<unknown>;
  return { code, body: (typeof body === 'string' ? JSON.parse(body) : body) as Obj };
}

describe('discovery of CRDs', () => {
  it('lists the custom resources in legacy and aggregated discovery', async () => {
    const legacy = (await call('GET', '/apis/shpa.dev/v1')).body;
    expect(legacy.resources).toEqual([
      expect.objectContaining({ name: 'cloudwatchmetrics', singularName: 'cloudwatchmetric', namespaced: true, kind: 'CloudWatchMetric', shortNames: ['cwm'] }),
      expect.objectContaining({ name: 'serverlesshorizontalpodautoscalers', singularName: 'serverlesshorizontalpodautoscaler', kind: 'ServerlessHorizontalPodAutoscaler', shortNames: ['shpa'] }),
      { name: 'serverlesshorizontalpodautoscalers/status', singularName: '', namespaced: true, kind: 'ServerlessHorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'] },
    ]);
    expect(legacy.resources[1].verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
    const aggregated = await call('GET', '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(aggregated.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const group = aggregated.body.items.find((g: Obj) => g.metadata.name === 'shpa.dev');
    expect(group.versions[0].resources.find((r: Obj) => r.resource === 'serverlesshorizontalpodautoscalers')).toMatchObject({
      responseKind: { group: 'shpa.dev', version: 'v1', kind: 'ServerlessHorizontalPodAutoscaler' },
      scope: 'Namespaced',
      shortNames: ['shpa'],
      subresources: [{ subresource: 'status', verbs: ['get', 'patch', 'update'] }],
    });
    const coreGroup = (await call('GET', '/api', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body.items[0];
    expect(coreGroup.versions[0].resources.map((r: Obj) => r.resource)).toEqual(expect.arrayContaining(['pods', 'events', 'namespaces', 'replicationcontrollers']));
  });

  it('refuses to start with an invalid CRD, naming it and the problem', async () => {
    const crd = structuredClone(loadCrds()[0]) as Obj;
    crd.spec.versions[0].storage = false;
    crd.spec.scope = 'Everywhere';
    await expect(startK8sApiServer({ crds: [crd] })).rejects.toThrow(
      'crds[0] (serverlesshorizontalpodautoscalers.shpa.dev): CustomResourceDefinition.apiextensions.k8s.io "serverlesshorizontalpodautoscalers.shpa.dev" is invalid: [spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced", spec.versions: Invalid value:',
    );
  });

  it('serves OpenAPI v3 with the fieldValidation parameter kubectl looks for', async () => {
    const index = (await call('GET', '/openapi/v3')).body;
    const url: string = index.paths['apis/shpa.dev/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/shpa\.dev\/v1\?hash=[0-9A-F]{128}$/);
    const doc = (await call('GET', url)).body;
    const patch = doc.paths['/apis/shpa.dev/v1/namespaces/{namespace}/serverlesshorizontalpodautoscalers/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'shpa.dev', version: 'v1', kind: 'ServerlessHorizontalPodAutoscaler' });
    expect(patch.parameters.map((p: Obj) => p.name)).toContain('fieldValidation');
    expect(doc.components.schemas['dev.shpa.v1.ServerlessHorizontalPodAutoscaler'].properties.spec.properties.maxReplicas.type).toBe('integer');
  });
});

describe('custom resources through CustomObjectsApi', () => {
  it('creates with the metadata the apiserver sets, and without status', async () => {
    const created = (await custom.createNamespacedCustomObject({ ...G, namespace: 'default', body: autoscaler('a', { status: { desiredReplicas: 9 } }, { team: 'x' }) })) as Obj;
    expect(created.metadata).toMatchObject({ name: 'a', namespace: 'default', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z', uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(created.status).toBeUndefined();
    const exists = await failure(custom.createNamespacedCustomObject({ ...G, namespace: 'default', body: autoscaler('a') }));
    expect(exists).toMatchObject({ code: 409, body: { reason: 'AlreadyExists', message: 'serverlesshorizontalpodautoscalers.shpa.dev "a" already exists', details: { name: 'a', group: 'shpa.dev', kind: 'serverlesshorizontalpodautoscalers' } } });
    const missing = await failure(custom.getNamespacedCustomObject({ ...G, namespace: 'default', name: 'nope' }));
    expect(missing).toMatchObject({ code: 404, body: { reason: 'NotFound', message: 'serverlesshorizontalpodautoscalers.shpa.dev "nope" not found' } });
  });

  it('rejects an invalid object with the evaluator’s 422', async () => {
    const bad = autoscaler('bad');
    bad.spec.maxReplicas = 0;
    const { code, body } = await failure(custom.createNamespacedCustomObject({ ...G, namespace: 'default', body: bad }));
    const crd = loadCrds()[0];
    // what the evaluator says of the object the server prepared (namespace, uid... do not change its errors)
    const expected = invalidStatus('ServerlessHorizontalPodAutoscaler', 'shpa.dev', 'bad', admitCustomResource(crd, 'v1', { ...bad, metadata: { name: 'bad', namespace: 'default' } }).errors);
    expect(code).toBe(422);
    expect(body).toEqual(expected);
    expect(body.message).toMatch(/^ServerlessHorizontalPodAutoscaler\.shpa\.dev "bad" is invalid: .*spec\.maxReplicas: Invalid value: 0/);
  });

  it('lists with label and field selectors, and pages with limit/continue', async () => {
    for (const [ns, name] of [['default', 'b'], ['other', 'c']]) await custom.createNamespacedCustomObject({ ...G, namespace: ns, body: autoscaler(name, {}, { team: 'y' }) });
    const byLabel = (await custom.listNamespacedCustomObject({ ...G, namespace: 'default', labelSelector: 'team=x' })) as Obj;
    expect(byLabel.items.map((o: Obj) => o.metadata.name)).toEqual(['a']);
    expect(byLabel).toMatchObject({ kind: 'ServerlessHorizontalPodAutoscalerList', apiVersion: 'shpa.dev/v1' });
    const byField = (await custom.listClusterCustomObject({ ...G, fieldSelector: 'metadata.namespace=other' })) as Obj;
    expect(byField.items.map((o: Obj) => o.metadata.name)).toEqual(['c']);
    const page = (await custom.listClusterCustomObject({ ...G, limit: 2 })) as Obj;
    expect(page.items.map((o: Obj) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['default/a', 'default/b']);
    expect(page.metadata.remainingItemCount).toBe(1);
    const rest = (await custom.listClusterCustomObject({ ...G, limit: 2, _continue: page.metadata.continue })) as Obj;
    expect(rest.items.map((o: Obj) => o.metadata.name)).toEqual(['c']);
    expect(await failure(custom.listClusterCustomObject({ ...G, fieldSelector: 'spec.minReplicas=2' }))).toMatchObject({ code: 400, body: { message: 'field label not supported: spec.minReplicas' } });
  });

  it('writes status only through /status, and bumps generation on spec changes only', async () => {
    const status = (await custom.patchNamespacedCustomObjectStatus({ ...G, namespace: 'default', name: 'a', body: { status: { currentReplicas: 3, desiredReplicas: 4 }, spec: { maxReplicas: 99 } } }, merge)) as Obj;
    expect(status.status).toEqual({ currentReplicas: 3, desiredReplicas: 4 });
    expect(status.spec.maxReplicas).toBe(10);
    expect(status.metadata.generation).toBe(1);
    // client-node's default patch type is a JSON patch
    const main = (await custom.patchNamespacedCustomObject({ ...G, namespace: 'default', name: 'a', body: [{ op: 'replace', path: '/spec/maxReplicas', value: 12 }, { op: 'replace', path: '/status/desiredReplicas', value: 1 }] })) as Obj;
    expect(main.spec.maxReplicas).toBe(12);
    expect(main.status.desiredReplicas).toBe(4);
    expect(main.metadata.generation).toBe(2);
    expect(Number(main.metadata.resourceVersion)).toBeGreaterThan(Number(status.metadata.resourceVersion));
    const labelled = (await custom.patchNamespacedCustomObject({ ...G, namespace: 'default', name: 'a', body: { metadata: { labels: { team: 'z' } } } }, merge)) as Obj;
    expect(labelled.metadata.generation).toBe(2);
    const again = (await custom.patchNamespacedCustomObject({ ...G, namespace: 'default', name: 'a', body: { metadata: { labels: { team: 'z' } } } }, merge)) as Obj;
    expect(again.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion); // a no-op writes nothing
  });

  it('answers 409 to a stale resourceVersion and 422 to an update without one', async () => {
    const current = (await custom.getNamespacedCustomObject({ ...G, namespace: 'default', name: 'b' })) as Obj;
    await custom.replaceNamespacedCustomObject({ ...G, namespace: 'default', name: 'b', body: { ...current, spec: { ...current.spec, minReplicas: 3 } } });
    const stale = await failure(custom.replaceNamespacedCustomObject({ ...G, namespace: 'default', name: 'b', body: current }));
    expect(stale).toMatchObject({
      code: 409,
      body: { reason: 'Conflict', message: 'Operation cannot be fulfilled on serverlesshorizontalpodautoscalers.shpa.dev "b": the object has been modified; please apply your changes to the latest version and try again' },
    });
    const stalePatch = await failure(custom.patchNamespacedCustomObjectStatus({ ...G, namespace: 'default', name: 'b', body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status: { desiredReplicas: 1 } } }, merge));
    expect(stalePatch.code).toBe(409);
    const { resourceVersion: _rv, ...meta } = current.metadata;
    const unconditional = await failure(custom.replaceNamespacedCustomObject({ ...G, namespace: 'default', name: 'b', body: { ...current, metadata: meta } }));
    expect(unconditional).toMatchObject({ code: 422, body: { message: 'ServerlessHorizontalPodAutoscaler.shpa.dev "b" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update' } });
  });

  it('reports unknown fields as fieldValidation asks: a warning by default, 400 or 422 when Strict', async () => {
    const warn = await call('POST', PATH, { contentType: 'application/json', body: autoscaler('d', { spec: { ...autoscaler('d').spec, color: 'red' } }) });
    expect(warn.status).toBe(201);
    expect(warn.headers.warning).toBe('299 - "unknown field \\"spec.color\\""');
    expect(warn.body.spec.color).toBeUndefined();
    const strict = await call('POST', `${PATH}?fieldValidation=Strict`, { contentType: 'application/json', body: autoscaler('e', { spec: { ...autoscaler('e').spec, color: 'red' } }) });
    expect(strict.body).toMatchObject({
      code: 400,
      message: 'ServerlessHorizontalPodAutoscaler in version "v1" cannot be handled as a ServerlessHorizontalPodAutoscaler: strict decoding error: unknown field "spec.color"',
    });
    const patch = await call('PATCH', `${PATH}/d?fieldValidation=Strict`, { contentType: 'application/merge-patch+json', body: { spec: { size: 1 } } });
    expect(patch.body).toMatchObject({ code: 422, reason: 'Invalid', message: expect.stringMatching(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.size"$/) });
    expect((await call('PATCH', `${PATH}/d`, { contentType: 'application/strategic-merge-patch+json', body: {} })).body).toMatchObject({ code: 415 });
  });

  it('creates and updates with server-side apply', async () => {
    const yaml = 'apiVersion: shpa.dev/v1\nkind: ServerlessHorizontalPodAutoscaler\nmetadata:\n  name: applied\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 4\n';
    const path = `${PATH}/applied?fieldManager=test`;
    const created = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { method: 'PATCH', ca: server.caPem, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/apply-patch+yaml' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(yaml);
    });
    expect(created).toBe(201);
    const updated = await call('PATCH', path, { contentType: 'application/apply-patch+yaml', body: { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', metadata: { name: 'applied' }, spec: { maxReplicas: 6 } } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toMatchObject({ maxReplicas: 6, scaleTargetRef: { name: 'web' } });
  });

  it('streams changes to client-node’s Watch from a list’s resourceVersion', async () => {
    const list = (await custom.listNamespacedCustomObject({ ...G, namespace: 'default' })) as Obj;
    const events: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const watch = new Watch(kc);
    const controller = await watch.watch(PATH, { resourceVersion: list.metadata.resourceVersion, labelSelector: 'team=y' }, (type, o: Obj) => {
      events.push(`${type} ${o.metadata.name} ${o.status?.desiredReplicas ?? '-'}`);
      if (type === 'DELETED') done();
    }, () => undefined);
    await custom.patchNamespacedCustomObjectStatus({ ...G, namespace: 'default', name: 'b', body: { status: { desiredReplicas: 5 } } }, merge);
    await custom.patchNamespacedCustomObjectStatus({ ...G, namespace: 'default', name: 'a', body: { status: { desiredReplicas: 6 } } }, merge); // team=z: filtered out
    const deleted = (await custom.deleteNamespacedCustomObject({ ...G, namespace: 'default', name: 'b' })) as Obj;
    await finished;
    controller.abort();
    expect(events).toEqual(['MODIFIED b 5', 'DELETED b 5']);
    expect(deleted).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'b', group: 'shpa.dev', kind: 'serverlesshorizontalpodautoscalers' } });
  });

  it('converts to a Table when asked, with the printer columns of the CRD', async () => {
    const r = await call('GET', `${PATH}?limit=1`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' });
    expect(r.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.body.columnDefinitions.map((c: Obj) => c.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    expect(r.body.rows).toEqual([{ cells: ['a', null, null, 2, 12, 3, '0s'], object: expect.objectContaining({ kind: 'PartialObjectMetadata', metadata: expect.objectContaining({ name: 'a' }) }) }]);
    expect(r.body.metadata.continue).toBeDefined();
  });

  it('deletes a collection, and with it a CRD its resources', async () => {
    const gone = await call('DELETE', `/apis/shpa.dev/v1/namespaces/other/serverlesshorizontalpodautoscalers?labelSelector=team%3Dy`);
    expect(gone.body.items.map((o: Obj) => o.metadata.name)).toEqual(['c']);
    expect(seen.at(-1)).toMatchObject({ verb: 'deletecollection', resource: 'serverlesshorizontalpodautoscalers', namespace: 'other' });
    await call('POST', '/apis/shpa.dev/v1/namespaces/default/cloudwatchmetrics', { contentType: 'application/json', body: { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: 'q' }, spec: {} } });
    expect((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cloudwatchmetrics.shpa.dev')).status).toBe(200);
    expect((await call('GET', '/apis/shpa.dev/v1/namespaces/default/cloudwatchmetrics')).status).toBe(404);
    expect((await call('GET', '/apis/shpa.dev/v1')).body.resources.map((r: Obj) => r.name)).not.toContain('cloudwatchmetrics');
    expect(server.store.count('shpa.dev/cloudwatchmetrics')).toBe(0);
  });
});

describe('events', () => {
  const event = (name: string, involved: Obj, reason = 'SuccessfulRescale') => ({
    metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', namespace: 'default', ...involved },
    reason,
    message: 'New size: 4; reason: cpu resource utilization (percentage of request) above target',
    type: 'Normal',
    source: { component: 'serverless-hpa' },
    firstTimestamp: new Date(clock.now().getTime()),
    lastTimestamp: new Date(clock.now().getTime()),
    count: 1,
  });

  it('creates, patches as the recorder does, and selects by involved object', async () => {
    const a = (await custom.getNamespacedCustomObject({ ...G, namespace: 'default', name: 'a' })) as Obj;
    await core.createNamespacedEvent({ namespace: 'default', body: event('a.1880aa', { name: 'a', uid: a.metadata.uid }) });
    await core.createNamespacedEvent({ namespace: 'default', body: event('d.1880ab', { name: 'd', uid: 'other' }, 'FailedGetScale') });
    clock.advance(30);
    const patched = await core.patchNamespacedEvent(
      { name: 'a.1880aa', namespace: 'default', body: { count: 2, lastTimestamp: clock.now().toISOString().replace('.000', '') } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.count).toBe(2);
    const selector = `involvedObject.name=a,involvedObject.namespace=default,involvedObject.kind=ServerlessHorizontalPodAutoscaler,involvedObject.uid=${a.metadata.uid}`;
    const list = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: selector, limit: 500 });
    expect(list.items.map((e) => [e.metadata?.name, e.count])).toEqual([['a.1880aa', 2]]);
    expect((await core.listEventForAllNamespaces({ fieldSelector: 'reason=FailedGetScale,type=Normal' })).items.map((e) => e.metadata?.name)).toEqual(['d.1880ab']);
    expect((await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'source=serverless-hpa,reason!=FailedGetScale' })).items).toHaveLength(1);
    const wrongNs = await failure(core.createNamespacedEvent({ namespace: 'default', body: event('x.1', { name: 'x', namespace: 'other' }) }));
    expect(wrongNs).toMatchObject({ code: 422, body: { message: 'Event "x.1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace' } });
    const table = await call('GET', '/api/v1/namespaces/default/events', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.body.rows[0].cells.slice(0, 4)).toEqual(['0s', 'Normal', 'SuccessfulRescale', 'serverlesshorizontalpodautoscaler/a']);
  });
});

describe('workloads', () => {
  it('serves Deployments with status from the pods, and shares their resourceVersion with /scale', async () => {
    clock.advance(10);
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(d.spec?.replicas).toBe(2);
    expect(d.spec?.selector.matchLabels).toEqual({ app: 'web' });
    expect(d.status).toMatchObject({ replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 });
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    expect(scale.metadata?.resourceVersion).toBe(d.metadata?.resourceVersion);
    const rs = await apps.listNamespacedReplicaSet({ namespace: 'default' });
    expect(rs.items.map((r) => r.metadata?.ownerReferences?.[0].name)).toEqual(['web']);
  });

  it('answers 409 to a /scale write carrying a resourceVersion from before a status change', async () => {
    const before = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 3 } } }, merge);
    clock.advance(10); // the new pod becomes ready: the Deployment's status changes
    const after = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(after.status?.readyReplicas).toBe(3);
    const stale = await call('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', {
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 4 }, metadata: { resourceVersion: before.metadata?.resourceVersion } },
    });
    expect(stale.body).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(model.replicasOf('default', 'Deployment', 'web')).toBe(3);
  });

  it('watches pods and deployments as the model moves, and lists namespaces', async () => {
    const pods = await core.listNamespacedPod({ namespace: 'default' });
    const events: string[] = [];
    const watch = new Watch(kc);
    const controller = await watch.watch('/api/v1/namespaces/default/pods', { resourceVersion: pods.metadata?.resourceVersion }, (type, o: Obj) => {
      const ready = o.status.conditions.find((c: Obj) => c.type === 'Ready').status;
      events.push(`${type} ${o.status.phase} ${ready}`);
    }, () => undefined);
    await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 4 } } }, merge);
    clock.advance(10);
    await expect.poll(() => events, { timeout: 3_000 }).toEqual(['ADDED Pending False', 'MODIFIED Running True']);
    controller.abort();
    expect(seen.some((a) => a.verb === 'watch' && a.resource === 'pods')).toBe(true);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system', 'other']);
  });

  it('ends a watch at timeoutSeconds, and answers a compacted resourceVersion with an ERROR event', async () => {
    const text = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const req = request(`${server.url}${path}`, { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
          let t = '';
          res.on('data', (c: Buffer) => (t += c.toString()));
          res.on('end', () => resolve(t));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await text(`/api/v1/namespaces/default/events?watch=true&timeoutSeconds=1&resourceVersion=${server.store.resourceVersion}`)).toBe('');
    const first = server.store.resourceVersion;
    for (let i = 0; i <= 10_000; i++) server.store.put('/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'flood', namespace: 'flood' } });
    const lines = (await text(`/api/v1/events?watch=true&resourceVersion=${first}`)).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as Obj)).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired', message: expect.stringMatching(new RegExp(`^too old resource version: ${first} \\(\\d+\\)$`)) }) },
    ]);
  });

  it('keeps RBAC on every route: a denied watch is 403', async () => {
    deny = (a) => a.verb === 'watch';
    try {
      const r = await call('GET', '/api/v1/namespaces/default/events?watch=true');
      expect(r.body).toMatchObject({ code: 403, message: expect.stringContaining('cannot watch resource "events" in API group "" in the namespace "default"') });
    } finally {
      deny = undefined;
    }
  });
});
