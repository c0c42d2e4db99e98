// listScales: one paginated LIST of a namespace's Deployments, StatefulSets or ReplicaSets gives
// what GET /scale gives for each object, with the real @kubernetes/client-node over HTTPS
// against the local API server (which makes /scale from the object, as kube-apiserver does).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../lib/cluster/index.js';
import type { K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import type { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import type { ListableScaleKind } from '../../lib/sync/ports/cluster-access.js';
import { accessFor, startCluster, type VirtualClock } from './fixture.js';

let server: K8sApiServer;
let model: WorkloadModel;
let clock: VirtualClock;
let access: KubernetesCluster;

const kinds: ListableScaleKind[] = ['Deployment', 'StatefulSet', 'ReplicaSet'];
const resources: Record<ListableScaleKind, string> = { Deployment: 'deployments', StatefulSet: 'statefulsets', ReplicaSet: 'replicasets' };
const listPath = (ns: string, kind: ListableScaleKind) => `/apis/apps/v1/namespaces/${ns}/${resources[kind]}`;
const apps = (kind: string, name: string, replicas: number, extra: Record<string, unknown> = {}) => ({ kind, apiVersion: 'apps/v1', namespace: 'shop', name, replicas, ...extra });

beforeEach(async () => {
  ({ server, model, clock } = await startCluster());
  // set-based selectors of every operator, in a namespace of their own
  model.addWorkload({
    ...apps('Deployment', 'cart', 3),
    selector: { app: 'cart' },
    matchExpressions: [
      { key: 'track', operator: 'In', values: ['stable', 'canary'] },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
    podLabels: { track: 'stable' },
  });
  model.addWorkload({ ...apps('Deployment', 'search', 0), selector: { app: 'search' } });
  model.addWorkload({
    ...apps('StatefulSet', 'cache', 2),
    selector: { app: 'cache' },
    matchExpressions: [
      { key: 'env', operator: 'NotIn', values: ['prod', 'dev'] },
      { key: 'team', operator: 'Exists' },
    ],
    podLabels: { team: 'core' },
  });
  model.addWorkload({ ...apps('ReplicaSet', 'batch', 1), selector: {}, matchExpressions: [{ key: 'job', operator: 'In', values: ['nightly'] }], podLabels: { job: 'nightly' } });
  // kept from before selector validation was tightened: its GET /scale is a 400
  model.addWorkload({ ...apps('Deployment', 'relic', 1), selector: { app: 'relic' }, matchExpressions: [{ key: 'app', operator: 'In', values: [] }] });
  clock.advance(20);
  access = accessFor(server, clock);
});
afterEach(async () => {
  await access.close();
  await server.stop();
});

/** The names of the objects of a kind the API server holds in a namespace. */
function objectNames(ns: string, kind: ListableScaleKind): string[] {
  return model
    .workloadObjects(ns)
    .filter((o) => o.kind === kind)
    .map((o) => (o.metadata as { name: string }).name)
    .sort();
}

describe('listScales', () => {
  it.each(kinds)('%s: one LIST per namespace gives, for every object, exactly what its GET /scale gives', async (kind) => {
    for (const ns of ['default', 'shop']) {
      const listed = await access.listScales(ns, kind);
      expect(server.count('GET', listPath(ns, kind))).toBe(1);
      // relic's selector (and so its ReplicaSet's) does not convert
      const names = objectNames(ns, kind).filter((n) => !n.startsWith('relic'));
      expect(names.length).toBeGreaterThan(0);
      expect([...listed.keys()].sort()).toEqual(names);
      for (const name of names) expect(listed.get(name), `${ns}/${name}`).toEqual(await access.getScale(ns, { kind, name, apiVersion: 'apps/v1' }));
    }
  });

  it('reads replicas, status, set-based selectors and the resourceVersion of each kind', async () => {
    const rv = (resource: string, name: string) => server.store.get(`apps/${resource}`, 'shop', name)?.metadata.resourceVersion;
    const deployments = await access.listScales('shop', 'Deployment');
    expect(deployments.get('cart')).toEqual({ specReplicas: 3, statusReplicas: 3, selector: 'app=cart,!legacy,track in (canary,stable)', resourceVersion: rv('deployments', 'cart') });
    expect(deployments.get('search')).toEqual({ specReplicas: 0, statusReplicas: 0, selector: 'app=search', resourceVersion: rv('deployments', 'search') });
    expect((await access.listScales('shop', 'StatefulSet')).get('cache')).toEqual({
      specReplicas: 2,
      statusReplicas: 2,
      selector: 'app=cache,env notin (dev,prod),team',
      resourceVersion: rv('statefulsets', 'cache'),
    });
    const replicaSets = await access.listScales('shop', 'ReplicaSet');
    expect(replicaSets.get('batch')).toMatchObject({ specReplicas: 1, statusReplicas: 1, selector: 'job in (nightly)' });
    // the ReplicaSet a Deployment owns: its selector with the pod-template-hash the controller adds
    const owned = [...replicaSets].find(([name]) => name.startsWith('cart-'));
    expect(owned?.[1].selector).toMatch(/^app=cart,!legacy,pod-template-hash=[a-z0-9]{10},track in \(canary,stable\)$/);
  });

  it('leaves out an object whose selector does not convert: its GET /scale says why, as upstream', async () => {
    const listed = await access.listScales('shop', 'Deployment');
    expect(listed.has('relic')).toBe(false);
    expect(listed.has('cart')).toBe(true);
    const err = await access.getScale('shop', { kind: 'Deployment', name: 'relic', apiVersion: 'apps/v1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 400 });
    expect((err as Error).message).toContain("matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
  });

  it('pages through a namespace with limit and continue, and gets the same scales', async () => {
    const all = await access.listScales('shop', 'Deployment');
    const paged = accessFor(server, clock, { scaleListPageSize: 1 });
    server.requestLog.length = 0;
    expect(await paged.listScales('shop', 'Deployment')).toEqual(all);
    const pages = server.requestLog.filter((r) => r.path === listPath('shop', 'Deployment'));
    expect(pages).toHaveLength(3);
    expect(pages.map((r) => r.query.limit)).toEqual(['1', '1', '1']);
    expect(pages[0].query.continue).toBeUndefined();
    expect(pages.slice(1).every((r) => r.query.continue)).toBe(true);
    await paged.close();
  });

  it('gives the resourceVersion /scale shares with the object: a change since is a 409 on the PATCH, as after GET /scale', async () => {
    const ref = { kind: 'Deployment', name: 'cart', apiVersion: 'apps/v1' };
    const read = (await access.listScales('shop', 'Deployment')).get('cart')!;
    model.setReplicas('shop', model.typeOf('apps', 'Deployment')!, 'cart', 6); // kubectl scale
    await expect(access.updateScale('shop', ref, 4, read.resourceVersion)).rejects.toMatchObject({ statusCode: 409 });
    expect(model.replicasOf('shop', 'Deployment', 'cart')).toBe(6);
    const again = (await access.listScales('shop', 'Deployment')).get('cart')!;
    expect(again).toMatchObject({ specReplicas: 6 });
    await access.updateScale('shop', ref, 4, again.resourceVersion);
    expect(model.replicasOf('shop', 'Deployment', 'cart')).toBe(4);
  });

  it('retries a 503 as every call does, and names a malformed answer', async () => {
    server.faults.add({ path: listPath('shop', 'StatefulSet'), status: 503, times: 1 });
    expect((await access.listScales('shop', 'StatefulSet')).has('cache')).toBe(true);
    expect(server.count('GET', listPath('shop', 'StatefulSet'))).toBe(2);
    server.faults.add({ path: listPath('shop', 'Deployment'), status: 200 });
    await expect(access.listScales('shop', 'Deployment')).rejects.toThrow(
      'list deployments (apps) in namespace "shop": unexpected answer: DeploymentList: kind is not "DeploymentList" (got "Status")',
    );
  });

  it('refuses a kind whose list does not carry its scale, before any call', async () => {
    await expect(access.listScales('shop', 'DaemonSet' as ListableScaleKind)).rejects.toThrow('listScales: kind must be one of Deployment, StatefulSet, ReplicaSet, got "DaemonSet"');
    expect(server.requestLog).toEqual([]);
  });

  it('names the missing RBAC permission: list on deployments in group apps; GET /scale still works', async () => {
    const denied = await startCluster({ authorize: (a) => !(a.verb === 'list' && a.apiGroup === 'apps' && a.resource === 'deployments') });
    const a = accessFor(denied.server, denied.clock);
    const err = await a.listScales('default', 'Deployment').catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 403 });
    expect((err as Error).message).toContain('deployments.apps is forbidden: User');
    expect((err as Error).message).toContain('missing RBAC permission: verb "list" on resource "deployments" in API group "apps" in namespace "default"');
    expect(await a.getScale('default', { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' })).toMatchObject({ specReplicas: 2 });
    await a.close();
    await denied.server.stop();
  });
});
