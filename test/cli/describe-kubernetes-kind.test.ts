// `shpa describe` of what the Kubernetes kind's state carries: each metric's source as the sync
// read it, the shadow period, and how long a wake from zero takes.
import { describe as group, expect, it } from 'vitest';
import { describe } from '../../lib/cli/describe.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';

const now = new Date('2026-11-28T05:00:00Z');
const reports = (status?: HorizontalPodAutoscaler['status'], annotations?: Record<string, string>): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'reports', namespace: 'demo', creationTimestamp: '2026-11-20T00:00:00Z', ...(annotations ? { annotations } : {}) },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'reports' },
    minReplicas: 0,
    maxReplicas: 5,
    metrics: [{ type: 'External', external: { metric: { name: 'reports-backlog' }, target: { type: 'AverageValue', averageValue: '50' }, activation: { value: '10' } } }],
  },
  ...(status ? { status } : {}),
});
const text = (hpa: HorizontalPodAutoscaler, cloudWatchMetrics: CloudWatchMetric[] = []) =>
  describe({ name: 'reports', namespace: 'demo', hpa, history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, createdAt: '2026-11-28T04:59:00Z' }, 'local', now, { cloudWatchMetrics, prometheusMetrics: [] });
const row = (t: string, label: string) => t.split('\n').find((l) => l.trimStart().startsWith(label))?.replace(/^\s*\S+(?: \S+)*:\s+/, '');
const backlog = (alarmName?: string): CloudWatchMetric => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'CloudWatchMetric',
  metadata: { name: 'reports-backlog', namespace: 'demo' },
  spec: { queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }, period: 300, stat: 'Maximum' } }], ...(alarmName ? { alarmName } : {}) },
});

group('shpa describe of a Kubernetes-defined autoscaler', () => {
  it("names the source the sync read (status.metricSources), not the cluster's external metrics API, and the object's age", () => {
    const t = text(reports({ currentReplicas: 0, desiredReplicas: 0, metricSources: ['CloudWatchMetric demo/reports-backlog: AWS/SQS ApproximateNumberOfMessagesVisible'] }));
    expect(row(t, 'from:')).toBe('CloudWatchMetric demo/reports-backlog: AWS/SQS ApproximateNumberOfMessagesVisible');
    expect(t).not.toContain('external.metrics.k8s.io');
    expect(row(t, 'CreationTimestamp:')).toBe('Fri, 20 Nov 2026 00:00:00 GMT');
  });

  it.each([
    ['no metric object known', [], /^after a metric crosses its activation threshold: up to 15 s to the next evaluation \+ up to the metric's period for its next datapoint \+ the source's publishing delay/],
    ['its CloudWatchMetric', [backlog()], /up to 15 s to the next evaluation \+ up to 300 s for the metric's next datapoint \(its period\)/],
    ['an alarm on it', [backlog('reports-backlog-high')], /at once on its CloudWatch alarm \(else up to 15 s to the next evaluation\)/],
  ])('says how long a wake from zero takes: %s', (_, objects, want) => {
    expect(row(text(reports(), objects), 'Wake from zero:')).toMatch(want);
  });

  it('prints the shadow period', () => {
    const t = text(
      reports({
        currentReplicas: 2,
        desiredReplicas: 2,
        shadow: { of: 'ScaledObject/reports', since: '2026-11-28T04:00:00Z', decisions: 240, agreed: 231, maxDifference: 2, last: { time: '2026-11-28T04:59:45Z', desiredReplicas: 2, liveDesiredReplicas: 3, liveCurrentReplicas: 3 } },
      }),
    );
    expect(t).toContain('ScaledObject/reports: 240 decisions compared over 60m, 231 agreed, largest difference 2');
    expect(t).toContain('last, 15s ago: would scale to 2; the live HPA wanted 3 (had 3)');
  });
});
