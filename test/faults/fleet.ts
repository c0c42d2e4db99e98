// The fleet every fault scenario runs: one cluster cut into two shards, five autoscalers on
// the three kinds of metric source (CloudWatch, the cluster's external metrics API, pod
// CPU), so that a fault can hit some of them (a namespace, a metric, a shard) and leave the
// others. Demand rises at tick RISE and falls at tick FALL: every autoscaler scales up in
// steps (its policy allows +3 pods per 15 s) and later down, so faults meet real decisions.
import { applyDefaults } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, MetricSpec } from '../../lib/hpa/types.js';
import type { LocalMetric } from '../../lib/local/cloudwatch/server.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { shardOfNamespace, shardId } from '../../lib/sync/shards.js';

export const CLUSTER = 'local';
export const SHARDS = 2;
/** The sync period: short, so that deadlines (half a period) cost little real time when a call hangs. */
export const PERIOD_SECONDS = 5;
export const START = Date.parse('2026-03-02T10:00:00.000Z');

/** Demand: low, high from tick RISE, low again from tick FALL. */
export const RISE = 2;
export const FALL = 7;

export type MetricSource = 'cloudwatch' | 'external' | 'cpu';

export interface FleetMember {
  namespace: string;
  name: string;
  source: MetricSource;
  /** The CloudWatch metric name, or the external metric's name. */
  metric: string;
  low: number;
  high: number;
  /** Per-pod target (AverageValue), or CPU utilization percent. */
  target: number;
}

// apps and shop fall in shard 1 of 2, edge and core in shard 0 (FNV-1a buckets 13, 9, 12, 14).
export const FLEET: FleetMember[] = [
  { namespace: 'apps', name: 'queue', source: 'cloudwatch', metric: 'QueueBacklog', low: 20, high: 200, target: 10 },
  { namespace: 'apps', name: 'web', source: 'external', metric: 'web-rps', low: 100, high: 900, target: 50 },
  { namespace: 'shop', name: 'cart', source: 'external', metric: 'cart-rps', low: 200, high: 1500, target: 100 },
  { namespace: 'edge', name: 'gateway', source: 'cpu', metric: 'cpu', low: 0.2, high: 3, target: 60 },
  { namespace: 'core', name: 'billing', source: 'cloudwatch', metric: 'BillingBacklog', low: 10, high: 60, target: 5 },
];

export const key = (m: { namespace: string; name: string }) => `${m.namespace}/${m.name}`;
export const shardOf = (namespace: string) => shardId(shardOfNamespace(CLUSTER, SHARDS, namespace));
export const SHARD0 = shardOf('edge');
export const inShard = (shard: string) => FLEET.filter((m) => shardOf(m.namespace) === shard).map(key);

/** The demand of a member at a virtual time (ms). */
export function demand(m: FleetMember, tMs: number): number {
  const tick = Math.floor((tMs - START) / (PERIOD_SECONDS * 1000));
  return tick >= RISE && tick < FALL ? m.high : m.low;
}

export function cloudWatchMetric(m: FleetMember): LocalMetric {
  return { namespace: 'Custom', metricName: m.metric, dimensions: [{ name: 'Service', value: m.name }] };
}

export function cloudWatchObject(m: FleetMember): CloudWatchMetric {
  return {
    apiVersion: 'shpa.dev/v1',
    kind: 'CloudWatchMetric',
    metadata: { name: m.metric.toLowerCase(), namespace: m.namespace },
    // A 5 s high-resolution metric: a new datapoint every tick, so every tick reads CloudWatch.
    spec: { queries: [{ id: 'value', metricStat: { metric: cloudWatchMetric(m), period: 5, stat: 'Average' }, returnData: true }] },
  };
}

const BEHAVIOR: HorizontalPodAutoscalerBehavior = {
  scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 3, periodSeconds: 15 }] },
  scaleDown: { stabilizationWindowSeconds: 10, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 50, periodSeconds: 15 }] },
};

function metricSpec(m: FleetMember): MetricSpec {
  if (m.source === 'cpu') return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: m.target } } };
  const name = m.source === 'cloudwatch' ? m.metric.toLowerCase() : m.metric;
  return { type: 'External', external: { metric: { name }, target: { type: 'AverageValue', averageValue: String(m.target) } } };
}

export function autoscaler(m: FleetMember): HorizontalPodAutoscaler {
  return applyDefaults({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: m.name, namespace: m.namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: m.name },
      minReplicas: 2,
      maxReplicas: 20,
      metrics: [metricSpec(m)],
      behavior: BEHAVIOR,
    },
  });
}

/** The longest policy period of the fleet's behaviors: how long a scale event stays in the stored history. */
export const EVENT_HORIZON_MS = 1000 * Math.max(...[BEHAVIOR.scaleUp, BEHAVIOR.scaleDown].flatMap((rules) => rules?.policies?.map((p) => p.periodSeconds) ?? []));
