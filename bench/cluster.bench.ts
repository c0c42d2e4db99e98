// One sync cycle's cluster reads through the real client against the local API
// server: 20 namespaces × 5 autoscalers × 10 pods. Reports time and requests per cycle.
import { createClusterAccess } from '../lib/cluster/index.js';
import { startK8sApiServer } from '../lib/local/kubernetes/api-server.js';
import { WorkloadModel } from '../lib/local/kubernetes/workload-model.js';

const clock = { now: () => new Date() };
const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0 });
const namespaces = Array.from({ length: 20 }, (_, i) => `ns-${i}`);
for (const ns of namespaces) {
  for (let d = 0; d < 5; d++) {
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: ns, name: `app-${d}`, replicas: 10, selector: { app: `app-${d}` } });
  }
}
const server = await startK8sApiServer({ model });
const access = createClusterAccess({ name: 'bench', region: 'us-east-1', endpoint: server.url, caData: server.caData }, { token: server.token });

const cycles = 10;
const times: number[] = [];
for (let c = 0; c < cycles; c++) {
  access.beginCycle();
  const before = server.requestLog.length;
  const t0 = performance.now();
  // As a cycle reads (lib/sync/reads.ts): every target's scale, each namespace's pods and pod metrics once.
  await Promise.all(
    namespaces.flatMap((ns) => [
      ...Array.from({ length: 5 }, (_, d) => access.getScale(ns, { kind: 'Deployment', name: `app-${d}`, apiVersion: 'apps/v1' })),
      access.listPods(ns),
      access.listPodMetrics(ns),
    ]),
  );
  times.push(performance.now() - t0);
  if (c === 0) console.log(`requests per cycle: ${server.requestLog.length - before} (100 scales + 20 pod lists + 20 pod-metrics lists)`);
}
times.sort((a, b) => a - b);
console.log(`cycle of 100 autoscalers / 20 namespaces / 1000 pods: median ${times[cycles >> 1].toFixed(0)} ms, max ${times[cycles - 1].toFixed(0)} ms`);
await access.close();
await server.stop();
