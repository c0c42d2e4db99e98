// The simulator's workload: a scale target whose pods become ready after a delay,
// and whose load is shared evenly by its ready pods. Pure: time is passed in.
import type { PodInfo, PodMetric, PodMetricSample, ScaleInfo } from '#hpa';

export interface WorkloadOptions {
  name: string;
  initialReplicas: number;
  /** Seconds from a pod's creation to Ready. */
  readyDelaySeconds: number;
  /** Per-pod resource requests (quantities), e.g. { cpu: '1' }. */
  requests: Record<string, string>;
  /** When the initial pods started (they are ready from the start). */
  start: Date;
  /** The pods' one container; ContainerResource metrics name it. Default "app". */
  containerName?: string;
}

interface SimPod {
  name: string;
  created: number;
  readyAt: number;
  /** podInfos' answers before and after Ready, made once: a month of syncs asks for them millions of times. */
  unreadyInfo?: PodInfo;
  readyInfo?: PodInfo;
}

export class SimWorkload {
  private pods: SimPod[] = [];
  private seq = 0;
  private specReplicas: number;
  /** podInfos' last answer, valid from `from` until a pod becomes Ready at `until` (or a scale drops it). */
  private infos?: { pods: readonly PodInfo[]; from: number; until: number };

  constructor(private readonly opts: WorkloadOptions) {
    this.specReplicas = opts.initialReplicas;
    const long = opts.start.getTime() - 3600_000; // started long ago: ready, past the CPU initialization period
    for (let i = 0; i < opts.initialReplicas; i++) this.pods.push(this.newPod(long));
  }

  private newPod(created: number): SimPod {
    return { name: `${this.opts.name}-${++this.seq}`, created, readyAt: created + this.opts.readyDelaySeconds * 1000 };
  }

  private get container(): string {
    return this.opts.containerName ?? 'app';
  }

  get replicas(): number {
    return this.specReplicas;
  }

  get selector(): string {
    return `app=${this.opts.name}`;
  }

  /** Scale to n: new pods start now; the newest pods go first on scale-down (as a ReplicaSet prefers unready, younger pods). */
  scale(n: number, now: Date): void {
    this.specReplicas = n;
    if (this.pods.length !== n) this.infos = undefined;
    while (this.pods.length < n) this.pods.push(this.newPod(now.getTime()));
    if (this.pods.length > n) {
      this.pods.sort((a, b) => a.created - b.created);
      this.pods.length = n;
    }
  }

  readyCount(now: Date): number {
    return this.pods.filter((p) => p.readyAt <= now.getTime()).length;
  }

  podCount(): number {
    return this.pods.length;
  }

  scaleInfo(): ScaleInfo {
    return { specReplicas: this.specReplicas, statusReplicas: this.pods.length, selector: this.selector };
  }

  /**
   * The pods as lib/hpa reads them. The same array (same identity) until a pod is created, removed or
   * becomes Ready, so that a caller can keep what it worked out from it (a selector index).
   */
  podInfos(now: Date): readonly PodInfo[] {
    const t = now.getTime();
    if (this.infos && t >= this.infos.from && t < this.infos.until) return this.infos.pods;
    const pods = this.pods.map((p) => (p.readyAt <= t ? (p.readyInfo ??= this.podInfo(p, true)) : (p.unreadyInfo ??= this.podInfo(p, false))));
    const until = Math.min(...this.pods.map((p) => (p.readyAt > t ? p.readyAt : Infinity)));
    this.infos = { pods, from: t, until };
    return pods;
  }

  private podInfo(p: SimPod, ready: boolean): PodInfo {
    return {
      name: p.name,
      labels: { app: this.opts.name },
      phase: 'Running',
      ready: ready ? 'True' : 'False',
      readyTransitionTime: new Date(ready ? p.readyAt : p.created).toISOString(),
      startTime: new Date(p.created).toISOString(),
      containers: [{ name: this.container, requests: { ...this.opts.requests } }],
    };
  }

  /** metrics.k8s.io usage: `load` (total, in the resource's unit) split over ready pods; unready pods report none. */
  podMetrics(resource: string, load: number, now: Date): PodMetric[] {
    const ready = this.pods.filter((p) => p.readyAt <= now.getTime());
    if (ready.length === 0) return [];
    const usage = milliQuantity(load / ready.length);
    return ready.map((p) => ({
      pod: p.name,
      timestamp: now.toISOString(),
      windowSeconds: 30,
      containers: [{ name: this.container, usage: { [resource]: usage } }],
    }));
  }

  /** custom.metrics.k8s.io pods metric: `load` split over ready pods. */
  podCustomMetrics(load: number, now: Date): PodMetricSample[] {
    const ready = this.pods.filter((p) => p.readyAt <= now.getTime());
    if (ready.length === 0) return [];
    const value = milliQuantity(load / ready.length);
    return ready.map((p) => ({ pod: p.name, value, timestamp: now.toISOString() }));
  }
}

/** A non-negative number as a milli-unit quantity string ("1500m"). */
export function milliQuantity(x: number): string {
  return `${Math.max(0, Math.round(x * 1000))}m`;
}
