// Discovery documents from one catalogue of served resources: the legacy ones
// (/api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>) and the
// aggregated apidiscovery.k8s.io/v2 lists kubectl and client-go ask for first.

export interface DiscoverySubresource {
  name: string;
  kind: string;
  verbs: readonly string[];
  /** when the subresource answers another group/version than its resource (Scale: autoscaling/v1) */
  group?: string;
  version?: string;
}

export interface DiscoveryResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  subresources: readonly DiscoverySubresource[];
}

export interface DiscoveryGroup {
  /** "" for the core group */
  name: string;
  /** preferred first */
  versions: { version: string; resources: DiscoveryResource[] }[];
}

export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const gv = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** An APIResourceList: every resource followed by its subresources. */
export function resourceList(group: string, version: string, resources: readonly DiscoveryResource[]): Record<string, unknown> {
  const out: Record<string, unknown>[] = [];
  for (const r of resources) {
    out.push({
      name: r.name,
      singularName: r.singularName,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories?.length ? { categories: r.categories } : {}),
    });
    for (const s of r.subresources) {
      out.push({
        name: `${r.name}/${s.name}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(s.group !== undefined && (s.group !== group || s.version !== version) ? { group: s.group, version: s.version } : {}),
        kind: s.kind,
        verbs: s.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv(group, version), resources: out };
}

function versionsOf(g: DiscoveryGroup) {
  const versions = g.versions.map((v) => ({ groupVersion: gv(g.name, v.version), version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroup(g: DiscoveryGroup): Record<string, unknown> {
  return { kind: 'APIGroup', apiVersion: 'v1', ...versionsOf(g) };
}

export function apiGroupList(groups: readonly DiscoveryGroup[]): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.filter((g) => g.name).map(versionsOf) };
}

export function apiVersions(): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList of some groups (the core group alone for /api). */
export function aggregatedList(groups: readonly DiscoveryGroup[]): Record<string, unknown> {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v.version,
        resources: v.resources.map((r) => ({
          resource: r.name,
          responseKind: { group: g.name, version: v.version, kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.singularName,
          verbs: r.verbs,
          ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
          ...(r.categories?.length ? { categories: r.categories } : {}),
          ...(r.subresources.length
            ? {
                subresources: r.subresources.map((s) => ({
                  subresource: s.name,
                  responseKind: { group: s.group ?? g.name, version: s.version ?? v.version, kind: s.kind },
                  verbs: s.verbs,
                })),
              }
            : {}),
        })),
        freshness: 'Current',
      })),
    })),
  };
}

/** Whether an Accept header asks for aggregated discovery v2 before plain JSON. */
export function wantsAggregated(accept: string | undefined): boolean {
  for (const range of (accept ?? '').split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim());
    const p = Object.fromEntries(params.map((x) => x.split('=').map((y) => y.trim())));
    if (type === 'application/json' && p.as === 'APIGroupDiscoveryList' && p.g === 'apidiscovery.k8s.io' && p.v === 'v2') return true;
    if (type === 'application/json' && !p.as) return false;
  }
  return false;
}
