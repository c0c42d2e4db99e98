// infra/rbac.yaml and infra/access-entry.yaml: valid, complete, and exactly
// what lib/cluster needs (the local API server enforces the rules).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments, parseDocument, type ScalarTag } from 'yaml';
import { rulesAuthorizer, type PolicyRule } from '../../lib/local/k8s-rbac.js';
import type { K8sApiServer } from '../../lib/local/k8s-api-server.js';
import { accessFor, startCluster } from './fixture.js';

interface ClusterRole {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string }[];
}

function loadRbac(): ClusterRole[] {
  const docs = parseAllDocuments(readFileSync('infra/rbac.yaml', 'utf8'));
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => d.toJS() as ClusterRole);
}

/** The rules of the bound ClusterRole, aggregated as the controller would. */
function boundRules(docs: ClusterRole[]): PolicyRule[] {
  const binding = docs.find((d) => d.kind === 'ClusterRoleBinding')!;
  const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === binding.roleRef!.name)!;
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  const aggregated = docs.filter(
    (d) => d.kind === 'ClusterRole' && selectors.some((s) => Object.entries(s.matchLabels).every(([k, v]) => d.metadata.labels?.[k] === v)),
  );
  return [...(role.rules ?? []), ...aggregated.flatMap((d) => d.rules ?? [])];
}

let server: K8sApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('infra/rbac.yaml', () => {
  it('binds the aggregated role to the group the access entry maps', () => {
    const docs = loadRbac();
    expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRole', 'ClusterRoleBinding']);
    const binding = docs[2];
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'shpa:autoscaler' }]);
    const rules = boundRules(docs);
    for (const r of rules) expect(r.verbs.every((v) => ['get', 'list', 'patch'].includes(v))).toBe(true);
    expect(rules.find((r) => r.resources?.includes('deployments/scale'))).toMatchObject({ apiGroups: ['apps'], verbs: ['get', 'patch'] });
  });

  async function everyCall(rules: PolicyRule[]) {
    const started = await startCluster({ authorize: rulesAuthorizer(rules) });
    server = started.server;
    started.model.setPodsMetric('default', 'rps', 1);
    started.model.setObjectMetric('default', { kind: 'Deployment', name: 'web' }, 'depth', 1);
    started.model.setExternalMetric('default', 'queue', 1);
    started.clock.advance(20);
    const a = accessFor(started.server, started.clock);
    const calls = {
      scale: async () => {
        for (const [kind, name, apiVersion] of [['Deployment', 'web', 'apps/v1'], ['StatefulSet', 'db', 'apps/v1'], ['ReplicaSet', 'rs', 'apps/v1'], ['ReplicationController', 'legacy', 'v1']]) {
          await a.getScale('default', { kind, name, apiVersion });
          await a.updateScale('default', { kind, name, apiVersion }, 4);
        }
      },
      pods: () => a.listPods('default'),
      podMetrics: () => a.listPodMetrics('default'),
      podsMetric: () => a.getPodsMetric('default', { name: 'rps' }, 'app=web'),
      objectMetric: () => a.getObjectMetric('default', { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, { name: 'depth' }),
      externalMetric: () => a.getExternalMetric('default', { name: 'queue' }),
      customResource: () => a.getScale('default', { kind: 'Worker', name: 'queue', apiVersion: 'example.com/v1' }),
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

  it('allows every call lib/cluster makes, and custom resources only once a role is added for them', async () => {
    const results = await everyCall(boundRules(loadRbac()));
    expect(results).toMatchObject({ scale: 'ok', pods: 'ok', podMetrics: 'ok', podsMetric: 'ok', objectMetric: 'ok', externalMetric: 'ok' });
    expect(results.customResource).toContain('missing RBAC permission: verb "get" on resource "workers/scale" in API group "example.com"');
  });

  it('names the missing permission when a rule is taken away', async () => {
    const rules = boundRules(loadRbac()).filter((r) => !(r.resources?.includes('pods') && r.apiGroups?.includes('')));
    const results = await everyCall(rules);
    expect(results.pods).toContain('pods is forbidden: User');
    expect(results.pods).toContain('missing RBAC permission: verb "list" on resource "pods" in API group "" in namespace "default"');
    expect(results.scale).toBe('ok');
  });
});

describe('infra/access-entry.yaml', () => {
  it('is a CloudFormation AccessEntry mapping the role to shpa:autoscaler', () => {
    // CloudFormation's short-form intrinsics
    const customTags: ScalarTag[] = ['!Ref', '!GetAtt', '!Sub'].map((tag) => ({ tag, resolve: (v: string) => ({ [tag.slice(1)]: v }) }));
    const doc = parseDocument(readFileSync('infra/access-entry.yaml', 'utf8'), { customTags });
    expect(doc.errors).toEqual([]);
    const t = doc.toJS() as {
      Parameters: Record<string, { Default?: string }>;
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const entry = Object.values(t.Resources).find((r) => r.Type === 'AWS::EKS::AccessEntry')!;
    expect(entry.Properties).toMatchObject({
      ClusterName: { Ref: 'ClusterName' },
      PrincipalArn: { Ref: 'AutoscalerRoleArn' },
      Type: 'STANDARD',
      KubernetesGroups: [{ Ref: 'KubernetesGroup' }],
    });
    expect(t.Parameters.KubernetesGroup.Default).toBe('shpa:autoscaler');
  });
});
