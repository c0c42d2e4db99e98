// A local API server with one workload of every scalable kind, on a virtual clock.
import { createClusterAccess, type KubernetesCluster } from '../../lib/cluster/index.js';
import { startK8sApiServer, type K8sApiServer, type K8sApiServerOptions } from '../../lib/local/kubernetes/api-server.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';

export class VirtualClock {
  constructor(private ms = Date.parse('2026-01-01T00:00:00Z')) {}
  now = () => new Date(this.ms);
  advance(seconds: number) {
    this.ms += seconds * 1000;
  }
}

export const fastRetry = { baseBackoffMs: 5, maxBackoffMs: 20, budgetMs: 300, attemptTimeoutMs: 1_000 };

export async function startCluster(opts: Omit<K8sApiServerOptions, 'model'> = {}) {
  const clock = new VirtualClock();
  const model = new WorkloadModel({ clock, startDelaySeconds: 2, readyDelaySeconds: 10, terminationGraceSeconds: 30 });
  model.defineResource({ group: 'example.com', version: 'v1', kind: 'Worker', resource: 'workers', scale: true });
  model.defineResource({ group: 'example.com', version: 'v1', kind: 'Config', resource: 'configs', scale: false });
  model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'default', name: 'web', replicas: 2, selector: { app: 'web' } });
  model.addWorkload({ kind: 'StatefulSet', apiVersion: 'apps/v1', namespace: 'default', name: 'db', replicas: 3, selector: { app: 'db' } });
  model.addWorkload({ kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace: 'default', name: 'rs', replicas: 1, selector: { app: 'rs', tier: 'back' } });
  model.addWorkload({ kind: 'ReplicationController', apiVersion: 'v1', namespace: 'default', name: 'legacy', replicas: 1, selector: { app: 'legacy' } });
  model.addWorkload({ kind: 'Worker', apiVersion: 'example.com/v1', namespace: 'default', name: 'queue', replicas: 2, selector: { app: 'queue' } });
  model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'other', name: 'api', replicas: 1, selector: { app: 'api' } });
  const server = await startK8sApiServer({ ...opts, model });
  return { clock, model, server };
}

export function accessFor(server: K8sApiServer, clock: VirtualClock, extra: Parameters<typeof createClusterAccess>[1] = {}): KubernetesCluster {
  return createClusterAccess(
    { name: 'local', region: 'us-east-1', endpoint: server.url, caData: server.caData },
    { token: server.token, clock, retry: fastRetry, ...extra },
  );
}
