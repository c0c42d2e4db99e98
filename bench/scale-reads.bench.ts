// Reading the scale of every target: one GET /scale per autoscaler (what lib/sync does) against
// one list of Deployments per namespace (what it could do for Deployments, StatefulSets and
// ReplicaSets, whose objects carry what /scale does: spec.replicas, status.replicas, the
// selector and the resourceVersion): lib/cluster's getScale against its listScales. One
// cluster as EKS serves it (Deployments with their pod template, the last-applied annotation
// holding their whole spec, and managedFields, about 10 KB each), 50 namespaces × 20
// Deployments, over HTTPS through the same client pipeline (token, retries, node-fetch), 32
// calls in flight as a cycle makes them. The server runs in its own
// process: the CPU is the client's. Per round: calls counted at the server, bytes of the
// answers, client CPU and wall time. Ratios are from this run.
import { request } from 'node:https';
import pLimit from 'p-limit';
import { caPemOf, createClusterAccess, type KubernetesCluster } from '../lib/cluster/index.js';
import type { ScaleInfo } from '#hpa';
import { namespaceName, startServers, workloadName } from './support/servers.js';
import { fixed, quantile } from './support/stats.js';

const NAMESPACES = 50;
const PER_NAMESPACE = 20;
const ROUNDS = 7;
const CONCURRENCY = 32;
const namespaces = Array.from({ length: NAMESPACES }, (_, i) => namespaceName(i));
const names = Array.from({ length: PER_NAMESPACE }, (_, i) => workloadName(i));

const servers = await startServers({ start: Date.parse('2026-03-02T10:00:00Z'), clusters: 1, namespacesPerCluster: NAMESPACES, workloadsPerNamespace: PER_NAMESPACE, podsPerWorkload: 2, eks: true });
const cluster = servers.clusters[0];
const access = createClusterAccess({ name: cluster.name, region: 'us-east-1', endpoint: cluster.url, caData: cluster.caData }, { token: servers.token });

async function getScales(k: KubernetesCluster): Promise<Map<string, ScaleInfo>> {
  const limit = pLimit(CONCURRENCY);
  const out = new Map<string, ScaleInfo>();
  await Promise.all(namespaces.flatMap((ns) => names.map((name) => limit(async () => out.set(`${ns}/${name}`, await k.getScale(ns, { apiVersion: 'apps/v1', kind: 'Deployment', name }))))));
  return out;
}

async function listDeployments(): Promise<Map<string, ScaleInfo>> {
  const limit = pLimit(CONCURRENCY);
  const out = new Map<string, ScaleInfo>();
  await Promise.all(
    namespaces.map((ns) =>
      limit(async () => {
        for (const [name, scale] of await access.listScales(ns, 'Deployment')) out.set(`${ns}/${name}`, scale);
      }),
    ),
  );
  return out;
}

/** Bytes of an answer body, read raw. */
function bodyBytes(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${cluster.url}${path}`, { ca: caPemOf(cluster.caData), headers: { authorization: `Bearer ${servers.token}`, accept: 'application/json' } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Round {
  cpuMs: number;
  wallMs: number;
  calls: number;
}

async function measure(read: () => Promise<Map<string, ScaleInfo>>): Promise<{ rounds: Round[]; result: Map<string, ScaleInfo> }> {
  const rounds: Round[] = [];
  let result = new Map<string, ScaleInfo>();
  for (let i = 0; i < ROUNDS; i++) {
    access.beginCycle();
    const before = await servers.counts();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    result = await read();
    const wallMs = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const after = await servers.counts();
    const calls = Object.values(after.k8s).reduce((a, b) => a + b, 0) - Object.values(before.k8s).reduce((a, b) => a + b, 0);
    rounds.push({ cpuMs: (used.user + used.system) / 1000, wallMs, calls });
  }
  return { rounds: rounds.slice(2), result }; // the first two warm the JIT and the connections
}

try {
  const scales = await measure(() => getScales(access));
  const lists = await measure(listDeployments);
  // Both ways read the same thing.
  for (const [key, s] of scales.result) {
    const l = lists.result.get(key);
    if (!l || l.specReplicas !== s.specReplicas || l.statusReplicas !== s.statusReplicas || l.selector !== s.selector || l.resourceVersion !== s.resourceVersion) {
      throw new Error(`${key}: /scale says ${JSON.stringify(s)}, the Deployment ${JSON.stringify(l)}`);
    }
  }
  let scaleBytes = 0;
  let listBytes = 0;
  let podBytes = 0;
  for (const ns of namespaces) {
    listBytes += await bodyBytes(`/apis/apps/v1/namespaces/${ns}/deployments?limit=500`);
    podBytes += await bodyBytes(`/api/v1/namespaces/${ns}/pods?limit=500`);
    for (const name of names) scaleBytes += await bodyBytes(`/apis/apps/v1/namespaces/${ns}/deployments/${name}/scale`);
  }
  const row = (how: string, r: Round[], bytes: number) => ({
    how,
    'calls/cycle': r[0].calls,
    'KB/cycle': fixed(bytes / 1024),
    'client CPU p50 ms': fixed(quantile(r.map((x) => x.cpuMs), 0.5), 1),
    'wall p50 ms': fixed(quantile(r.map((x) => x.wallMs), 0.5), 1),
  });
  const a = row(`GET /scale per autoscaler (${NAMESPACES * PER_NAMESPACE})`, scales.rounds, scaleBytes);
  const b = row(`list Deployments per namespace (${NAMESPACES})`, lists.rounds, listBytes);
  console.log(`${NAMESPACES * PER_NAMESPACE} Deployments in ${NAMESPACES} namespaces, read once per cycle; median of ${ROUNDS - 2} rounds after 2 of warm-up`);
  console.table([a, b]);
  const cpuA = quantile(scales.rounds.map((x) => x.cpuMs), 0.5);
  const cpuB = quantile(lists.rounds.map((x) => x.cpuMs), 0.5);
  console.log(
    `list / GET: calls ×${fixed(lists.rounds[0].calls / scales.rounds[0].calls, 3)}, bytes ×${fixed(listBytes / scaleBytes, 2)}, client CPU ×${fixed(cpuB / cpuA, 2)} ` +
      `(${fixed(cpuA / (NAMESPACES * PER_NAMESPACE), 3)} → ${fixed(cpuB / (NAMESPACES * PER_NAMESPACE), 3)} ms per autoscaler)`,
  );
  console.log(`for scale: the same namespaces' pod lists, which a cycle reads anyway, are ${fixed(podBytes / 1024)} KB`);
  console.log(`${cpuB < cpuA ? 'CHEAPER: list' : 'CHEAPER: GET /scale'} (each other kind in use adds one list per namespace; RBAC needs list on deployments, statefulsets, replicasets)`);
} finally {
  await access.close();
  await servers.stop();
}
