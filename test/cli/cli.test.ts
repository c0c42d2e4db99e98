// Drives the built `shpa` binary as a user would, against dynalite on a loopback port.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { buildCli } from '../../lib/cli/build.js';
import type { HorizontalPodAutoscalerStatus } from '../../lib/hpa/types.js';
import { createDynamoStore, type DynamoStore } from '../../lib/store/index.js';
import type { DecisionLogEntry } from '../../lib/sync/event-log.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults.js';
import { status } from '../store/fixtures.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'shpa.js');

const HPA = (name: string, max = 10, ns?: string) => `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ${name}${ns ? `\n  namespace: ${ns}` : ''}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: ${name}
  minReplicas: 2
  maxReplicas: ${max}
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 60
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// Each test spawns the CLI many times: on a loaded machine that takes longer than the default 30 s.
describe('shpa command line', { timeout: 120_000 }, () => {
  let db: DynamoServer;
  let proxy: FaultProxy;
  let store: DynamoStore;
  let dir: string;

  const env = (extra?: Record<string, string>) => ({
    PATH: process.env.PATH ?? '',
    HOME: dir,
    SHPA_CONFIG: join(dir, 'none.json'),
    SHPA_DYNAMODB_ENDPOINT: db.endpoint,
    SHPA_CLUSTER: 'prod',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: TEST_REGION,
    ...extra,
  });

  function shpa(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        {
          env: env(opts.env),
          timeout: 20_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin!.end(opts.input ?? '');
    });
  }

  function file(name: string, text: string): string {
    const p = join(dir, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
    return p;
  }

  beforeAll(async () => {
    await buildCli();
    dir = mkdtempSync(join(tmpdir(), 'shpa-cli-'));
    db = await startDynalite();
    proxy = await startFaultProxy(db.endpoint);
    store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa' });
  });
  afterAll(async () => {
    await proxy?.stop();
    await db?.stop();
  });

  it('explains a missing table, and init creates it', async () => {
    const r = await shpa(['get']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/table "shpa" does not exist .*--table serverless-hpa-STAGE --region REGION .*SHPA_TABLE.*shpa init/);
    expect((await shpa(['init'])).stdout).toBe('table shpa created\n');
    expect((await shpa(['init'])).stdout).toBe('table shpa already exists\n');
  });

  it('one cluster registry: apply and get need a registered cluster, and a stack table refuses hand-made ones', async () => {
    const f = file('one.yaml', HPA('web'));
    const r = await shpa(['apply', '-f', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: cluster "prod" is not registered in table shpa, which has none: a deployed stack registers the clusters of its "clusters" parameter (check --table and --region); on a local table, "shpa cluster add prod --cluster-region REGION"\n',
    );
    const added = await shpa(['cluster', 'add', 'prod', '--cluster-region', 'eu-west-1']);
    expect([added.stdout, added.stderr]).toEqual(['cluster/prod created\n', 'note: the deployed functions sync only the clusters of their "clusters" parameter: add prod:eu-west-1 there too, or they never act on prod\n']);
    expect((await shpa(['cluster', 'add', 'prod', '--cluster-region', 'eu-west-1'])).stdout).toBe('cluster/prod unchanged\n');
    expect((await shpa(['cluster', 'add', 'other', '--cluster-region', 'us-west-2', '--role-arn', 'arn:aws:iam::123456789012:role/shpa', '--shards', '4', '--namespaces', 'web,jobs'])).code).toBe(0);
    // `shpa get --cluster nope` is an error, not "No resources found".
    const nope = await shpa(['get', '--cluster', 'nope']);
    expect([nope.code, nope.stderr]).toEqual([1, 'error: cluster "nope" is not registered in table shpa: the clusters are other, prod\n']);
    const stray = await shpa(['--table', 'other-table', 'cluster', 'add', 'prod', '--cluster-region', 'eu-west-1']);
    expect(stray.stderr.split('\n')[0]).toBe(`note: created table other-table at ${db.endpoint}; a deployed stack's table is serverless-hpa-STAGE (--table, --region)`);
    const list = await shpa(['cluster', 'list']);
    expect(list.stdout).toMatch(/^NAME\s+REGION\s+SHARDS\s+NAMESPACES\s+ROLE\s+ENDPOINT\s+SOURCE\n/);
    expect(list.stdout).toMatch(/other\s+us-west-2\s+4\s+web,jobs\s+arn:aws:iam::123456789012:role\/shpa\s+<eks>\s+shpa cluster add/);
    expect((await shpa(['cluster', 'remove', 'other'])).stdout).toBe('cluster/other removed\n');
    const gone = await shpa(['cluster', 'remove', 'other']);
    expect([gone.code, gone.stderr]).toEqual([1, 'error: cluster "other" not found: see "shpa cluster list"\n']);
    // A deployed stack's table: its clusters come from the stack's parameter (the dispatcher mirrors them).
    await store.putCluster({ name: 'stacked', region: 'eu-west-1', shards: 1, managedBy: 'stack' }, new Date());
    const refused = await shpa(['cluster', 'add', 'extra', '--cluster-region', 'eu-west-1']);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      'error: table shpa belongs to a deployed stack, whose clusters (stacked) come from its "clusters" parameter: add extra there and redeploy; "shpa cluster add" is for local tables\n',
    ]);
    expect((await shpa(['cluster', 'remove', 'stacked'])).stderr).toBe('error: cluster stacked comes from the deployed stack\'s "clusters" parameter: remove it there and redeploy\n');
    await store.removeCluster('stacked');
  });

  it("lease get and clear: a shard's cycle item as stored, and a lease cleared by hand", async () => {
    await store.doc.send(new PutCommand({ TableName: 'shpa', Item: { pk: 'shard#prod', sk: 'cycle', owner: 'stuck-worker', exp: 9e15, tick: Date.parse('2026-01-01T00:00:15Z'), at: 'oops' } }));
    const got = await shpa(['lease', 'get']);
    expect(got.stderr).toBe('');
    expect(got.stdout).toMatch(/^SHARD\s+HOLDER\s+EXPIRES\s+LAST TICK\s+MARKER\nprod\s+stuck-worker\s+invalid: 9000000000000000\s+2026-01-01T00:00:15.000Z\s+invalid: "oops"\n$/);
    expect((await shpa(['lease', 'clear', 'prod'])).stdout).toBe('lease of shard prod cleared\n');
    expect((await shpa(['lease', 'get', 'prod'])).stdout).toMatch(/prod\s+<free>\s+<none>/);
    expect((await shpa(['lease', 'clear', 'prod/4of4'])).stderr).toBe('error: shard "prod/4of4": index 4 is not below 4\n');
  });

  it('apply: created, unchanged, configured, from a file, a directory and stdin', async () => {
    const f = file('web.yaml', HPA('web'));
    expect(await shpa(['apply', '-f', f])).toMatchObject({ code: 0, stdout: 'horizontalpodautoscaler.autoscaling/web created\n' });
    expect((await shpa(['apply', '-f', f])).stdout).toBe('horizontalpodautoscaler.autoscaling/web unchanged\n');
    file('dir/a.yaml', `${HPA('web', 12)}---\n${HPA('api')}`);
    file('dir/b.json', JSON.stringify({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'jobs', namespace: 'batch' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'jobs' }, maxReplicas: 3 } }));
    file('dir/ignored.txt', 'not yaml');
    const r = await shpa(['apply', '-f', join(dir, 'dir')]);
    expect(r.stdout).toBe(
      ['horizontalpodautoscaler.autoscaling/web configured', 'horizontalpodautoscaler.autoscaling/api created', 'horizontalpodautoscaler.autoscaling/jobs created', ''].join('\n'),
    );
    expect((await shpa(['apply', '-f', '-'], { input: HPA('api') })).stdout).toBe('horizontalpodautoscaler.autoscaling/api unchanged\n');
  });

  it('an invalid document: every error with field and file:line, and nothing of that file applied', async () => {
    const text = `${HPA('fresh')}---\n${HPA('broken', 0)}`;
    const f = file('bad.yaml', text);
    const r = await shpa(['apply', '-f', f]);
    expect(r.code).toBe(1);
    const line = text.split('\n').findIndex((l, i) => i > 20 && l.includes('maxReplicas: 0')) + 1;
    expect(r.stderr).toContain(`${f}:${line}: spec.maxReplicas`);
    expect(r.stderr).toContain(`error: ${f}: nothing applied from this file`);
    expect(r.stdout).toBe('');
    expect(await store.getSpec('prod', 'HorizontalPodAutoscaler', 'default', 'fresh')).toBeUndefined();
    const syntax = await shpa(['apply', '-f', file('syntax.yaml', 'kind: [unclosed\n')]);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr.split('\n')[0]).toMatch(/syntax\.yaml:2:1: Flow sequence in block collection must be sufficiently indented and end with a \]$/);
    const json = await shpa(['apply', '-f', file('cut.json', '{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"maxReplicas": 3')]);
    expect(json.stderr.split('\n').filter((l) => l.includes('cut.json:'))).toEqual([expect.stringMatching(/cut\.json:1:\d+: Flow map [^:]*[^:]$/), expect.stringContaining('nothing applied')]);
    const cwm = await shpa(['apply', '-f', file('cwm.yaml', 'apiVersion: shpa.dev/v1\nkind: CloudWatchMetric\nmetadata:\n  name: q\nspec:\n  queries:\n  - id: e1\n    expression:\n')]);
    expect(cwm.stderr).toContain('cwm.yaml:8: spec.queries[0].expression: Required value: exactly one of metricStat or expression must be set\n');
    expect(cwm.stderr).not.toContain('null');
    const kind = await shpa(['apply', '-f', file('kind.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n')]);
    expect(kind.stderr).toContain('kind.yaml:2: kind: Unsupported value');
    const object = await shpa(['apply', '-f', file('object.yaml', 'apiVersion: shpa.dev/v1\nkind: ServerlessHorizontalPodAutoscaler\nmetadata:\n  name: x\n')]);
    expect(object.stderr).toContain('object.yaml:2: kind: Unsupported value: "ServerlessHorizontalPodAutoscaler": supported values: "HorizontalPodAutoscaler", "CloudWatchMetric", "PrometheusMetric", "SQSQueueMetric"; this is the Kubernetes object form');
    expect(object.stderr).toContain('for the table write apiVersion: autoscaling/v2 and kind: HorizontalPodAutoscaler, the spec stays as it is');
  });

  /** Writes an autoscaler's state as the sync would: status, history and its decision log. */
  async function writeState(namespace: string, name: string, st: HorizontalPodAutoscalerStatus, log: DecisionLogEntry[], history?: Parameters<DynamoStore['saveState']>[1]['history']) {
    const rec = await store.getAutoscaler('prod', namespace, name);
    if (!rec) throw new Error(`no autoscaler ${namespace}/${name}`);
    await store.saveState(rec, { status: st, history: history ?? rec.history, log }, new Date(), { markerMs: Date.now() });
  }

  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  const rescale = (from: number, to: number, at: number, reason: string, limit?: string): DecisionLogEntry => ({
    type: 'Normal',
    reason: 'SuccessfulRescale',
    message: `New size: ${to}; reason: ${reason}`,
    firstTimestamp: ago(at),
    lastTimestamp: ago(at),
    count: 1,
    from,
    to,
    ...(limit ? { limit } : {}),
  });

  it('get and describe show status written by the sync; apply never touches it', async () => {
    const st = { ...status(3, 72), desiredReplicas: 4, lastScaleTime: ago(120_000) };
    const history = { recommendations: [{ replicas: 4, timestamp: new Date().toISOString() }], scaleUpEvents: [{ timestamp: st.lastScaleTime, change: 1 }], scaleDownEvents: [] };
    await writeState('default', 'web', st, [rescale(3, 4, 120_000, 'cpu resource utilization (percentage of request) above target')], history);
    expect((await shpa(['apply', '-f', file('web2.yaml', HPA('web', 15))])).stdout).toContain('web configured');

    const get = await shpa(['get']);
    expect(get.code).toBe(0);
    const [header, ...rows] = get.stdout.trimEnd().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(rows.map((r) => r.split(/\s{2,}/).slice(0, 6))).toEqual([
      ['api', 'Deployment/api', 'cpu: <unknown>/60%', '2', '10', '<unknown>'],
      ['web', 'Deployment/web', 'cpu: 72%/60%', '2', '15', '3'],
    ]);
    const all = await shpa(['get', '-A']);
    expect(all.stdout).toMatch(/^NAMESPACE\s+NAME/);
    expect(all.stdout).toMatch(/batch\s+jobs\s+Deployment\/jobs\s+cpu: <unknown>\/80%\s+1\s+3/);
    const wide = await shpa(['get', 'web', '-o', 'wide']);
    expect(wide.stdout).toMatch(/DESIRED\s+LAST SCALE\s+CONDITIONS/);
    expect(wide.stdout).toMatch(/\s4\s+2m(\d+s)?\s+AbleToScale,ScalingActive/);
    const json = JSON.parse((await shpa(['get', 'web', '-o', 'json'])).stdout) as { spec: { maxReplicas: number }; status: { currentReplicas: number } };
    expect([json.spec.maxReplicas, json.status.currentReplicas]).toEqual([15, 3]);
    expect((await shpa(['get', '-o', 'yaml'])).stdout).toMatch(/^apiVersion: v1\nkind: List\nitems:/);

    const d = await shpa(['describe', 'web']);
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/Reference:\s+Deployment\/web/);
    expect(d.stdout).toMatch(/resource cpu on pods  \(as a percentage of request\):\s+72% \(360m\) \/ 60%/);
    expect(d.stdout).toMatch(/Min replicas:\s+2\nMax replicas:\s+15/);
    expect(d.stdout).toMatch(/Deployment pods:\s+3 current \/ 4 desired/);
    expect(d.stdout).toMatch(/ScalingActive\s+True\s+ValidMetricFound/);
    expect(d.stdout).toMatch(/Normal\s+SuccessfulRescale\s+2m(\d+s)?\s+serverless-hpa\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target \(3 → 4\)\n/);
  });

  it('describe shows the decision log as kubectl shows Events: every rescale, repeats as (xN over M), oldest first', async () => {
    const M = 60_000;
    const log: DecisionLogEntry[] = [
      rescale(2, 4, 50 * M, 'cpu resource utilization (percentage of request) above target'),
      rescale(4, 16, 40 * M, 'cpu resource utilization (percentage of request) above target', 'ScaleUpLimit'),
      rescale(16, 20, 30 * M, 'cpu resource utilization (percentage of request) above target', 'TooManyReplicas'),
      {
        type: 'Warning',
        reason: 'FailedGetResourceMetric',
        message: 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
        firstTimestamp: ago(28 * M),
        lastTimestamp: ago(13 * M),
        count: 5,
      },
      rescale(20, 2, 11 * M, 'All metrics below target'),
    ];
    await writeState('default', 'api', { ...status(2, 40), desiredReplicas: 2 }, log);
    const d = await shpa(['describe', 'hpa/api']);
    expect(d.code).toBe(0);
    const events = d.stdout.slice(d.stdout.indexOf('Events:\n')).trimEnd().split('\n');
    expect(events.slice(1, 3).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['Type', 'Reason', 'Age', 'From', 'Message'],
      ['----', '------', '----', '----', '-------'],
    ]);
    expect(events.slice(3).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['Normal', 'SuccessfulRescale', '50m', 'serverless-hpa', 'New size: 4; reason: cpu resource utilization (percentage of request) above target (2 → 4)'],
      ['Normal', 'SuccessfulRescale', '40m', 'serverless-hpa', 'New size: 16; reason: cpu resource utilization (percentage of request) above target (4 → 16, limited by ScaleUpLimit)'],
      ['Normal', 'SuccessfulRescale', '30m', 'serverless-hpa', 'New size: 20; reason: cpu resource utilization (percentage of request) above target (16 → 20, limited by TooManyReplicas)'],
      ['Warning', 'FailedGetResourceMetric', '13m (x5 over 28m)', 'serverless-hpa', 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API'],
      ['Normal', 'SuccessfulRescale', '11m', 'serverless-hpa', 'New size: 2; reason: All metrics below target (20 → 2)'],
    ]);
    // An autoscaler without events: kubectl's "Events: <none>" line.
    expect((await shpa(['describe', 'jobs', '-n', 'batch'])).stdout).toMatch(/\nEvents:\s+<none>\n$/);

    // shpa events: the namespace's events, as kubectl events lists them.
    const ev = await shpa(['events']);
    expect(ev.code).toBe(0);
    const lines = ev.stdout.trimEnd().split('\n').map((l) => l.split(/\s{2,}/));
    expect(lines[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(lines.slice(1).map((l) => [l[0], l[2], l[3]])).toEqual([
      ['50m', 'SuccessfulRescale', 'HorizontalPodAutoscaler/api'],
      ['40m', 'SuccessfulRescale', 'HorizontalPodAutoscaler/api'],
      ['30m', 'SuccessfulRescale', 'HorizontalPodAutoscaler/api'],
      ['13m (x5 over 28m)', 'FailedGetResourceMetric', 'HorizontalPodAutoscaler/api'],
      ['11m', 'SuccessfulRescale', 'HorizontalPodAutoscaler/api'],
      [expect.stringMatching(/^2m/), 'SuccessfulRescale', 'HorizontalPodAutoscaler/web'],
    ]);
    const warnings = await shpa(['events', '--types', 'Warning', '--no-headers', '--for', 'hpa/api']);
    expect(warnings.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(warnings.stdout).toMatch(/^13m \(x5 over 28m\)\s+Warning\s+FailedGetResourceMetric\s+HorizontalPodAutoscaler\/api\s+failed to get cpu/);
    expect((await shpa(['events', '-A'])).stdout).toMatch(/^NAMESPACE\s+LAST SEEN/);
    expect(await shpa(['events', '-n', 'batch'])).toMatchObject({ code: 0, stdout: '', stderr: 'No events found in batch namespace.\n' });
  });

  it('describe NAME finds a ServerlessHorizontalPodAutoscaler object too, from the state the sync keeps of it', async () => {
    const spec = { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'queue' }, minReplicas: 1, maxReplicas: 5 };
    const hpa = { apiVersion: 'autoscaling/v2' as const, kind: 'HorizontalPodAutoscaler' as const, metadata: { name: 'queue', namespace: 'kube', uid: 'uid-queue', generation: 2 }, spec };
    const record = { cluster: 'prod', namespace: 'kube', name: 'queue', source: 'cluster' as const, hpa, specVersion: '2', history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, version: 0, createdAt: ago(60_000), updatedAt: ago(60_000) };
    await store.saveState(record, { status: { ...status(2, 50), observedGeneration: 2 }, history: record.history, log: [] }, new Date(), { markerMs: Date.now() });
    const d = await shpa(['describe', 'hpa', 'queue', '-n', 'kube']);
    expect(d).toMatchObject({ code: 0, stderr: '' });
    expect(d.stdout).toMatch(/^Name:\s+queue\nNamespace:\s+kube\n/);
    expect(d.stdout).toMatch(/\nDeployment pods:\s+2 current \/ 2 desired\n/);
  });

  it('unknown autoscaler: one line and a non-zero exit', async () => {
    for (const args of [['get', 'nope'], ['describe', 'nope'], ['delete', 'nope']]) {
      const r = await shpa(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('error: horizontalpodautoscaler.autoscaling "nope" not found in namespace "default" of cluster "prod": list them with "shpa get -A"\n');
    }
    // kubectl says so on stderr, so that -o name | xargs reads nothing.
    expect(await shpa(['get', '-n', 'empty'])).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in empty namespace.\n' });
  });

  it('kubectl habits: get TYPE [NAME], describe TYPE/NAME, delete several names', async () => {
    const byAlias = await shpa(['get', 'hpa']);
    expect(byAlias.code).toBe(0);
    expect(byAlias.stdout.split('\n').map((l) => l.split(' ')[0])).toEqual(['NAME', 'api', 'web', '']);
    expect((await shpa(['get', 'horizontalpodautoscalers', 'web'])).stdout).toMatch(/^NAME.*\nweb\s/);
    expect((await shpa(['get', 'hpa/web'])).stdout.trimEnd().split('\n')).toHaveLength(2);
    expect((await shpa(['get', 'cloudwatchmetric'])).stderr).toBe('No resources found in default namespace.\n');
    const cwm = 'apiVersion: shpa.dev/v1\nkind: CloudWatchMetric\nmetadata:\n  name: depth\n  labels: {team: a}\nspec:\n  queries:\n  - id: m1\n    metricStat:\n      metric: {namespace: AWS/SQS, metricName: ApproximateNumberOfMessagesVisible}\n      period: 60\n      stat: Sum\n';
    expect((await shpa(['apply', '-f', file('depth.yaml', cwm)])).code).toBe(0);
    expect((await shpa(['get', 'cloudwatchmetrics'])).stdout).toMatch(/^NAME\s+QUERIES\s+AGE\ndepth\s+1\s/);
    for (const args of [['describe', 'cloudwatchmetric/depth'], ['describe', 'cwm', 'depth']]) {
      const d = await shpa(args);
      expect(d.code).toBe(0);
      expect(d.stdout).toMatch(/^Name:\s+depth\nNamespace:\s+default\nCluster:\s+prod\nLabels:\s+team=a\n/);
      expect(d.stdout).toMatch(/Kind:\s+CloudWatchMetric\n/);
      expect(d.stdout).toContain('Spec:\n  queries:\n    - id: m1\n');
    }
    expect((await shpa(['describe', 'cwm/nope'])).stderr).toBe('error: cloudwatchmetric.shpa.dev "nope" not found in namespace "default" of cluster "prod": list them with "shpa get -A"\n');
    expect((await shpa(['describe', 'hpa', 'web'])).stdout).toMatch(/^Name:\s+web\n/);

    const several = await shpa(['delete', 'api', 'nope', 'cwm/depth']);
    expect(several.code).toBe(1);
    expect(several.stdout).toBe('horizontalpodautoscaler.autoscaling "api" deleted\ncloudwatchmetric.shpa.dev "depth" deleted\n');
    expect(several.stderr).toBe('error: horizontalpodautoscaler.autoscaling "nope" not found in namespace "default" of cluster "prod": list them with "shpa get -A"\n');
    expect((await shpa(['get', 'api'])).code).toBe(1);
    expect((await shpa(['get', 'cwm', 'depth'])).code).toBe(1);
    expect((await shpa(['delete', 'hpa'])).stderr).toBe('error: no name given: shpa delete hpa NAME..., or shpa delete -f FILE\n');
  });

  it('cluster remove refuses while autoscalers remain, unless --force', async () => {
    const count = (await store.loadCluster('prod')).autoscalers.length;
    expect(count).toBeGreaterThan(0);
    const r = await shpa(['cluster', 'remove', 'prod']);
    expect([r.code, r.stderr]).toEqual([1, `error: cluster prod still has ${count} autoscalers and 0 metric objects (CloudWatchMetric, PrometheusMetric, SQSQueueMetric): delete them first, or pass --force\n`]);
    expect(await store.getCluster('prod')).toBeDefined();
    await shpa(['cluster', 'add', 'empty', '--cluster-region', 'eu-west-1']);
    expect((await shpa(['cluster', 'remove', 'empty'])).stdout).toBe('cluster/empty removed\n');
    await shpa(['cluster', 'add', 'spare', '--cluster-region', 'eu-west-1']);
    expect((await shpa(['apply', '-f', file('spare.yaml', HPA('spare'))], { env: { SHPA_CLUSTER: 'spare' } })).code).toBe(0);
    expect((await shpa(['cluster', 'remove', 'spare'])).code).toBe(1);
    expect((await shpa(['cluster', 'remove', 'spare', '--force'])).stdout).toBe('cluster/spare removed\n');
  });

  it('delete takes KIND/NAME with one slash only, and never deletes another name', async () => {
    const r = await shpa(['delete', 'hpa/web/x']);
    expect([r.code, r.stderr]).toEqual([1, 'error: "hpa/web/x": arguments in resource/name form may not have more than one slash\n']);
    expect((await shpa(['get', 'web'])).code).toBe(0);
    const kind = await shpa(['delete', 'pod/web']);
    expect([kind.code, kind.stderr]).toEqual([1, 'error: the server doesn\'t have a resource type "pod": shpa serves only horizontalpodautoscalers (hpa), cloudwatchmetrics (cwm), prometheusmetrics (pm) and sqsqueuemetrics (sqm)\n']);
  });

  it('bad input to cluster add, a broken config file, a bad option: one line with the fix', async () => {
    const add = (...args: string[]) => shpa(['cluster', 'add', 'edge', '--cluster-region', 'eu-west-1', ...args]);
    const noCa = await add('--api-endpoint', 'https://127.0.0.1:6443');
    expect([noCa.code, noCa.stderr]).toEqual([1, 'error: --api-endpoint and --ca-file go together: pass both, or neither to use eks:DescribeCluster\n']);
    const missing = await add('--api-endpoint', 'https://127.0.0.1:6443', '--ca-file', join(dir, 'nope.pem'));
    expect([missing.code, missing.stderr]).toEqual([1, `error: --ca-file ${join(dir, 'nope.pem')}: cannot read it (ENOENT): pass the API server's CA bundle (PEM)\n`]);
    const notPem = await add('--api-endpoint', 'https://127.0.0.1:6443', '--ca-file', file('ca.txt', 'hello'));
    expect(notPem.stderr).toBe(`error: --ca-file ${join(dir, 'ca.txt')} holds no PEM certificate (-----BEGIN CERTIFICATE-----)\n`);
    const pem = file('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const plain = await add('--api-endpoint', 'http://127.0.0.1:6443', '--ca-file', pem);
    expect(plain.stderr).toBe('error: --api-endpoint "http://127.0.0.1:6443" is not an https URL (https://HOST[:PORT])\n');
    expect((await shpa(['cluster', 'list'])).stdout).not.toContain('edge');
    const badName = await shpa(['cluster', 'add', 'Bad_Name!', '--cluster-region', 'eu-west-1']);
    expect([badName.code, badName.stderr]).toEqual([1, 'error: cluster name "Bad_Name!" is not an EKS cluster name: 1 to 100 letters, digits, - and _, starting with a letter or digit\n']);
    expect((await shpa(['cluster', 'add', 'x'.repeat(101), '--cluster-region', 'eu-west-1'])).code).toBe(1);
    const badRegion = await add('--cluster-region', 'nowhere-1');
    expect([badRegion.code, badRegion.stderr]).toEqual([1, 'error: --cluster-region "nowhere-1" is not an AWS region (such as us-east-1)\n']);
    const badEndpoint = await shpa(['--endpoint', 'not-a-url', 'get']);
    expect([badEndpoint.code, badEndpoint.stderr]).toEqual([
      1,
      'error: --endpoint "not-a-url" is not a URL: give the DynamoDB endpoint as http(s)://HOST[:PORT] (e.g. http://127.0.0.1:8000), or leave it unset for AWS\'s regional endpoint\n',
    ]);
    expect((await shpa(['get'], { env: { SHPA_DYNAMODB_ENDPOINT: 'localhost:8000' } })).stderr).toMatch(/^error: SHPA_DYNAMODB_ENDPOINT "localhost:8000" is not a URL/);

    for (const text of ['null', '[]', '{"cluster": 5}']) {
      const config = file('config.json', text);
      const r = await shpa(['get'], { env: { SHPA_CONFIG: config } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: ${config.replace(/[.\\/]/g, '\\$&')}.* (JSON object|must be a string)`));
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    // A misspelt key would silently select another table: it is an error that names it.
    const typo = file('typo.json', '{"tabel": "serverless-hpa-prod"}');
    expect(await shpa(['get'], { env: { SHPA_CONFIG: typo } })).toMatchObject({
      code: 1,
      stderr: `error: ${typo}: unknown key "tabel" (did you mean "table"?): the keys are "cluster", "endpoint", "table", "region"\n`,
    });

    const option = await shpa(['get', '--bogus']);
    expect([option.code, option.stderr]).toEqual([1, "error: unknown option '--bogus'\n(add --help for usage)\n"]);
  });

  it('no cluster selected, DynamoDB unreachable, wrong credentials: one line with the fix', async () => {
    const none = await shpa(['get'], { env: { SHPA_CLUSTER: '' } });
    expect([none.code, none.stderr]).toEqual([1, 'error: no cluster selected: pass --cluster NAME or set SHPA_CLUSTER (see "shpa cluster list")\n']);
    const down = await shpa(['--endpoint', 'http://127.0.0.1:9', 'get']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: DynamoDB is unreachable at http:\/\/127\.0\.0\.1:9 .*--endpoint/);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    proxy.requireAccessKey = 'test';
    const creds = await shpa(['--endpoint', proxy.endpoint, 'get'], { env: { AWS_ACCESS_KEY_ID: 'wrong' } });
    expect(creds.code).toBe(1);
    expect(creds.stderr).toMatch(/^error: DynamoDB at .* rejected the AWS credentials \(UnrecognizedClientException\): set valid credentials/);
    expect((await shpa(['--endpoint', proxy.endpoint, 'get'])).code).toBe(0);
  });
  const SHOP = (name: string, target = name, extra = '') => `${HPA(name, 10, 'shop').replace(`name: ${name}\n  minReplicas`, `name: ${target}\n  minReplicas`)}${extra}`;

  it('kubectl habits: -o name, -o jsonpath, -l, --no-headers, several kinds, partly found, other types, describe all', async () => {
    const labelled = SHOP('cart').replace('  namespace: shop', '  namespace: shop\n  labels:\n    team: pay');
    const cwm = 'apiVersion: shpa.dev/v1\nkind: CloudWatchMetric\nmetadata:\n  name: orders\n  namespace: shop\nspec:\n  queries:\n  - id: m1\n    metricStat:\n      metric: {namespace: AWS/SQS, metricName: ApproximateNumberOfMessagesVisible}\n      period: 60\n      stat: Sum\n';
    expect((await shpa(['apply', '-f', file('shop.yaml', `${labelled}---\n${SHOP('front')}---\n${cwm}`)])).code).toBe(0);

    expect((await shpa(['get', '-n', 'shop', '-o', 'name'])).stdout).toBe('horizontalpodautoscaler.autoscaling/cart\nhorizontalpodautoscaler.autoscaling/front\n');
    const jp = await shpa(['get', '-n', 'shop', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.maxReplicas}{"\\n"}{end}']);
    expect(jp.stdout).toBe('cart=10\nfront=10\n');
    expect((await shpa(['get', 'cart', '-n', 'shop', '-o', 'jsonpath={.spec.scaleTargetRef.name}'])).stdout).toBe('cart');
    expect((await shpa(['get', '-n', 'shop', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout).toBe('cart front');
    expect((await shpa(['get', '-n', 'shop', '-l', 'team=pay', '--no-headers'])).stdout).toMatch(/^cart\s+Deployment\/cart\s+cpu: <unknown>\/60%\s+2\s+10\s+<unknown>\s+\d+s\n$/);
    expect((await shpa(['get', '-n', 'shop', '-l', 'team!=pay', '-o', 'name'])).stdout).toBe('horizontalpodautoscaler.autoscaling/front\n');
    expect((await shpa(['get', '-l', 'team in (pay', '-n', 'shop'])).stderr).toMatch(/^error: -l "team in \(pay": .*write a selector such as app=web/);

    const kinds = await shpa(['get', 'hpa,cwm', '-A']);
    const [hpas, cwms] = kinds.stdout.split('\n\n');
    expect(hpas).toMatch(/^NAMESPACE\s+NAME\s+REFERENCE/);
    expect(hpas).toMatch(/\nshop\s+horizontalpodautoscaler\.autoscaling\/cart\s+Deployment\/cart/);
    expect(cwms).toMatch(/^NAMESPACE\s+NAME\s+QUERIES\s+AGE\nshop\s+cloudwatchmetric\.shpa\.dev\/orders\s+1\s/);

    const partly = await shpa(['get', 'hpa/cart', 'hpa/nope', '-n', 'shop']);
    expect(partly.code).toBe(1);
    expect(partly.stdout).toMatch(/^NAME\s+REFERENCE.*\ncart\s+Deployment\/cart/);
    expect(partly.stderr).toBe('error: horizontalpodautoscaler.autoscaling "nope" not found in namespace "shop" of cluster "prod": list them with "shpa get -A"\n');

    for (const type of ['deploy', 'pods']) {
      const r = await shpa(['get', type]);
      expect([r.code, r.stderr]).toEqual([
        1,
        `error: the server doesn't have a resource type "${type}": shpa serves only horizontalpodautoscalers (hpa), cloudwatchmetrics (cwm), prometheusmetrics (pm) and sqsqueuemetrics (sqm) (an autoscaler named "${type}" is hpa/${type})\n`,
      ]);
    }
    expect((await shpa(['get', '-o', 'custom-columns=NAME:.metadata.name'])).stderr).toMatch(/^error: unknown output format "custom-columns=NAME:.metadata.name" \(not supported by shpa, see docs\/cli.md\)/);

    // describe without names: every autoscaler of the namespace, as kubectl describe hpa.
    const all = await shpa(['describe', '-n', 'shop']);
    expect(all.stdout.match(/^Name:\s+(\S+)$/gm)).toEqual(['Name:                                                 cart', 'Name:                                                 front']);
    expect((await shpa(['describe', 'cwm', '-n', 'shop'])).stdout).toMatch(/^Name:\s+orders\n/);
    expect((await shpa(['describe', '-n', 'shop', '-l', 'team=pay'])).stdout.match(/^Name:/gm)).toHaveLength(1);
  });

  it('warns, as kubectl prints server warnings, about what upstream accepts but cannot work; the object is applied', async () => {
    const text = `${SHOP('cart2', 'cart')}  - type: Resource
    resource:
      name: cpus
      target:
        type: Utilization
        averageUtilization: 60
  - type: External
    external:
      metric:
        name: ordres
        selector:
          matchExpressions:
          - key: queue
            operator: Equals
            values: [a]
      target:
        type: AverageValue
        averageValue: "30"
`;
    const r = await shpa(['apply', '-f', file('warn.yaml', text)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('horizontalpodautoscaler.autoscaling/cart2 created\n');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'Warning: spec.metrics[1].resource.name: "cpus" is not a resource the metrics API (metrics.k8s.io) reports: write cpu; as written, the sync reports <unknown> for this metric (FailedGetResourceMetric)',
      'Warning: spec.metrics[2].external.metric.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator: write In, NotIn, Exists or DoesNotExist: accepted, as upstream accepts it, but the sync cannot read this metric (ScalingActive False) until it is fixed',
      'Warning: spec.scaleTargetRef: Deployment/cart is also the target of horizontalpodautoscaler "cart" in namespace "shop": the controller then scales neither (ScalingActive False, AmbiguousSelector); keep one autoscaler per workload',
      'Warning: spec.metrics[2].external.metric.name: no CloudWatchMetric, PrometheusMetric or SQSQueueMetric "ordres" in namespace "shop", stored or in this apply (metric objects in "shop": orders): the sync will ask the cluster\'s external metrics API (external.metrics.k8s.io) for it; apply one of those kinds named "ordres" to read its source',
    ]);
    expect(await store.getSpec('prod', 'HorizontalPodAutoscaler', 'shop', 'cart2')).toBeDefined();
    // CPU in capitals: the same warning, with the fix.
    const upper = await shpa(['apply', '-f', file('upper.yaml', SHOP('upper').replace('name: cpu', 'name: CPU'))]);
    expect(upper.stderr).toContain('Warning: spec.metrics[0].resource.name: "CPU" is not a resource the metrics API (metrics.k8s.io) reports: write cpu;');
    // A CloudWatchMetric in the same apply counts, in another file too.
    const withCwm = await shpa(['apply', '-f', file('pair/a.yaml', SHOP('queue').replace(/  metrics:[\s\S]*$/, '  metrics:\n  - type: External\n    external:\n      metric:\n        name: depth\n      target:\n        type: Value\n        value: "5"\n')), '-f', file('pair/b.yaml', 'apiVersion: shpa.dev/v1\nkind: CloudWatchMetric\nmetadata: {name: depth, namespace: shop}\nspec:\n  queries:\n  - id: m1\n    metricStat:\n      metric: {namespace: AWS/SQS, metricName: X}\n      period: 60\n      stat: Sum\n')]);
    expect(withCwm).toMatchObject({ code: 0, stderr: '' });
  });

  it('errors name the file, the line and what to write instead', async () => {
    const value = SHOP('v').replace('type: Utilization\n        averageUtilization: 60', 'type: Value\n        value: 500m');
    const r1 = await shpa(['apply', '-f', file('value.yaml', value)]);
    const line = value.split('\n').findIndex((l) => l.includes('target:')) + 1;
    expect(r1.stderr.split('\n')[0]).toBe(
      `${join(dir, 'value.yaml')}:${line}: spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization (a Resource metric does not take type Value: write type: Utilization with averageUtilization, or type: AverageValue with averageValue)`,
    );
    const object = SHOP('o').replace(/  metrics:[\s\S]*$/, '  metrics:\n  - type: Object\n    object:\n      describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main}\n      metric: {name: hits}\n      target:\n        type: Utilization\n        averageUtilization: 50\n');
    const objectLine = object.split('\n').findIndex((l) => l.includes('target:')) + 1;
    expect((await shpa(['apply', '-f', file('object.yaml', object)])).stderr).toContain(
      `object.yaml:${objectLine}: spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue (a Object metric does not take type Utilization: write type: Value with value, or type: AverageValue with averageValue)`,
    );
    const list = await shpa(['apply', '-f', file('list.yaml', `- ${HPA('l').trimEnd().split('\n').join('\n  ')}\n`)]);
    expect(list.stderr).toBe(
      `${join(dir, 'list.yaml')}:1: the document is a list, not an object: write each object as its own document (separate them with a line "---"), or wrap them in "apiVersion: v1, kind: List, items: [...]"\nerror: ${join(dir, 'list.yaml')}: nothing applied from this file\n`,
    );
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`)].join('\n');
    expect((await shpa(['apply', '-f', file('bomb.yaml', bomb)])).stderr.split('\n')[0]).toBe(
      `${join(dir, 'bomb.yaml')}:1: Excessive alias count indicates a resource exhaustion attack: this document expands YAML aliases (*name) too often; write the values out instead`,
    );
    // kubectl's List (what get -o yaml prints) applies item by item.
    const exported = (await shpa(['get', 'hpa/front', '-n', 'shop', '-o', 'yaml'])).stdout;
    const asList = `apiVersion: v1\nkind: List\nitems:\n- ${exported.trimEnd().split('\n').join('\n  ')}\n`;
    expect((await shpa(['apply', '-f', '-'], { input: asList })).stdout).toBe('horizontalpodautoscaler.autoscaling/front unchanged\n');
  });

  it('--dry-run=client|server, delete -f, diff -f, autoscale', async () => {
    const f = file('dry.yaml', SHOP('dry'));
    expect((await shpa(['apply', '-f', f, '--dry-run=client'])).stdout).toBe('horizontalpodautoscaler.autoscaling/dry created (dry run)\n');
    expect((await shpa(['apply', '-f', f, '--dry-run=server'])).stdout).toBe('horizontalpodautoscaler.autoscaling/dry created (server dry run)\n');
    expect(await store.getSpec('prod', 'HorizontalPodAutoscaler', 'shop', 'dry')).toBeUndefined();
    expect((await shpa(['apply', '-f', f, '--dry-run=always'])).stderr).toMatch(/option '--dry-run \[strategy\]' argument 'always' is invalid. must be "none", "server", or "client"/);

    // diff: nothing stored yet, so everything is new; exit code 1 when there are differences.
    const d1 = await shpa(['diff', '-f', f]);
    expect(d1.code).toBe(1);
    expect(d1.stdout).toMatch(/^diff -u -N \S+\/LIVE-\w+\/autoscaling\.v2\.HorizontalPodAutoscaler\.shop\.dry \S+\/MERGED-\w+\/autoscaling\.v2\.HorizontalPodAutoscaler\.shop\.dry\n/);
    expect(d1.stdout).toContain('+  name: dry\n');
    expect((await shpa(['apply', '-f', f])).stdout).toBe('horizontalpodautoscaler.autoscaling/dry created\n');
    expect(await shpa(['diff', '-f', f])).toMatchObject({ code: 0, stdout: '' });
    const d2 = await shpa(['diff', '-f', file('dry2.yaml', SHOP('dry').replace('maxReplicas: 10', 'maxReplicas: 12'))]);
    expect(d2.code).toBe(1);
    expect(d2.stdout).toMatch(/\n-  generation: 1\n\+  generation: 2\n/);
    expect(d2.stdout).toMatch(/\n-  maxReplicas: 10\n\+  maxReplicas: 12\n/);
    expect((await shpa(['diff', '-f', file('bad.yaml', SHOP('dry').replace('maxReplicas: 10', 'maxReplicas: 0'))])).code).toBe(2);

    expect((await shpa(['delete', '-f', f, '--dry-run=server'])).stdout).toBe('horizontalpodautoscaler.autoscaling "dry" deleted (server dry run)\n');
    expect((await shpa(['delete', '-f', f])).stdout).toBe('horizontalpodautoscaler.autoscaling "dry" deleted\n');
    const again = await shpa(['delete', '-f', f]);
    expect([again.code, again.stderr]).toEqual([1, 'error: horizontalpodautoscaler.autoscaling "dry" not found in namespace "shop" of cluster "prod": list them with "shpa get -A"\n']);
    expect(await shpa(['delete', '-f', f, '--ignore-not-found'])).toMatchObject({ code: 0, stdout: '', stderr: '' });

    // kubectl autoscale, as the Kubernetes HPA walkthrough teaches it.
    const a = await shpa(['autoscale', 'deployment/foo', '--min=2', '--max=5', '--cpu-percent=80', '-n', 'shop']);
    expect(a).toMatchObject({ code: 0, stdout: 'horizontalpodautoscaler.autoscaling/foo autoscaled\n' });
    const foo = JSON.parse((await shpa(['get', 'foo', '-n', 'shop', '-o', 'json'])).stdout) as { spec: unknown };
    expect(foo.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'foo' },
      minReplicas: 2,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    });
    expect((await shpa(['autoscale', 'deployment', 'foo', '--max=5', '-n', 'shop'])).stderr).toBe(
      'error: horizontalpodautoscalers.autoscaling "foo" already exists in namespace "shop" of cluster "prod": change it with "shpa apply -f", or delete it first\n',
    );
    const client = await shpa(['autoscale', 'rc/legacy', '--max', '3', '--dry-run=client', '-o', 'yaml'], { env: { SHPA_DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' } });
    expect(client.stdout).toBe('apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: legacy\n  namespace: default\nspec:\n  scaleTargetRef:\n    apiVersion: v1\n    kind: ReplicationController\n    name: legacy\n  maxReplicas: 3\n');
    expect((await shpa(['autoscale', 'deployment/x', '--min', '4', '--max', '3'])).stderr).toBe('error: --max: spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`\n');
    expect((await shpa(['autoscale', 'pod/x', '--max', '3'])).stderr).toMatch(/^error: cannot autoscale "pod": autoscale takes deployment, replicaset, statefulset or replicationcontroller/);
    expect((await shpa(['autoscale', 'deployment/x'])).stderr).toBe('error: --max=MAXPODS is required: the most replicas the autoscaler may set\n');
  });

  it('get -w prints the list, then a row when an autoscaler\'s row changes', async () => {
    const child = spawn(process.execPath, [BIN, 'get', '-w', '-n', 'shop', '-l', 'team=pay'], { env: env() });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 100 && !test(); i++) await new Promise((r) => setTimeout(r, 100));
      if (!test()) throw new Error(`watch: no ${what} in ${JSON.stringify(out)}`);
    };
    try {
      await until(() => out.includes('\ncart '), 'first list');
      expect(out.split('\n')[0]).toMatch(/^NAME\s+REFERENCE/);
      const before = out;
      const labelled = SHOP('cart').replace('  namespace: shop', '  namespace: shop\n  labels:\n    team: pay').replace('maxReplicas: 10', 'maxReplicas: 14');
      expect((await shpa(['apply', '-f', file('cart14.yaml', labelled)])).stdout).toContain('configured');
      await until(() => out.length > before.length, 'row after the change');
      expect(out.slice(before.length)).toMatch(/^cart\s+Deployment\/cart\s+cpu: <unknown>\/60%\s+2\s+14\s/);
    } finally {
      child.kill('SIGINT');
    }
    // No rows for what did not change (front is not selected; cart changed once).
    expect(out.trimEnd().split('\n')).toHaveLength(3);
  });
});
