// `shpa import`: KEDA ScaledObjects (files written for the tests after KEDA's documented
// examples) and HPAs converted into our objects, compared field by field, with what does not
// map listed; the CLI's --dry-run prints objects `shpa apply` accepts.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { checkFile } from '../../lib/cli/apply.js';
import { importFiles, reportText } from '../../lib/cli/import.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = (f: string) => join(import.meta.dirname, 'fixtures', 'import', f);

function shpa(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(root, 'lib', 'cli', 'main.ts'), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('shpa import', () => {
  it('aws-cloudwatch → a CloudWatchMetric with its dimension, statistic, period, end offset and minMetricValue as defaultValue (mapped, never also listed as not mapped)', () => {
    const r = importFiles([fixture('keda-cloudwatch.yaml')]);
    expect(r.problems).toEqual([]);
    expect(r.objects[0]).toEqual({
      apiVersion: 'shpa.dev/v1',
      kind: 'CloudWatchMetric',
      metadata: { name: 'aws-cloudwatch-queue-scaledobject-0', namespace: 'default' },
      spec: {
        queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'keda' }] }, period: 300, stat: 'Average' } }],
        region: 'eu-west-1',
        endTimeOffsetSeconds: 60,
        defaultValue: 0,
      },
    });
    const hpa = r.objects[1] as { spec: { minReplicas: number; maxReplicas: number; metrics: unknown[] } };
    // KEDA's defaults: minReplicaCount 0 (ours scales to zero too, on its External metric), maxReplicaCount 100.
    expect([hpa.spec.minReplicas, hpa.spec.maxReplicas]).toEqual([0, 100]);
    expect(hpa.spec.metrics).toEqual([{ type: 'External', external: { metric: { name: 'aws-cloudwatch-queue-scaledobject-0' }, target: { type: 'AverageValue', averageValue: '2.1' } } }]);
    expect(r.results[0].mapped).toContain("minReplicaCount unset (KEDA's default 0) → minReplicas 0: scaled to zero on its External metrics (docs/scale-to-zero.md)");
    expect(r.results[0].mapped).toContain("triggers[0] (aws-cloudwatch) minMetricValue 0 → spec.defaultValue (the value when CloudWatch has no datapoint, as KEDA's)");
    expect(r.results[0].unmapped.join('\n')).not.toContain('minMetricValue');
  });

  it('several triggers: prometheus (a server, AMP), cpu, cron, fallback, activation, scale to zero and the pause of scale-in mapped; kafka, paused-replicas and polling listed, never dropped', () => {
    const r = importFiles([fixture('keda-mixed.yaml')]);
    expect(r.problems).toEqual([]);
    const [server, amp, hpa] = r.objects as unknown as [{ spec: unknown }, { spec: unknown }, { spec: Record<string, unknown> }];
    expect(server.spec).toEqual({ query: 'sum(rate(http_requests_total{deployment="web"}[2m]))', server: { url: 'http://prometheus.monitoring.svc:9090' } });
    expect(amp.spec).toEqual({ query: 'sum(queue_depth{app="web"})', amp: { workspaceId: 'ws-12345678-abcd-4ef0-9abc-123456789012', region: 'us-east-1' } });
    expect(hpa.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' },
      minReplicas: 0,
      maxReplicas: 40,
      // KEDA's fallback (3 failures × 30 s) on every metric, cpu included: 180 s, our minimum.
      metrics: [
        { type: 'External', external: { metric: { name: 'web-0' }, target: { type: 'AverageValue', averageValue: '100.50' }, fallback: { failureDurationSeconds: 180, replicas: 6 }, activation: { value: '5.5' } } },
        { type: 'External', external: { metric: { name: 'web-amp' }, target: { type: 'AverageValue', averageValue: '20' }, fallback: { failureDurationSeconds: 180, replicas: 6 } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 }, fallback: { failureDurationSeconds: 180, replicas: 6 } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 120, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }], selectPolicy: 'Max' }, scaleUp: expect.any(Object) },
      syncPeriodSeconds: 30,
    });
    const unmapped = r.results[0].unmapped.join('\n');
    for (const item of [
      'cooldownPeriod 300: ours has one stabilization window for every scale-down, zero included; behavior.scaleDown.stabilizationWindowSeconds 120 is kept',
      'annotation autoscaling.keda.sh/paused-replicas',
      'triggers[4] (kafka): no equivalent',
    ]) {
      expect(unmapped).toContain(item);
    }
    expect(unmapped).not.toContain('pollingInterval');
    expect(r.results[0].mapped).toEqual([
      'annotation autoscaling.keda.sh/paused-scale-in → shpa.dev/pause-scale-down (ours keeps evaluating and says what it would do)',
      'advanced.horizontalPodAutoscalerConfig.behavior → spec.behavior',
      'triggers[0] (prometheus) → PrometheusMetric shop/web-0 (server), threshold 100.50 → External AverageValue 100.50',
      'triggers[0] (prometheus) activation 5.5 → activation.value (ours acts at zero replicas only: docs/scale-to-zero.md)',
      'triggers[1] (prometheus) → PrometheusMetric shop/web-amp (AMP workspace ws-12345678-abcd-4ef0-9abc-123456789012), threshold 20 → External AverageValue 20',
      'triggers[2] (cpu) → a Resource cpu metric (Utilization 60)',
      'triggers[3] (cron) → scheduled minimum cron-3 (0 8 * * * to 0 20 * * * Europe/Paris, minimum 10: a floor, the other metrics still scale above it)',
      'minReplicaCount 0 → minReplicas 0: scaled to zero on its External metrics (docs/scale-to-zero.md)',
      "pollingInterval 30 → spec.syncPeriodSeconds 30: ours evaluates every 30 s, also between 1 and N replicas (KEDA's HPA: every 15 s there)",
      "fallback (3 failures × 30 s polling) → each metric's fallback: 6 replicas after 180 s of failures (at least 180 s)",
    ]);
    expect(unmapped).not.toContain('fallback');
    // The cron trigger as a window in the timezone it named; the pause of scale-in as ours.
    expect((r.objects[2] as unknown as { metadata: { annotations: Record<string, string> } }).metadata.annotations).toEqual({
      'shpa.dev/pause-scale-down': 'true',
      'shpa.dev/min-replica-schedules': JSON.stringify([{ name: 'cron-3', minReplicas: 10, timezone: 'Europe/Paris', start: '0 8 * * *', end: '0 20 * * *' }]),
    });
  });

  it('minReplicaCount 0 with cpu only stays at minReplicas 1, and an activation on cpu is listed; the imported activation passes apply', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-import-zero-'));
    const file = join(dir, 'so.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: keda.sh/v1alpha1',
        'kind: ScaledObject',
        'metadata: {name: busy, namespace: shop}',
        'spec:',
        '  scaleTargetRef: {name: busy}',
        '  triggers:',
        '    - type: cpu',
        '      metricType: Utilization',
        '      metadata: {value: "60", activationValue: "10"}',
      ].join('\n'),
    );
    const r = importFiles([file]);
    expect((r.objects[0] as { spec: { minReplicas: number } }).spec.minReplicas).toBe(1);
    expect(r.results[0].unmapped).toEqual([
      'triggers[0] (cpu) activation 10: ours has activation thresholds on Object and External metrics only',
      "minReplicaCount unset (KEDA's default 0), scale to zero: ours scales to zero only with an External or Object metric; minReplicas 1",
    ]);
    const withActivation = importFiles([fixture('keda-mixed.yaml')]);
    const out = join(dir, 'mixed.yaml');
    writeFileSync(out, withActivation.objects.map((o) => JSON.stringify(o)).join('\n---\n'));
    expect(checkFile(out, undefined)).not.toHaveProperty('errors');
  });

  it('an autoscaling/v2 HPA is ours as written (status and server fields dropped); a v1 one maps its CPU target', () => {
    const r = importFiles([fixture('hpa-v1.yaml')]);
    expect(r.problems).toEqual([]);
    const [v1, v2] = r.objects as unknown as { metadata: Record<string, unknown>; spec: Record<string, unknown>; status?: unknown }[];
    expect(v1.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    expect(v2.metadata.resourceVersion).toBeUndefined();
    expect(v2.status).toBeUndefined();
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }]);
  });

  it('the command: --dry-run prints objects `shpa apply` accepts, and the report on stderr', async () => {
    const r = await shpa(['import', '-f', fixture('keda-mixed.yaml'), fixture('keda-cloudwatch.yaml'), '--dry-run']);
    expect(r.code).toBe(0);
    expect(parseAllDocuments(r.stdout).map((d) => (d.toJS() as { kind: string }).kind)).toEqual(['PrometheusMetric', 'PrometheusMetric', 'HorizontalPodAutoscaler', 'CloudWatchMetric', 'HorizontalPodAutoscaler']);
    expect(r.stderr).toMatch(/^ScaledObject shop\/web → PrometheusMetric shop\/web-0, PrometheusMetric shop\/web-amp, HorizontalPodAutoscaler shop\/web:\n  mapped: /);
    expect(r.stderr).toContain('  NOT mapped: triggers[4] (kafka): no equivalent');
    const file = join(mkdtempSync(join(tmpdir(), 'shpa-import-')), 'ours.yaml');
    writeFileSync(file, r.stdout);
    // What `shpa apply` checks before storing: every object valid, of the kinds expected.
    const checked = checkFile(file, undefined);
    expect('errors' in checked ? checked.errors : []).toEqual([]);
    expect('objects' in checked && checked.objects.map((o) => `${o.handler.resource}/${o.object.metadata.name}`)).toEqual([
      'prometheusmetric.shpa.dev/web-0',
      'prometheusmetric.shpa.dev/web-amp',
      'horizontalpodautoscaler.autoscaling/web',
      'cloudwatchmetric.shpa.dev/aws-cloudwatch-queue-scaledobject-0',
      'horizontalpodautoscaler.autoscaling/aws-cloudwatch-queue-scaledobject',
    ]);
    expect(reportText(importFiles([fixture('keda-cloudwatch.yaml')]))).toMatch(
      /^ScaledObject default\/aws-cloudwatch-queue-scaledobject → CloudWatchMetric default\/aws-cloudwatch-queue-scaledobject-0, HorizontalPodAutoscaler default\/aws-cloudwatch-queue-scaledobject:\n  mapped: triggers\[0\] \(aws-cloudwatch\) → CloudWatchMetric default\/aws-cloudwatch-queue-scaledobject-0/,
    );
    // Our own objects are carried along as written; a file of nothing import reads is nothing to import, said.
    const ours = await shpa(['import', '-f', join(root, 'examples', 'sqs-backlog.yaml'), '--dry-run']);
    expect(ours.code).toBe(0);
    expect(parseAllDocuments(ours.stdout).map((d) => (d.toJS() as { kind: string }).kind)).toEqual(['CloudWatchMetric', 'HorizontalPodAutoscaler']);
    expect(ours.stderr).toContain('CloudWatchMetric demo/jobs-backlog → CloudWatchMetric demo/jobs-backlog:\n  mapped: already ours: kept as written');
    const secretOnly = join(mkdtempSync(join(tmpdir(), 'shpa-import-')), 'secret.yaml');
    writeFileSync(secretOnly, 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\n');
    const none = await shpa(['import', '-f', secretOnly, '--dry-run']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`skipped: ${secretOnly}:1: Secret default/creds: not read: ours takes no credentials from Secrets\nerror: nothing to import\n`);
  });
});
