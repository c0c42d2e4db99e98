// Drives the built `shpa` binary as a user would, against dynalite on a loopback port.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../lib/cli/build.js';
import { createDynamoStore, type DynamoStore } from '../../lib/store/index.js';
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

describe('shpa command line', () => {
  let db: DynamoServer;
  let proxy: FaultProxy;
  let store: DynamoStore;
  let dir: string;

  function shpa(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: dir,
            SHPA_CONFIG: join(dir, 'none.json'),
            SHPA_DYNAMODB_ENDPOINT: db.endpoint,
            SHPA_CLUSTER: 'prod',
            AWS_ACCESS_KEY_ID: 'test',
            AWS_SECRET_ACCESS_KEY: 'test',
            AWS_REGION: TEST_REGION,
            ...opts.env,
          },
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

  it('registers clusters; apply needs one', async () => {
    const f = file('one.yaml', HPA('web'));
    const r = await shpa(['apply', '-f', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown cluster "prod": add it with "shpa cluster add prod --cluster-region REGION"');
    const added = await shpa(['cluster', 'add', 'prod', '--cluster-region', 'eu-west-1']);
    expect(added.stdout).toBe('cluster/prod created\n');
    expect(added.stderr).toBe('note: the deployed function syncs only the clusters in its "clusters" deploy parameter: make sure it includes prod\n');
    expect((await shpa(['cluster', 'add', 'prod', '--cluster-region', 'eu-west-1'])).stdout).toBe('cluster/prod unchanged\n');
    expect((await shpa(['cluster', 'add', 'other', '--cluster-region', 'us-west-2', '--role-arn', 'arn:aws:iam::123456789012:role/shpa'])).code).toBe(0);
    const stray = await shpa(['--table', 'other-table', 'cluster', 'add', 'prod', '--cluster-region', 'eu-west-1']);
    expect(stray.stderr.split('\n')[0]).toBe(`note: created table other-table at ${db.endpoint}; a deployed stack's table is serverless-hpa-STAGE (--table, --region)`);
    const list = await shpa(['cluster', 'list']);
    expect(list.stdout).toMatch(/^NAME\s+REGION\s+ROLE\s+ENDPOINT\n/);
    expect(list.stdout).toMatch(/other\s+us-west-2\s+arn:aws:iam::123456789012:role\/shpa/);
    expect((await shpa(['cluster', 'remove', 'other'])).stdout).toBe('cluster/other removed\n');
    const gone = await shpa(['cluster', 'remove', 'other']);
    expect([gone.code, gone.stderr]).toEqual([1, 'error: cluster "other" not found: see "shpa cluster list"\n']);
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
  });

  it('get and describe show status written by the sync; apply never touches it', async () => {
    const rec = (await store.loadCluster('prod')).autoscalers.find((a) => a.name === 'web')!;
    const st = { ...status(3, 72), desiredReplicas: 4, lastScaleTime: new Date(Date.now() - 120_000).toISOString() };
    const history = { recommendations: [{ replicas: 4, timestamp: new Date().toISOString() }], scaleUpEvents: [{ timestamp: st.lastScaleTime, change: 1 }], scaleDownEvents: [] };
    await store.saveState(rec, { status: st, history }, new Date());
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
    expect(d.stdout).toMatch(/Normal\s+SuccessfulRescale\s+2m(\d+s)?\s+shpa\s+Scaled up by 1 replica/);
  });

  it('unknown autoscaler: one line and a non-zero exit', async () => {
    for (const args of [['get', 'nope'], ['describe', 'nope'], ['delete', 'nope']]) {
      const r = await shpa(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('error: horizontalpodautoscaler.autoscaling "nope" not found in namespace "default" of cluster "prod": list them with "shpa get -A"\n');
    }
    expect((await shpa(['get', '-n', 'empty'])).stdout).toBe('No resources found in empty namespace.\n');
  });

  it('kubectl habits: get TYPE [NAME], describe TYPE/NAME, delete several names', async () => {
    const byAlias = await shpa(['get', 'hpa']);
    expect(byAlias.code).toBe(0);
    expect(byAlias.stdout.split('\n').map((l) => l.split(' ')[0])).toEqual(['NAME', 'api', 'web', '']);
    expect((await shpa(['get', 'horizontalpodautoscalers', 'web'])).stdout).toMatch(/^NAME.*\nweb\s/);
    expect((await shpa(['get', 'hpa/web'])).stdout.trimEnd().split('\n')).toHaveLength(2);
    expect((await shpa(['get', 'cloudwatchmetric'])).stdout).toBe('No resources found in default namespace.\n');
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
    expect((await shpa(['delete', 'hpa'])).stderr).toBe('error: no name given: shpa delete hpa NAME...\n');
  });

  it('cluster remove refuses while autoscalers remain, unless --force', async () => {
    const count = (await store.loadCluster('prod')).autoscalers.length;
    expect(count).toBeGreaterThan(0);
    const r = await shpa(['cluster', 'remove', 'prod']);
    expect([r.code, r.stderr]).toEqual([1, `error: cluster prod still has ${count} autoscalers and 0 CloudWatchMetric objects: delete them first, or pass --force\n`]);
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
    expect([kind.code, kind.stderr]).toEqual([1, 'error: unknown kind "pod": use hpa or cloudwatchmetric\n']);
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
});
