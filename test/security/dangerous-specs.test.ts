// The spec an attacker would write, refused before anything is stored: by `shpa apply` (the
// table), by the CRD's CEL (infra/crds, as the local API server evaluates it) and by the real
// kubectl against the local API server. Each refusal names spec.server.url, and nothing is kept.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { validatePrometheusMetric } from '../../lib/api/prometheus-validation.js';
import { buildCli } from '../../lib/cli/build.js';
import { formatFieldError } from '../../lib/hpa/api/validation.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { prometheusMetricCrd, serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { writeKubeconfig } from '../../lib/local/kubernetes/kubeconfig.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { createDynamoStore, ensureTable } from '../../lib/store/index.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { haveKubectl, KUBECTL, ROOT } from '../support/kubectl.js';

if (!haveKubectl) console.log(`dangerous-specs.test.ts: the kubectl cases are skipped — ${KUBECTL} is not installed`);

/** URL, what shpa apply says of it, what the CRD says of it. */
const DANGEROUS: [string, string, RegExp][] = [
  ['http://169.254.169.254/latest/meta-data', 'must not point at 169.254.169.254, the EC2 instance metadata endpoint', /link-local \(169\.254\.0\.0\/16/],
  ['http://169.254.170.2/v2/credentials', 'must not point at 169.254.170.2, the ECS task credentials endpoint', /link-local/],
  ['http://169.254.170.23/v1/credentials', 'must not point at 169.254.170.23, the EKS Pod Identity credentials endpoint', /link-local/],
  ['http://[fd00:ec2::254]/latest', 'must not point at fd00:ec2::254, the EC2 instance metadata endpoint', /AWS metadata \(fd00:ec2::\/32\)/],
  ['http://[fd00:ec2::23]', 'must not point at fd00:ec2::23, the EKS Pod Identity credentials endpoint', /AWS metadata \(fd00:ec2::\/32\)/],
  ['http://[fe80::1]:9090', 'must not point at fe80::1, a link-local, unspecified or multicast address', /link-local \(fe80::\/10\)/],
  ['http://[::ffff:169.254.169.254]', 'must not point at ::ffff:a9fe:a9fe, the EC2 instance metadata endpoint', /IPv4-mapped IPv6/],
  ['http://2852039166', 'must not point at 169.254.169.254, the EC2 instance metadata endpoint', /four decimal numbers/],
  ['http://0xa9fea9fe:80', 'must not point at 169.254.169.254, the EC2 instance metadata endpoint', /four decimal numbers/],
  ['http://instance-data/latest', 'must not point at instance-data, the EC2 instance metadata endpoint', /instance-data/],
  ['http://prom.internal:9090/internal/admin/users?', 'must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)', /not even an empty \?/],
  ['http://prom.internal:9090/internal#', 'must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)', /not even an empty \?/],
  ['http://admin:hunter2@prom.internal:9090', 'must not carry credentials (use bearerTokenSecretArn)', /must not carry credentials/],
  ['file:///etc/passwd', 'must be an http or https URL', /must be an http or https URL/],
  ['gopher://prom.internal:70', 'must be an http or https URL', /must be an http or https URL/],
];

const metric = (url: string, name = 'loot') => ({ apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name, namespace: 'attacker' }, spec: { query: 'sum(up)', server: { url } } });

describe('shpa apply’s check and the CRD say no to each', () => {
  it.each(DANGEROUS)('%s', (url, applyError, crdError) => {
    const checked = validatePrometheusMetric(metric(url));
    expect(checked.valid ? [] : checked.errors.map(formatFieldError)).toEqual([`spec.server.url: Invalid value: ${JSON.stringify(url)}: ${applyError}`]);
    const admitted = admitCustomResource(prometheusMetricCrd(), 'v1', metric(url));
    const errors = admitted.errors.map(formatError);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.startsWith('spec.server.url: Invalid value:'))).toBe(true);
    expect(errors.join('\n')).toMatch(crdError);
  });

  it.each([['http://prometheus.monitoring:9090'], ['https://10.0.0.7:9090/prom'], ['http://[fd12::7]:9090'], ['http://127.0.0.1:9090'], ['https://prom.example.com/']])('admits %s (reached only where the deploy grants it)', (url) => {
    expect(validatePrometheusMetric(metric(url)).valid).toBe(true);
    expect(admitCustomResource(prometheusMetricCrd(), 'v1', metric(url)).errors.map(formatError)).toEqual([]);
  });
});

describe('refused end to end, nothing stored', { timeout: 120_000 }, () => {
  let dir: string;
  let db: DynamoServer;
  let api: K8sApiServer;
  let kubeconfig: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-dangerous-'));
    file = join(dir, 'loot.yaml');
    writeFileSync(file, DANGEROUS.map(([url], i) => stringify(metric(url, `loot-${i}`))).join('---\n'));
    db = await startDynalite();
    await ensureTable(createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa' }).client, 'shpa');
    const model = new WorkloadModel({ clock: { now: () => new Date() } });
    api = await startK8sApiServer({ model, crds: [serverlessHpaCrd(), prometheusMetricCrd()] });
    kubeconfig = await writeKubeconfig(api, join(dir, 'kubeconfig'), { namespace: 'attacker' });
    await buildCli();
  });
  afterAll(async () => {
    await api?.stop();
    await db?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (bin: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(bin, args, { cwd: ROOT, timeout: 30_000, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env } }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('shpa apply refuses every object, naming the field, and the table holds nothing', async () => {
    const r = await run(process.execPath, [join(ROOT, 'bin', 'shpa.js'), 'apply', '-f', file], {
      SHPA_CONFIG: join(dir, 'none.json'),
      SHPA_DYNAMODB_ENDPOINT: db.endpoint,
      SHPA_CLUSTER: 'prod',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: TEST_REGION,
    });
    expect(r.code).not.toBe(0);
    for (const [url, applyError] of DANGEROUS) expect(r.stderr).toContain(`spec.server.url: Invalid value: ${JSON.stringify(url)}: ${applyError}`);
    const store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa' });
    const items = await store.client.send(new ScanCommand({ TableName: 'shpa' }));
    expect(JSON.stringify(items.Items ?? [])).not.toMatch(/loot/);
  });

  it.skipIf(!haveKubectl)('kubectl apply is refused by the CRD, naming the field, and the API server keeps none', async () => {
    const r = await run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'apply', '-f', file]);
    expect(r.code).not.toBe(0);
    const refusals = r.stderr.split('\n').filter((l) => /PrometheusMetric.*is invalid: spec\.server\.url: Invalid value/.test(l));
    expect(refusals).toHaveLength(DANGEROUS.length);
    const listed = await run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', 'prometheusmetrics', '-A', '-o', 'name']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe('');
  });
});
