// The cluster registry mirrors a deployed stack's clusters parameter, so the CLI sees the
// clusters the functions sync (and refuses others): the parameter is the one source, the
// table's copy is written by the dispatcher only when it differs.
import type { ClusterConfig } from './ports/cluster-access.js';

export interface RegistryEntry extends ClusterConfig {
  managedBy: 'stack' | 'cli';
}

export interface Registry {
  listClusters(): Promise<RegistryEntry[]>;
  putCluster(c: RegistryEntry, now: Date): Promise<unknown>;
  removeCluster(name: string): Promise<boolean>;
}

/** Brings the registry in line with the parameter; returns what changed ("added prod", ...). */
export async function mirrorRegistry(registry: Registry, clusters: ClusterConfig[], now: Date): Promise<string[]> {
  const stored = await registry.listClusters();
  const changes: string[] = [];
  for (const c of clusters) {
    const want: RegistryEntry = { ...c, managedBy: 'stack' };
    const have = stored.find((s) => s.name === c.name);
    if (have && JSON.stringify(normal(have)) === JSON.stringify(normal(want))) continue;
    await registry.putCluster(want, now);
    changes.push(`${have ? 'updated' : 'added'} ${c.name}`);
  }
  for (const s of stored) {
    if (s.managedBy === 'stack' && !clusters.some((c) => c.name === s.name)) {
      await registry.removeCluster(s.name);
      changes.push(`removed ${s.name}`);
    }
  }
  return changes;
}

function normal(c: RegistryEntry): unknown {
  return { name: c.name, region: c.region, roleArn: c.roleArn ?? null, shards: c.shards, namespaces: c.namespaces ?? null, managedBy: c.managedBy };
}
