// The TARGETS column (lib/hpa/metric-text.ts) of the states kubectl get shpa must not hide: a metric
// on its fallback count, and a target at zero replicas waiting for its activation threshold.
import { describe, expect, it } from 'vitest';
import { formatTargets, type TargetNote } from '../../lib/hpa/metric-text.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from '../../lib/hpa/types.js';

const queue: MetricSpec = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' }, fallback: { replicas: 10 } } };
const cpu: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };
const hpa = (metrics: MetricSpec[], currentMetrics: MetricStatus[], currentReplicas = 3): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'worker' },
  spec: { scaleTargetRef: { kind: 'Deployment', name: 'worker' }, maxReplicas: 20, metrics },
  status: { currentReplicas, desiredReplicas: currentReplicas, currentMetrics },
});
const external = (fallbackStatus: 'Normal' | 'Fallback', averageValue?: string): MetricStatus => ({
  type: 'External',
  external: { metric: { name: 'queue' }, current: averageValue ? { averageValue } : {}, fallbackStatus },
});

describe('TARGETS', () => {
  it.each<[string, HorizontalPodAutoscaler, TargetNote[], string]>([
    ['a metric read as usual', hpa([queue], [external('Normal', '25')]), [], 'queue: 25/30 (avg)'],
    ['a metric on its fallback count', hpa([queue], [external('Fallback')]), [], 'queue: <fallback: 10 replicas>/30 (avg)'],
    ['at zero, below the activation threshold', hpa([queue], [external('Normal', '9223372036854775807m')], 0), [{ activation: { threshold: '5', value: '4' } }], 'queue: 4/5 (activation)'],
    ['at zero, the value unread', hpa([queue], [], 0), [{ activation: { threshold: '5' } }], 'queue: <unknown>/5 (activation)'],
    [
      'each metric its own',
      hpa([cpu, queue], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 72 } } }, external('Fallback')]),
      [],
      'cpu: 72%/60%, queue: <fallback: 10 replicas>/30 (avg)',
    ],
  ])('%s', (_, h, notes, want) => {
    expect(formatTargets(h, false, notes)).toBe(want);
  });
});
