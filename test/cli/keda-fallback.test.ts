// KEDA's fallback (a failure count) mapped to ours (a failure duration): lib/import/keda-fallback.ts.
import { describe, expect, it } from 'vitest';
import type { MetricSpec } from '../../lib/hpa/types.js';
import { withKedaFallback } from '../../lib/import/keda-fallback.js';

const cpu: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };
const queue: MetricSpec = { type: 'External', external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '5' } } };

describe('withKedaFallback', () => {
  it.each([
    ['3 failures at the default 30 s: raised to our minimum, 180 s', { fallback: { failureThreshold: 3, replicas: 6 } }, 180, []],
    ['10 failures every 60 s: 600 s', { pollingInterval: 60, fallback: { failureThreshold: 10, replicas: 6 } }, 600, []],
    ['behavior currentReplicasIfHigher: said, the fixed count kept', { fallback: { failureThreshold: 10, replicas: 6, behavior: 'currentReplicasIfHigher' } }, 300, ["fallback.behavior currentReplicasIfHigher: ours always proposes the fixed replica count (KEDA's static)"]],
  ])('%s', (_name, spec, seconds, unmapped) => {
    const r = withKedaFallback(spec, [queue, cpu]);
    expect(r.metrics.map((m) => m.external?.fallback ?? m.resource?.fallback)).toEqual([
      { failureDurationSeconds: seconds, replicas: 6 },
      { failureDurationSeconds: seconds, replicas: 6 },
    ]);
    expect(r.unmapped).toEqual(unmapped);
    expect(queue.external?.fallback).toBeUndefined(); // the input is not changed
  });

  it('no fallback: nothing said, metrics as given; a malformed one is said, not mapped', () => {
    expect(withKedaFallback({}, [cpu])).toEqual({ metrics: [cpu], mapped: [], unmapped: [] });
    expect(withKedaFallback({ fallback: { replicas: 0, failureThreshold: 3 } }, [cpu])).toEqual({
      metrics: [cpu],
      mapped: [],
      unmapped: ['fallback: needs replicas (an integer > 0) and failureThreshold (a number ≥ 0)'],
    });
  });
});
