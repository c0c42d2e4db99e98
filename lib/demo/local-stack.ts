// The demo's local parts, all in this process on 127.0.0.1 (ephemeral ports), on one
// virtual clock: dynalite (DynamoDB), the Kubernetes API server with its workload
// model, and the CloudWatch endpoint.
import { startLocalCloudWatch, type LocalCloudWatch } from '../local/cloudwatch/server.js';
import { startK8sApiServer, type K8sApiServer } from '../local/kubernetes/api-server.js';
import { WorkloadModel } from '../local/kubernetes/workload-model.js';
import { startDynalite } from '../store/dynalite.js';
import type { Clock } from '#sync/ports';

/** Time that moves only when told: set by the demo's loop. */
export class VirtualClock implements Clock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

export interface LocalStack {
  dynamoEndpoint: string;
  k8s: K8sApiServer;
  model: WorkloadModel;
  cloudWatch: LocalCloudWatch;
  stop(): Promise<void>;
}

export interface PodTimings {
  /** Seconds from a pod's creation to Running. */
  startDelaySeconds: number;
  /** Seconds from Running to Ready. */
  readyDelaySeconds: number;
}

/** Starts the three servers; if one fails, the others are stopped before the error is thrown. */
export async function startLocalStack(clock: VirtualClock, pods: PodTimings): Promise<LocalStack> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    await Promise.allSettled(stops.splice(0).map((s) => s()));
  };
  try {
    const dynamo = await startDynalite();
    stops.push(dynamo.stop);
    const model = new WorkloadModel({ clock, ...pods, terminationGraceSeconds: 30 });
    const k8s = await startK8sApiServer({ model });
    stops.push(k8s.stop);
    // CloudWatch answers immediately (no ingestion lag): the metric source already waits a period before reading.
    const cloudWatch = await startLocalCloudWatch({ clock: () => clock.t, ingestDelaySeconds: 0 });
    stops.push(() => cloudWatch.close());
    return { dynamoEndpoint: dynamo.endpoint, k8s, model, cloudWatch, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
