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
import { startFaultProxy } from '../support/dynamo-faults.js';

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
    unmapped: ['triggers[0] (prometheus) metadata.identityOwner: ours reads with the worker', 'cooldownPeriod 1: ours has one stabilization window for every scale-down, zero included; behavior.scaleDown.stabilizationWindowSeconds 15 is kept, so going to zero waits 15 s'],
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
    // In dry-run, shadowing the live autoscaler it came from (docs/migrate.md, "Shadow").
    const from = r.results.find((x) => x.objects.some((o) => o.kind === 'HorizontalPodAutoscaler'))!.source;
    const [kind, where] = from.split(' ');
    expect(shpa.metadata.annotations).toEqual({ 'shpa.dev/dry-run': 'true', 'shpa.dev/shadow-of': `${kind}/${where.split('/')[1]}` });
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

/** A ScaledObject with one CloudWatch trigger (an External metric, so it may scale to zero) and the spec fields given (SQS triggers: test/cli/import-sqs.test.ts). */
const scaledObject = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 'worker', namespace: 'jobs' },
  spec: {
    scaleTargetRef: { name: 'worker' },
    triggers: [{ type: 'aws-cloudwatch', metadata: { namespace: 'App', metricName: 'Backlog', targetMetricValue: '5', awsRegion: 'eu-west-1', ...metadata } }],
    ...spec,
  },
});

interface MappingCase {
  name: string;
  doc: unknown;
  /** Fields of the autoscaler (table form), or null when none is made. */
  hpa: Record<string, unknown> | null;
  metric?: Record<string, unknown>;
  said: string;
}

const MAPPINGS: MappingCase[] = [
  { name: 'pollingInterval within bounds', doc: scaledObject({ pollingInterval: 60 }), hpa: { spec: { syncPeriodSeconds: 60 } }, said: 'mapped: pollingInterval 60 → spec.syncPeriodSeconds 60:' },
  { name: 'pollingInterval below 5 s, clamped', doc: scaledObject({ pollingInterval: 1 }), hpa: { spec: { syncPeriodSeconds: 5 } }, said: 'mapped: pollingInterval 1 → spec.syncPeriodSeconds 5 (clamped: ours evaluates at most every 5 s)' },
  { name: 'pollingInterval above an hour, clamped', doc: scaledObject({ pollingInterval: 7200 }), hpa: { spec: { syncPeriodSeconds: 3600 } }, said: 'mapped: pollingInterval 7200 → spec.syncPeriodSeconds 3600 (clamped: ours evaluates at least every 3600 s)' },
  {
    name: 'cooldownPeriod with scale to zero: the scale-down window',
    doc: scaledObject({ cooldownPeriod: 60 }),
    hpa: { spec: { minReplicas: 0, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } },
    said: 'mapped: cooldownPeriod 60 → behavior.scaleDown.stabilizationWindowSeconds 60: going to zero waits 60 s after the last metric above zero',
  },
  {
    name: 'cooldownPeriod above the longest window, clamped',
    doc: scaledObject({ cooldownPeriod: 7200 }),
    hpa: { spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 3600 } } } },
    said: 'cooldownPeriod 7200 → behavior.scaleDown.stabilizationWindowSeconds 3600 (clamped: a window is 0 to 3600 s)',
  },
  { name: 'cooldownPeriod at minReplicaCount 2: no effect', doc: scaledObject({ cooldownPeriod: 60, minReplicaCount: 2 }), hpa: { spec: { minReplicas: 2 } }, said: 'no effect: cooldownPeriod 60: KEDA waits it only before going to zero, and minReplicas is 2' },
  {
    name: 'minMetricValue with ignoreNullValues false: no defaultValue',
    doc: { ...scaledObject({}), spec: { scaleTargetRef: { name: 'w' }, triggers: [{ type: 'aws-cloudwatch', metadata: { namespace: 'App', metricName: 'Depth', targetMetricValue: '3', minMetricValue: '1', ignoreNullValues: 'false', metricCollectionTime: '900', metricStatPeriod: '60' } }] } },
    hpa: { spec: { minReplicas: 0 } },
    metric: { lookbackPeriods: 15 },
    said: 'mapped: triggers[0] (aws-cloudwatch) ignoreNullValues false: no datapoint is a metric failure in ours too (no defaultValue)',
  },
  {
    name: 'a cron window above maxReplicas, capped',
    doc: { ...scaledObject({ maxReplicaCount: 5, minReplicaCount: 1 }), spec: { ...scaledObject({}).spec, maxReplicaCount: 5, minReplicaCount: 1, triggers: [...scaledObject({}).spec.triggers, { type: 'cron', metadata: { start: '0 8 * * *', end: '0 18 * * *', desiredReplicas: '9' } }] } },
    hpa: { metadata: { annotations: { 'shpa.dev/min-replica-schedules': JSON.stringify([{ name: 'cron-1', minReplicas: 5, start: '0 8 * * *', end: '0 18 * * *' }]) } } },
    said: 'mapped: scheduled minimum cron-1: desiredReplicas 9 capped at maxReplicas 5, as KEDA caps it',
  },
  { name: 'an autoscaling/v1 HPA without a target: upstream defaults it', doc: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a' }, maxReplicas: 3 } }, hpa: { spec: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] } }, said: 'mapped: targetCPUUtilizationPercentage unset → no metrics: cpu at 80% utilization, as upstream defaults it' },
];

describe('shpa import: single mappings', () => {
  it.each(MAPPINGS)('$name', (c) => {
    const r = importDocuments([{ value: c.doc, where: 'doc' }]);
    expect(r.problems).toEqual([]);
    const hpa = r.objects.find((o) => o.kind === 'HorizontalPodAutoscaler');
    if (c.hpa === null) expect(hpa).toBeUndefined();
    else expect(hpa).toMatchObject(c.hpa);
    if (c.metric) expect(r.objects[0].spec).toMatchObject(c.metric);
    expect(reportText(r)).toContain(c.said);
  });

  it('skips a KEDA-made HPA (owned by its ScaledObject), a ScaledJob and an HPA version it does not know; reads a typed list', () => {
    const kedaHpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'keda-hpa-worker', namespace: 'jobs', ownerReferences: [{ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', name: 'worker' }] }, spec: {} };
    const list = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscalerList', items: [{ metadata: { name: 'api', namespace: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, maxReplicas: 4 } }] };
    const r = importDocuments([
      { value: kedaHpa, where: 'a:1' },
      { value: { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledJob', metadata: { name: 'batch' } }, where: 'a:9' },
      { value: { apiVersion: 'autoscaling/v3', kind: 'HorizontalPodAutoscaler', metadata: { name: 'future' } }, where: 'a:20' },
      { value: list, where: 'b:1' },
    ]);
    expect(r.skipped).toEqual([
      'a:1: HorizontalPodAutoscaler jobs/keda-hpa-worker: made by KEDA for ScaledObject jobs/worker: import the ScaledObject instead',
      'a:9: ScaledJob default/batch: a ScaledJob starts Jobs; ours scales workloads through /scale: no equivalent',
      'a:20: HorizontalPodAutoscaler default/future: autoscaling/v3 is no version import reads (autoscaling/v2, autoscaling/v2beta2, autoscaling/v2beta1, autoscaling/v1)',
    ]);
    expect(r.objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['HorizontalPodAutoscaler web/api']);
  });
});

describe('shpa import: our own kinds', () => {
  it('are carried along as written: a ServerlessHorizontalPodAutoscaler comes out as it went in, without the dry-run annotation', () => {
    const shpa = {
      apiVersion: 'shpa.dev/v1',
      kind: 'ServerlessHorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 6,
        minReplicaSchedules: [{ name: 'day', minReplicas: 3, start: '0 8 * * *', end: '0 18 * * *' }],
      },
      status: { currentReplicas: 2 },
    };
    const r = importDocuments([{ value: shpa, where: 'f:1' }, { value: scaledObject({}), where: 'f:20' }]);
    expect(r.problems).toEqual([]);
    const out = outputObjects(r, 'kubernetes', true) as Obj[];
    const { status: _status, ...asWritten } = shpa;
    expect(out[0]).toEqual(asWritten);
    expect(out[2]).toMatchObject({ kind: 'ServerlessHorizontalPodAutoscaler', metadata: { name: 'worker', annotations: { 'shpa.dev/dry-run': 'true' } } });
  });
});

describe('shpa import: TriggerAuthentication roles', () => {
  const auth = (kind: string, namespace?: string) => ({
    apiVersion: 'keda.sh/v1alpha1',
    kind,
    metadata: { name: 'aws-role', ...(namespace ? { namespace } : {}) },
    spec: { podIdentity: { provider: 'aws', roleArn: `arn:aws:iam::123456789012:role/${kind}` } },
  });
  const withRef = (kind: string) => ({ ...scaledObject({}), spec: { ...scaledObject({}).spec, triggers: [{ ...scaledObject({}).spec.triggers[0], authenticationRef: { name: 'aws-role', kind } }] } });

  it.each([
    ['TriggerAuthentication', 'jobs'],
    ['ClusterTriggerAuthentication', undefined],
  ])("%s's podIdentity.roleArn becomes the metric object's spec.roleArn", (kind, namespace) => {
    const r = importDocuments([
      { value: auth(kind, namespace), where: 'f:1' },
      { value: withRef(kind), where: 'f:9' },
    ]);
    expect(r.problems).toEqual([]);
    expect(r.objects[0]).toMatchObject({ kind: 'CloudWatchMetric', spec: { roleArn: `arn:aws:iam::123456789012:role/${kind}` } });
    expect(r.results[0].mapped).toContain(
      `triggers[0] (aws-cloudwatch) authenticationRef (${kind} aws-role): its podIdentity.roleArn → spec.roleArn of CloudWatchMetric jobs/worker-0; that role must trust the worker function's role, not KEDA's operator`,
    );
    expect(r.results[0].unmapped).toEqual([]);
  });

  it('a TriggerAuthentication of another namespace is not the one named', () => {
    const r = importDocuments([
      { value: auth('TriggerAuthentication', 'elsewhere'), where: 'f:1' },
      { value: withRef('TriggerAuthentication'), where: 'f:9' },
    ]);
    expect(r.objects[0].spec).not.toHaveProperty('roleArn');
    expect(r.results[0].unmapped).toEqual([
      "triggers[0] (aws-cloudwatch) authenticationRef (TriggerAuthentication aws-role): ours reads with the worker function's role; give CloudWatchMetric jobs/worker-0 a spec.roleArn if that role may not",
    ]);
  });
});

describe('shpa import: all or nothing', { timeout: 120_000 }, () => {
  let db: DynamoServer;
  let dir: string;
  beforeAll(async () => {
    db = await startDynalite();
    dir = mkdtempSync(join(tmpdir(), 'shpa-import-store-'));
  });
  afterAll(async () => {
    await db?.stop();
  });

  const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const env = { PATH: process.env.PATH ?? '', HOME: dir, SHPA_CONFIG: join(dir, 'none.json'), SHPA_DYNAMODB_ENDPOINT: db.endpoint, SHPA_CLUSTER: 'prod', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: TEST_REGION };
      execFile(process.execPath, ['--import', 'tsx', join(root, 'lib', 'cli', 'main.ts'), ...args], { cwd: root, env, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('one invalid object stores none; the same files without it store every object', async () => {
    expect((await run(['init'])).code).toBe(0);
    expect((await run(['cluster', 'add', 'prod', '--cluster-region', TEST_REGION])).code).toBe(0);
    const bad = join(dir, 'bad.yaml');
    // maxReplicas 0 is refused as `shpa apply` refuses it.
    writeFileSync(bad, stringify({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'broken', namespace: 'keda-test' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 0 } }));
    const refused = await run(['import', '-f', real('keda-prometheus.yaml'), bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: .*bad.yaml:1: HorizontalPodAutoscaler keda-test\/broken → HorizontalPodAutoscaler keda-test\/broken is invalid: spec.maxReplicas/);
    expect(refused.stderr).toContain('error: 1 object(s) failed their checks: nothing was stored or applied');
    expect((await run(['get', '-A'])).stdout).not.toContain('prometheus-scaledobject');
    const stored = await run(['import', '-f', real('keda-prometheus.yaml')]);
    expect([stored.code, stored.stdout]).toEqual([0, 'prometheusmetric.shpa.dev/prometheus-scaledobject-0 created\nhorizontalpodautoscaler.autoscaling/prometheus-scaledobject created\n']);
    expect((await run(['get', '-A'])).stdout).toContain('prometheus-scaledobject');
  });

  it('a write failing mid-way says what was stored, and the same import again stores the rest', async () => {
    const proxy = await startFaultProxy(db.endpoint);
    try {
      const remove = proxy.add({ fault: 'internalError', when: (r) => r.operation !== 'GetItem' && r.operation !== 'Query' && r.body.includes('HorizontalPodAutoscaler') });
      const failed = await run(['--endpoint', proxy.endpoint, 'import', '-f', real('keda-aws-cloudwatch.yaml')]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('cloudwatchmetric.shpa.dev/aws-cloudwatch-queue-scaledobject-0 created\n');
      expect(failed.stderr).toContain(
        'note: storing horizontalpodautoscaler.autoscaling/aws-cloudwatch-queue-scaledobject failed; stored before it: cloudwatchmetric.shpa.dev/aws-cloudwatch-queue-scaledobject-0; the same import again stores the rest\n',
      );
      remove();
      const again = await run(['--endpoint', proxy.endpoint, 'import', '-f', real('keda-aws-cloudwatch.yaml')]);
      expect([again.code, again.stdout]).toEqual([0, 'cloudwatchmetric.shpa.dev/aws-cloudwatch-queue-scaledobject-0 unchanged\nhorizontalpodautoscaler.autoscaling/aws-cloudwatch-queue-scaledobject created\n']);
    } finally {
      await proxy.stop();
    }
  });
});
