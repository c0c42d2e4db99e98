// The RBAC manifests (infra/rbac.cjs, infra/rbac.yaml) and the access-entry template for
// clusters outside the stack: valid, complete, exactly what lib/cluster needs, and no wider
// than the namespace allowlist. The local API server enforces the manifests as the API
// server's RBAC does (a ClusterRoleBinding everywhere, a RoleBinding in its namespace).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments, parseDocument, type CollectionTag, type ScalarTag } from 'yaml';
import { requestAttributes, rulesAuthorizer, type PolicyRule, type RequestAttributes } from '../../lib/local/kubernetes/rbac.js';
import type { K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { accessFor, startCluster } from './fixture.js';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[];
  aggregationRule?: unknown;
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string }[];
}

interface RbacOptions {
  namespaces?: string[];
  scaleResources?: string[];
}

const root = join(import.meta.dirname, '..', '..');
const rbac = createRequire(import.meta.url)('../../infra/rbac.cjs') as {
  GROUP: string;
  rbacManifests(options?: RbacOptions): Manifest[];
  rbacYaml(options?: RbacOptions): string;
  parseArgs(argv: string[]): RbacOptions;
};

/** What the API server's RBAC allows the group: a ClusterRoleBinding grants its role everywhere, a RoleBinding only in its namespace. */
function groupAuthorizer(docs: Manifest[]): (a: RequestAttributes) => boolean {
  const roles = new Map(docs.filter((d) => d.kind === 'ClusterRole').map((d) => [d.metadata.name, d.rules ?? []]));
  const grants = docs
    .filter((d) => (d.kind === 'ClusterRoleBinding' || d.kind === 'RoleBinding') && d.subjects?.some((s) => s.kind === 'Group' && s.name === rbac.GROUP))
    .map((b) => ({ namespace: b.kind === 'RoleBinding' ? b.metadata.namespace : undefined, allows: rulesAuthorizer(roles.get(b.roleRef!.name) ?? []) }));
  return (a) => grants.some((g) => (g.namespace === undefined || g.namespace === a.namespace) && g.allows(a));
}

function parseYaml(text: string): Manifest[] {
  const docs = parseAllDocuments(text);
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => d.toJS() as Manifest);
}

const attributes = (method: string, path: string, verb?: string): RequestAttributes => ({ ...requestAttributes(method, path), ...(verb ? { verb } : {}) });

let server: K8sApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Every call lib/cluster makes, in namespace ns, against a local API server enforcing authorize. */
async function everyCall(authorize: (a: RequestAttributes) => boolean, ns = 'default') {
  const started = await startCluster({ authorize });
  server = started.server;
  started.model.setPodsMetric(ns, 'rps', 1);
  started.model.setObjectMetric(ns, { kind: 'Deployment', name: 'web' }, 'depth', 1);
  started.model.setExternalMetric(ns, 'queue', 1);
  started.clock.advance(20);
  const a = accessFor(started.server, started.clock);
  const targets: [string, string, string][] =
    ns === 'default'
      ? [['Deployment', 'web', 'apps/v1'], ['StatefulSet', 'db', 'apps/v1'], ['ReplicaSet', 'rs', 'apps/v1'], ['ReplicationController', 'legacy', 'v1']]
      : [['Deployment', 'api', 'apps/v1']];
  const calls = {
    scale: async () => {
      for (const [kind, name, apiVersion] of targets) {
        await a.getScale(ns, { kind, name, apiVersion });
        await a.updateScale(ns, { kind, name, apiVersion }, 4);
      }
    },
    scaleLists: async () => {
      for (const kind of ['Deployment', 'StatefulSet', 'ReplicaSet'] as const) await a.listScales(ns, kind);
    },
    pods: () => a.listPods(ns),
    podMetrics: () => a.listPodMetrics(ns),
    podsMetric: () => a.getPodsMetric(ns, { name: 'rps' }, 'app=web'),
    objectMetric: () => a.getObjectMetric(ns, { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, { name: 'depth' }),
    externalMetric: () => a.getExternalMetric(ns, { name: 'queue' }),
    customResource: () => a.getScale(ns, { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' }),
    // a shadowed HPA that does not exist: a 404 is an answer (undefined), a 403 an error
    liveHpa: () => a.getLiveHpa(ns, 'web'),
  };
  const results: Record<string, string> = {};
  for (const [k, f] of Object.entries(calls)) {
    results[k] = await f().then(
      () => 'ok',
      (e: Error) => e.message,
    );
  }
  await a.close();
  return results;
}

const ALL_OK = { scale: 'ok', scaleLists: 'ok', pods: 'ok', podMetrics: 'ok', podsMetric: 'ok', objectMetric: 'ok', externalMetric: 'ok', liveHpa: 'ok' };

describe('infra/rbac.cjs', () => {
  it('wrote infra/rbac.yaml: the manifests for every namespace', () => {
    expect(readFileSync(join(root, 'infra/rbac.yaml'), 'utf8')).toBe(rbac.rbacYaml());
    expect(parseYaml(rbac.rbacYaml())).toEqual(rbac.rbacManifests());
  });

  it('grants exactly what the worker does, to the group the access entries map, with nothing aggregated', () => {
    const docs = rbac.rbacManifests();
    expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    const [role, binding] = docs;
    expect(role.aggregationRule).toBeUndefined();
    expect(Object.keys(role.metadata.labels ?? {})).toEqual(['app.kubernetes.io/name']);
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'shpa:autoscaler' }]);
    // every rule, so that a widening fails here
    const grants = role.rules!.flatMap((r) => r.apiGroups!.flatMap((g) => r.resources!.map((res) => `${g}/${res}: ${r.verbs.join(',')}`))).sort();
    expect(grants).toEqual(
      [
        'apps/deployments/scale: get,patch',
        'apps/statefulsets/scale: get,patch',
        'apps/replicasets/scale: get,patch',
        '/replicationcontrollers/scale: get,patch',
        'apps/deployments: list',
        'apps/statefulsets: list',
        'apps/replicasets: list',
        '/pods: list',
        'metrics.k8s.io/pods: list',
        'custom.metrics.k8s.io/*: get',
        'external.metrics.k8s.io/*: list',
        'shpa.dev/serverlesshorizontalpodautoscalers: get,list',
        'shpa.dev/cloudwatchmetrics: get,list',
        'shpa.dev/prometheusmetrics: get,list',
        'shpa.dev/sqsqueuemetrics: get,list',
        'shpa.dev/serverlesshorizontalpodautoscalers/status: patch',
        '/events: create,patch',
        'autoscaling/horizontalpodautoscalers: get',
      ].sort(),
    );
    for (const r of role.rules!) expect(r.resourceNames ?? [], 'no resourceNames').toEqual([]);
  });

  it('allows every call lib/cluster makes in every namespace, and a custom kind only once --scale names it', async () => {
    const results = await everyCall(groupAuthorizer(rbac.rbacManifests()));
    expect(results).toMatchObject(ALL_OK);
    expect(results.customResource).toContain('missing RBAC permission: verb "get" on resource "workers/scale" in API group "example.com"');
    const withWorkers = await everyCall(groupAuthorizer(rbac.rbacManifests({ scaleResources: ['example.com/workers'] })));
    expect(withWorkers).toMatchObject({ ...ALL_OK, customResource: 'ok' });
  });

  it('with a namespace allowlist, binds the role in those namespaces only: elsewhere the API server refuses', async () => {
    const docs = rbac.rbacManifests({ namespaces: ['default', 'web'] });
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace ?? ''}`)).toEqual(['ClusterRole ', 'RoleBinding default', 'RoleBinding web']);
    const authorize = groupAuthorizer(docs);
    expect(await everyCall(authorize, 'default')).toMatchObject(ALL_OK);
    const outside = await everyCall(authorize, 'other');
    expect(outside.scale).toContain('deployments.apps "api" is forbidden: User');
    expect(outside.scale).toContain('in the namespace "other"');
    expect(outside.pods).toContain('missing RBAC permission: verb "list" on resource "pods" in API group "" in namespace "other"');
    expect(outside.scaleLists).toContain('missing RBAC permission: verb "list" on resource "deployments" in API group "apps" in namespace "other"');
    // what the issue saw: a spec naming kube-system/coredns
    expect(authorize(attributes('PATCH', '/apis/apps/v1/namespaces/kube-system/deployments/coredns/scale'))).toBe(false);
    expect(authorize(attributes('PATCH', '/apis/apps/v1/namespaces/web/deployments/api/scale'))).toBe(true);
  });

  it('allows the calls on our own objects and events in allowed namespaces, and nothing else on them', () => {
    for (const namespaces of [[], ['default']]) {
      const authorize = groupAuthorizer(rbac.rbacManifests({ namespaces }));
      const crs = '/apis/shpa.dev/v1/namespaces/default/serverlesshorizontalpodautoscalers';
      expect(authorize(attributes('GET', crs))).toBe(true);
      // one object, read before acting on it: its spec unchanged since the list
      expect(authorize(attributes('GET', `${crs}/web`))).toBe(true);
      expect(authorize(attributes('PATCH', `${crs}/web/status`))).toBe(true);
      expect(authorize(attributes('POST', '/api/v1/namespaces/default/events'))).toBe(true);
      // not the spec: the function never writes what users declare; it never watches
      expect(authorize(attributes('PATCH', `${crs}/web`))).toBe(false);
      expect(authorize(attributes('DELETE', `${crs}/web`))).toBe(false);
      expect(authorize(attributes('GET', crs, 'watch'))).toBe(false);
      expect(authorize(attributes('PATCH', '/apis/shpa.dev/v1/namespaces/default/cloudwatchmetrics/queue/status'))).toBe(false);
      // workloads are listed for their scales, never read one by one, watched or written but through /scale
      expect(authorize(attributes('GET', '/apis/apps/v1/namespaces/default/deployments'))).toBe(true);
      expect(authorize(attributes('GET', '/apis/apps/v1/namespaces/default/deployments/web'))).toBe(false);
      expect(authorize(attributes('GET', '/apis/apps/v1/namespaces/default/deployments', 'watch'))).toBe(false);
      expect(authorize(attributes('PATCH', '/apis/apps/v1/namespaces/default/deployments/web'))).toBe(false);
      expect(authorize(attributes('GET', '/apis/apps/v1/namespaces/default/daemonsets'))).toBe(false);
      // and no pods' content, secrets or metrics of single pods
      expect(authorize(attributes('GET', '/api/v1/namespaces/default/pods/web-1'))).toBe(false);
      expect(authorize(attributes('GET', '/api/v1/namespaces/default/secrets'))).toBe(false);
      expect(authorize(attributes('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1'))).toBe(false);
    }
    // cluster-wide lists need the ClusterRoleBinding
    expect(groupAuthorizer(rbac.rbacManifests())(attributes('GET', '/apis/shpa.dev/v1/serverlesshorizontalpodautoscalers'))).toBe(true);
    expect(groupAuthorizer(rbac.rbacManifests({ namespaces: ['default'] }))(attributes('GET', '/apis/shpa.dev/v1/serverlesshorizontalpodautoscalers'))).toBe(false);
  });

  it('names the missing permission when a rule is taken away', async () => {
    const docs = rbac.rbacManifests();
    docs[0].rules = docs[0].rules!.filter((r) => !(r.resources?.includes('pods') && r.apiGroups?.includes('')));
    const results = await everyCall(groupAuthorizer(docs));
    expect(results.pods).toContain('pods is forbidden: User');
    expect(results.pods).toContain('missing RBAC permission: verb "list" on resource "pods" in API group "" in namespace "default"');
    expect(results.scale).toBe('ok');
  });

  it('without the list of workloads (RBAC applied before this version), GET /scale still reads every scale', async () => {
    const docs = rbac.rbacManifests();
    docs[0].rules = docs[0].rules!.filter((r) => !r.resources?.includes('deployments'));
    const results = await everyCall(groupAuthorizer(docs));
    expect(results.scaleLists).toContain('missing RBAC permission: verb "list" on resource "deployments" in API group "apps" in namespace "default"');
    expect(results).toMatchObject({ ...ALL_OK, scaleLists: expect.any(String) });
  });

  it('refuses bad input with the argument named', () => {
    expect(() => rbac.rbacManifests({ namespaces: ['Kube_System'] })).toThrow('--namespaces: not a namespace name: "Kube_System"');
    expect(() => rbac.rbacManifests({ namespaces: ['a', 'a'] })).toThrow('listed twice');
    expect(() => rbac.rbacManifests({ scaleResources: ['Workers'] })).toThrow('--scale: expected group/resource');
    expect(rbac.parseArgs(['--namespaces', 'a, b', '--scale=example.com/workers'])).toEqual({ namespaces: ['a', 'b'], scaleResources: ['example.com/workers'] });
    expect(() => rbac.parseArgs(['--namespace', 'a'])).toThrow('unknown argument "--namespace"');
  });

  it('prints the manifests as a command, for kubectl apply -f -', () => {
    const r = spawnSync(process.execPath, [join(root, 'infra/rbac.cjs'), '--namespaces', 'web,jobs'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(parseYaml(r.stdout).map((d) => `${d.kind} ${d.metadata.namespace ?? ''}`)).toEqual(['ClusterRole ', 'RoleBinding web', 'RoleBinding jobs']);
    const bad = spawnSync(process.execPath, [join(root, 'infra/rbac.cjs'), '--namespaces', 'Web'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('infra/rbac.cjs: --namespaces: not a namespace name: "Web"\n');
  });
});

describe('infra/cross-account-cluster-access.yaml', () => {
  // CloudFormation's short-form intrinsics, scalar and sequence forms
  const scalar: ScalarTag[] = ['!Ref', '!GetAtt', '!Sub'].map((tag) => ({ tag, resolve: (v: string) => ({ [tag === '!Ref' ? 'Ref' : `Fn::${tag.slice(1)}`]: v }) }));
  const seq: CollectionTag[] = ['!If', '!Not', '!Equals'].map((tag) => ({ tag, collection: 'seq', resolve: (v) => ({ [`Fn::${tag.slice(1)}`]: v.toJSON() }) }));
  const template = () => {
    const doc = parseDocument(readFileSync(join(root, 'infra/cross-account-cluster-access.yaml'), 'utf8'), { customTags: [...scalar, ...seq] });
    expect(doc.errors).toEqual([]);
    return doc.toJS() as {
      Parameters: Record<string, { Default?: string; AllowedPattern?: string }>;
      Conditions: Record<string, unknown>;
      Resources: Record<string, { Type: string; Condition?: string; Properties: Record<string, unknown> }>;
      Outputs: Record<string, { Condition?: string; Value: unknown }>;
    };
  };

  it('maps the role the worker assumes in another account (or the worker role itself) to shpa:autoscaler', () => {
    const t = template();
    expect(t.Resources.AccessEntry).toMatchObject({
      Type: 'AWS::EKS::AccessEntry',
      Properties: {
        ClusterName: { Ref: 'ClusterName' },
        PrincipalArn: { 'Fn::If': ['CreateAccessRole', { 'Fn::GetAtt': 'AccessRole.Arn' }, { Ref: 'WorkerRoleArn' }] },
        Type: 'STANDARD',
        KubernetesGroups: [{ Ref: 'KubernetesGroup' }],
      },
    });
    expect(t.Parameters.KubernetesGroup.Default).toBe(rbac.GROUP);
    expect(new RegExp(t.Parameters.KubernetesGroup.AllowedPattern!).test('system:masters')).toBe(false);
    expect(t.Conditions.CreateAccessRole).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AccessRoleName' }, ''] }] });
  });

  it('creates that role trusted by the worker role only, allowed to describe this one cluster only', () => {
    const role = template().Resources.AccessRole;
    expect(role.Condition).toBe('CreateAccessRole');
    expect(role.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { AWS: { Ref: 'WorkerRoleArn' } }, Action: 'sts:AssumeRole' }],
    });
    expect(role.Properties.Policies).toEqual([
      {
        PolicyName: 'describe-cluster',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'eks:DescribeCluster', Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:cluster/${ClusterName}' } }],
        },
      },
    ]);
  });
});
