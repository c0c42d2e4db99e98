// `shpa describe` shows each metric's fallback (KEP-5679) state from the stored status.
import { describe as group, expect, it } from 'vitest';
import { describe, type DescribedAutoscaler } from '../../lib/cli/describe.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from '../../lib/hpa/types.js';

const now = new Date('2026-03-01T12:10:00Z');
const queue: MetricSpec = { type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'Value', value: '100' }, fallback: { replicas: 10 } } };
const cpu: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, fallback: { replicas: 4, failureDurationSeconds: 600 } } };
const plain: MetricSpec = { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '5' } } };

function text(currentMetrics?: MetricStatus[]): string[] {
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 20, metrics: [queue, plain, cpu] },
    status: { currentReplicas: 3, desiredReplicas: 3, currentMetrics },
  };
  const rec: DescribedAutoscaler = { namespace: 'shop', name: 'web', hpa, history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, createdAt: '2026-03-01T00:00:00Z' };
  return describe(rec, 'prod', now).split('\n').filter((l) => l.trim().startsWith('fallback:')).map((l) => l.trim().replace(/\s+/g, ' '));
}

group('describe: the fallback line of each metric that configures one', () => {
  it('before the first evaluation', () => {
    expect(text()).toEqual(['fallback: 10 replicas after 3m0s of failures; not evaluated yet', 'fallback: 4 replicas after 10m0s of failures; not evaluated yet']);
  });

  it('in fallback, and failing but not yet in fallback, matched by identity whatever the order of the status', () => {
    expect(
      text([
        { type: 'Resource', resource: { name: 'cpu', current: {}, fallbackStatus: 'Normal', firstFailureTime: '2026-03-01T12:05:00Z' } },
        { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '4' } } },
        { type: 'External', external: { metric: { name: 'queue_depth' }, current: {}, fallbackStatus: 'Fallback', firstFailureTime: '2026-03-01T12:06:00Z' } },
      ]),
    ).toEqual([
      'fallback: 10 replicas after 3m0s of failures; Fallback (in use), failing since 2026-03-01T12:06:00Z (4m)',
      'fallback: 4 replicas after 10m0s of failures; Normal, failing since 2026-03-01T12:05:00Z (5m)',
    ]);
  });

  it('read normally again', () => {
    expect(text([{ type: 'External', external: { metric: { name: 'queue_depth' }, current: { value: '80' }, fallbackStatus: 'Normal' } }])[0]).toBe('fallback: 10 replicas after 3m0s of failures; Normal');
  });
});
