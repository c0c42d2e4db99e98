// Kind → REST resource, as upstream's RESTMapper does it: a table for the
// built-in kinds, discovery (per group/version, per cycle) for everything else.
import { parseGroupVersion } from '#hpa/api';
import { ClusterApiError } from '#sync/ports';
import { apiResourcesOf } from './convert.js';

export interface ResourceRef {
  group: string;
  version: string;
  /** plural resource name, e.g. "deployments" */
  resource: string;
  kind: string;
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

  /** Forgets discovery, so CRDs installed or changed since are seen (upstream resets its RESTMapper every 30 s). */
  reset(): void {
    this.lists.clear();
  }

  /** needScale: the resource must serve the scale subresource (an HPA target). */
  async resolve(apiVersion: string | undefined, kind: string, needScale: boolean): Promise<ResourceRef> {
    const gv = parseGroupVersion(apiVersion ?? '');
    if ('error' in gv) throw new Error(gv.error);
    const { group, version } = gv;
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
      // An unknown group or version is a 404: no kinds there, as upstream's RESTMapper sees it.
      p = this.get(path).then(apiResourcesOf, (err: unknown) => {
        if (err instanceof ClusterApiError && err.statusCode === 404) return [];
        throw err;
      });
      // A failed discovery is not cached: the next call asks again.
      p.catch(() => this.lists.delete(path));
      this.lists.set(path, p);
    }
    return p;
  }
}
