// `shpa import` on real manifests nobody here wrote (test/cli/fixtures/import-real/README.md
// says where each comes from): each imports into our Kubernetes kind, every object passes the
// checks `shpa apply` makes, every document is either converted or skipped with why, and the
// report says what mapped, what did not and what has no effect. Then the single mappings, as a
// table, and the command's all-or-nothing store against dynalite.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { importDocuments, importFiles, outputObjects, reportText } from '../../lib/cli/import.js';
import { kindFor } from '../../lib/cli/kinds.js';
import { startDynalite, type DynamoServer } from '../../lib/store/dynalite.js';
import { TEST_REGION } from '../support/dynamo.js';

const root = join(import.meta.dirname, '..', '..');
const real = (f: string) => join(import.meta.dirname, 'fixtures', 'import-real', f);

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec: Record<string, unknown> };

interface RealCase {
  file: string;
  /** What the Kubernetes form holds, in order. */
  kinds: string[];
  /** Fields of the ServerlessHorizontalPodAutoscaler's spec. */
  spec: Record<string, unknown>;
  /** Fields of the first metric object's spec, if any. */
  metricSpec?: Record<string, unknown>;
  mapped?: string[];
  unmapped?: string[];
  noEffect?: string[];
  skipped?: string[];
}

const CASES: RealCase[] = [
  {
    file: 'keda-aws-sqs-queue-url.yaml',
    kinds: ['CloudWatchMetric keda-test/aws-sqs-queue-scaledobject-0', 'ServerlessHorizontalPodAutoscaler keda-test/aws-sqs-queue-scaledobject'],
    spec: { minReplicas: 0, maxReplicas: 100, metrics: [{ type: 'External', external: { metric: { name: 'aws-sqs-queue-scaledobject-0' }, target: { type: 'AverageValue', averageValue: '5' } } }] },
    metricSpec: { region: 'eu-west-1', queries: [{ metricStat: { metric: { dimensions: [{ name: 'QueueName', value: 'QueueName' }] } } }, {}, { id: 'backlog', expression: 'visible + inflight' }] },
    mapped: ["minReplicaCount unset (KEDA's default 0) → minReplicas 0", 'AWS/SQS visible + in flight of queue QueueName in eu-west-1'],
  },
  {
    file: 'keda-aws-sqs-queue-name.yaml',
    kinds: ['CloudWatchMetric keda-test/aws-sqs-queue-scaledobject-0', 'ServerlessHorizontalPodAutoscaler keda-test/aws-sqs-queue-scaledobject'],
    spec: { minReplicas: 0, metrics: [{ external: { target: { averageValue: '5' } } }] },
    metricSpec: { region: 'eu-west-1', queries: [{ metricStat: { metric: { namespace: 'AWS/SQS', dimensions: [{ name: 'QueueName', value: 'myQueue' }] } } }, {}, {}] },
    mapped: ['of queue myQueue in eu-west-1'],
    unmapped: ['authenticationRef (TriggerAuthentication keda-trigger-auth-aws-credentials): ours reads with the worker function\'s role; give CloudWatchMetric keda-test/aws-sqs-queue-scaledobject-0 a spec.roleArn'],
    skipped: ['Secret default/test-secrets: not read', 'TriggerAuthentication keda-test/keda-trigger-auth-aws-credentials: ours reads AWS with the worker function\'s role'],
  },
  {
    file: 'keda-aws-cloudwatch.yaml',
    kinds: ['CloudWatchMetric keda-test/aws-cloudwatch-queue-scaledobject-0', 'ServerlessHorizontalPodAutoscaler keda-test/aws-cloudwatch-queue-scaledobject'],
    spec: { minReplicas: 0, maxReplicas: 100, metrics: [{ external: { target: { type: 'AverageValue', averageValue: '2.1' } } }] },
    metricSpec: { region: 'eu-west-1', defaultValue: 0, queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'keda' }] }, period: 300, stat: 'Average' } }] },
    mapped: ["minMetricValue 0 → spec.defaultValue (the value when CloudWatch has no datapoint, as KEDA's)"],
    unmapped: ['authenticationRef (TriggerAuthentication keda-trigger-auth-aws-credentials)'],
    skipped: ['Secret default/test-secrets', 'TriggerAuthentication keda-test/keda-trigger-auth-aws-credentials'],
  },
  {
    file: 'keda-prometheus.yaml',
    kinds: ['PrometheusMetric default/prometheus-scaledobject-0', 'ServerlessHorizontalPodAutoscaler default/prometheus-scaledobject'],
    spec: { minReplicas: 0, metrics: [{ type: 'External', external: { target: { type: 'AverageValue', averageValue: '100' } } }] },
    metricSpec: { query: 'sum(rate(http_requests_total{deployment="my-deployment"}[2m]))', server: { url: 'http://prometheus-server.monitoring.svc:9090' } },
    mapped: ['→ PrometheusMetric default/prometheus-scaledobject-0 (server), threshold 100 → External AverageValue 100'],
  },
  {
    file: 'keda-amp.yaml',
    kinds: ['PrometheusMetric default/keda-so-0', 'ServerlessHorizontalPodAutoscaler default/keda-so'],
    spec: { minReplicas: 0, maxReplicas: 2, behavior: { scaleDown: { stabilizationWindowSeconds: 15 } } },
    metricSpec: { query: 'vector(100)', amp: { workspaceId: 'ws-0123abcd-4567-89ef-0123-456789abcdef', region: 'us-east-1' } },
    unmapped: ['cooldownPeriod 1: ours has one stabilization window for every scale-down, zero included; behavior.scaleDown.stabilizationWindowSeconds 15 is kept, so going to zero waits 15 s'],
    skipped: ['Deployment default/keda-deploy: not an autoscaler', 'TriggerAuthentication default/keda-trigger-auth-aws-credentials'],
  },
  {
    file: 'keda-cron-cpu.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/cron-scaledobject'],
    spec: { minReplicas: 1, maxReplicas: 4, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
    unmapped: ['minReplicaCount 0, scale to zero: ours scales to zero only with an External or Object metric; minReplicas 1'],
    noEffect: ['cooldownPeriod 300: KEDA waits it only before going to zero, and minReplicas is 1', 'scheduled minimum cron-0: desiredReplicas 1 is not above minReplicas 1, so the window would change nothing; left out'],
  },
  {
    file: 'keda-cpu-container.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/cpu-scaledobject'],
    spec: { minReplicas: 1, metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'foo', target: { type: 'Utilization', averageUtilization: 60 } } }] },
    mapped: ['a ContainerResource cpu metric of container foo (Utilization 60)'],
    unmapped: ["minReplicaCount unset (KEDA's default 0), scale to zero: ours scales to zero only with an External or Object metric; minReplicas 1"],
  },
  {
    file: 'aws-samples-sqs.yaml',
    kinds: ['CloudWatchMetric keda-test/aws-sqs-queue-scaledobject-0', 'ServerlessHorizontalPodAutoscaler keda-test/aws-sqs-queue-scaledobject'],
    spec: { minReplicas: 1, maxReplicas: 2000, syncPeriodSeconds: 30, metrics: [{ external: { target: { averageValue: '2' } } }] },
    metricSpec: { region: 'us-west-2', queries: [{ metricStat: { metric: { dimensions: [{ name: 'QueueName', value: 'keda-sqs-queue' }] } } }, {}, {}] },
    mapped: ['pollingInterval 30 → spec.syncPeriodSeconds 30'],
    unmapped: ['authenticationRef (TriggerAuthentication keda-aws-credentials)'],
    noEffect: ['cooldownPeriod 10: KEDA waits it only before going to zero, and minReplicas is 1'],
    skipped: ['TriggerAuthentication keda-test/keda-aws-credentials'],
  },
  {
    file: 'php-apache-v2.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/php-apache'],
    spec: { minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    mapped: ['spec: kept as written'],
  },
  {
    file: 'php-apache-v1.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/php-apache'],
    spec: { minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    mapped: ['targetCPUUtilizationPercentage 50 → a Resource cpu metric, Utilization 50'],
  },
  {
    file: 'walkthrough-v2beta2.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/php-apache'],
    spec: {
      metrics: [
        { type: 'Resource' },
        { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main-route' }, target: { type: 'Value', value: '10k' } } },
      ],
    },
    mapped: ['autoscaling/v2beta2: the shape of autoscaling/v2, kept as written'],
  },
  {
    file: 'walkthrough-v2beta1.yaml',
    kinds: ['ServerlessHorizontalPodAutoscaler default/php-apache'],
    spec: {
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        { type: 'Object', object: { describedObject: { apiVersion: 'extensions/v1beta1', kind: 'Ingress', name: 'main-route' }, metric: { name: 'requests-per-second' }, target: { type: 'Value', value: '10k' } } },
        { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker_tasks' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
      ],
    },
    mapped: ['metrics[3] (External): metricName and metricSelector → metric; targetAverageValue 30 → target AverageValue'],
  },
];

/** The Kubernetes form's autoscaler as the table's HPA (the same spec), to run `shpa apply`'s checks on it. */
const asTableForm = (o: Obj) => (o.kind === 'ServerlessHorizontalPodAutoscaler' ? { ...o, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } : o);

describe('shpa import of real manifests', () => {
  it.each(CASES)('$file imports into our Kubernetes kind, with a report', (c) => {
    const r = importFiles([real(c.file)]);
    expect(r.problems).toEqual([]);
    const out = outputObjects(r, 'kubernetes', true) as Obj[];
    expect(out.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual(c.kinds);
    for (const o of out) {
      expect(o.apiVersion).toBe('shpa.dev/v1');
      const handler = kindFor(asTableForm(o));
      expect('check' in handler && handler.check(asTableForm(o))).toMatchObject({ ok: true });
    }
    const shpa = out.find((o) => o.kind === 'ServerlessHorizontalPodAutoscaler')!;
    expect(shpa.metadata.annotations).toEqual({ 'shpa.dev/dry-run': 'true' });
    expect(shpa.spec).toMatchObject(c.spec);
    if (c.metricSpec) expect(out[0].spec).toMatchObject(c.metricSpec);
    // Every document is accounted for: converted, or skipped with why.
    const documents = parseAllDocuments(readFileSync(real(c.file), 'utf8')).length;
    expect(r.results.length + r.skipped.length).toBe(documents);
    const text = reportText(r, 'kubernetes');
    const said = (prefix: string, items: string[] | undefined) => {
      const lines = text.split('\n').filter((l) => l.startsWith(prefix));
      for (const item of items ?? []) expect(lines.some((l) => l.includes(item)), `${prefix} ${item}\n${text}`).toBe(true);
      if (!items) expect(lines, text).toEqual([]);
    };
    said('  mapped: ', c.mapped ?? []);
    said('  NOT mapped: ', c.unmapped);
    said('  no effect: ', c.noEffect);
    said('skipped: ', c.skipped);
    expect(text).not.toContain('error:');
    expect(text).toContain('note: each ServerlessHorizontalPodAutoscaler carries shpa.dev/dry-run: "true"');
  });
});
