// Kind → REST resource, as upstream's RESTMapper does it: a table for the
// built-in kinds, discovery (cached per group/version) for everything else.
import { apiResourcesOf } from './convert.js';

export interface ResourceRef {
  group: string;
  version: string;
  /** plural resource name, e.g. "deployments" */
  resource: string;
  kind: string;
}

export function parseApiVersion(apiVersion: string | undefined): { group: string; version: string } {
  const v = apiVersion ?? '';
  const parts = v.split('/');
  if (v === '') return { group: '', version: '' };
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  throw new Error(`unexpected GroupVersion string: ${v}`);
}

const builtIn: Record<string, { resource: string; version: string }> = {
  'apps/Deployment': { resource: 'deployments', version: 'v1' },
  'apps/StatefulSet': { resource: 'statefulsets', version: 'v1' },
  'apps/ReplicaSet': { resource: 'replicasets', version: 'v1' },
  '/ReplicationController': { resource: 'replicationcontrollers', version: 'v1' },
  '/Pod': { resource: 'pods', version: 'v1' },
  '/Service': { resource: 'services', version: 'v1' },
  '/Namespace': { resource: 'namespaces', version: 'v1' },
};

/** Fetches /api/v1 or /apis/<group>/<version> as JSON. */
export type DiscoveryGet = (path: string) => Promise<unknown>;

export class ResourceResolver {
  private readonly lists = new Map<string, Promise<{ name: string; kind: string }[]>>();

  constructor(private readonly get: DiscoveryGet) {}

  /** needScale: the resource must serve the scale subresource (an HPA target). */
  async resolve(apiVersion: string | undefined, kind: string, needScale: boolean): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    const known = builtIn[`${group}/${kind}`];
    if (known) return { group, version: known.version, resource: known.resource, kind };
    // Upstream maps the group of scaleTargetRef.apiVersion; a ref with no apiVersion only finds core kinds.
    if (version === '') throw new Error(`no matches for kind "${kind}" in group "${group}"`);
    const resources = await this.list(group, version);
    const match = resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!match) throw new Error(`no matches for kind "${kind}" in version "${apiVersion}"`);
    if (needScale && !resources.some((r) => r.name === `${match.name}/scale`)) {
      throw new Error(`${match.name}${group ? `.${group}` : ''} has no scale subresource`);
    }
    return { group, version, resource: match.name, kind };
  }

  private list(group: string, version: string): Promise<{ name: string; kind: string }[]> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let p = this.lists.get(path);
    if (!p) {
      p = this.get(path).then(apiResourcesOf);
      // A failed discovery is not cached: the next call asks again.
      p.catch(() => this.lists.delete(path));
      this.lists.set(path, p);
    }
    return p;
  }
}
