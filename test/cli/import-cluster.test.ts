// `shpa import` from a cluster, as kubectl reads one: the user's kubeconfig (--kubeconfig or
// KUBECONFIG), its current context or --context, the context's namespace or -n, -A, -l. The
// real @kubernetes/client-node over HTTPS against the local API server, which serves
// autoscaling/v2 HPAs and, with KEDA's CRD installed, keda.sh/v1alpha1 ScaledObjects. Without
// --dry-run the Kubernetes form is applied to the same cluster (server-side apply) and read back.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { importFiles, outputObjects } from '../../lib/cli/import.js';
import { applyObjects, openKubeconfig } from '../../lib/cli/kube-access.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { cloudWatchMetricCrd, prometheusMetricCrd, serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { kubeconfigYaml } from '../../lib/local/kubernetes/kubeconfig.js';

const root = join(import.meta.dirname, '..', '..');

function findKubectl(): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return 'kubectl';
  } catch {
    return undefined;
  }
}
const kubectl = findKubectl();
if (!kubectl) console.log('import-cluster.test.ts: no kubectl on PATH: the HPA is created with @kubernetes/client-node instead (install kubectl 1.32 to apply it as a user would)');
const kedaCrds = parseAllDocuments(readFileSync(join(import.meta.dirname, 'fixtures', 'import-real', 'keda-crds.yaml'), 'utf8')).map((d) => d.toJS());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function shpa(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'lib', 'cli', 'main.ts'), 'import', ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), NO_COLOR: '1', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** "Kind namespace/name" of each printed document. */
const printed = (r: Run) => parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace: string } }).map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);

/** A kubeconfig with two contexts on the same server: "local" (namespace shop, current) and "elsewhere" (namespace other). */
function twoContexts(server: K8sApiServer): string {
  const one = parse(kubeconfigYaml(server, { name: 'local', namespace: 'shop' }));
  one.contexts.push({ name: 'elsewhere', context: { cluster: 'local', user: 'local', namespace: 'other' } });
  return stringify(one);
}

const hpa = (namespace: string, name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name, namespace, labels, ...extra },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] },
});

describe('shpa import from a cluster', { timeout: 180_000 }, () => {
  let server: K8sApiServer;
  let dir: string;
  let kubeconfig: string;
  let custom: CustomObjectsApi;

  beforeAll(async () => {
    server = await startK8sApiServer({ crds: [serverlessHpaCrd(), cloudWatchMetricCrd(), prometheusMetricCrd(), ...kedaCrds] });
    dir = mkdtempSync(join(tmpdir(), 'shpa-import-cluster-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, twoContexts(server), { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    custom = kc.makeApiClient(CustomObjectsApi);
    const create = (o: { apiVersion: string; metadata: { namespace: string } }, plural: string) => {
      const [group, version] = o.apiVersion.split('/');
      return custom.createNamespacedCustomObject({ group, version, namespace: o.metadata.namespace, plural, body: o });
    };
    await create(hpa('shop', 'web', { team: 'a' }), 'horizontalpodautoscalers');
    await create(hpa('other', 'api', { team: 'b' }), 'horizontalpodautoscalers');
    // The HPA KEDA makes for its ScaledObject: the ScaledObject is what is imported.
    await create(hpa('shop', 'keda-hpa-worker', { team: 'a' }, { ownerReferences: [{ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', name: 'worker', uid: 'u1' }] }), 'horizontalpodautoscalers');
    await create(
      {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        metadata: { name: 'worker', namespace: 'shop', labels: { team: 'a' } },
        spec: {
          scaleTargetRef: { name: 'worker' },
          cooldownPeriod: 120,
          triggers: [
            {
              type: 'aws-cloudwatch',
              authenticationRef: { name: 'sqs-reader' },
              metadata: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensionName: 'QueueName', dimensionValue: 'orders', awsRegion: 'eu-west-1', targetMetricValue: '10' },
            },
          ],
        },
      } as never,
      'scaledobjects',
    );
    // The role KEDA assumes for that trigger: read from the cluster, it becomes the CloudWatchMetric's.
    await create({ apiVersion: 'keda.sh/v1alpha1', kind: 'TriggerAuthentication', metadata: { name: 'sqs-reader', namespace: 'shop' }, spec: { podIdentity: { provider: 'aws', roleArn: 'arn:aws:iam::123456789012:role/sqs-reader' } } } as never, 'triggerauthentications');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("reads the current context's namespace, skips the HPA KEDA made, and prints our Kubernetes kind by default", async () => {
    const r = await shpa(['--kubeconfig', kubeconfig, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(printed(r)).toEqual(['ServerlessHorizontalPodAutoscaler shop/web', 'CloudWatchMetric shop/worker-0', 'ServerlessHorizontalPodAutoscaler shop/worker']);
    expect(r.stderr).toContain('skipped: context local, horizontalpodautoscalers.autoscaling: HorizontalPodAutoscaler shop/keda-hpa-worker: made by KEDA for ScaledObject shop/worker: import the ScaledObject instead');
    expect(r.stderr).toContain('ScaledObject shop/worker → CloudWatchMetric shop/worker-0, ServerlessHorizontalPodAutoscaler shop/worker:');
    expect(r.stderr).toContain('mapped: cooldownPeriod 120 → behavior.scaleDown.stabilizationWindowSeconds 120');
    const worker = parseAllDocuments(r.stdout)[2].toJS();
    expect(worker.metadata.annotations).toEqual({ 'shpa.dev/dry-run': 'true', 'shpa.dev/shadow-of': 'ScaledObject/worker' });
    expect(worker.spec).toMatchObject({ minReplicas: 0, behavior: { scaleDown: { stabilizationWindowSeconds: 120 } } });
    expect(parseAllDocuments(r.stdout)[1].toJS().spec.roleArn).toBe('arn:aws:iam::123456789012:role/sqs-reader');
    expect(r.stderr).toContain('authenticationRef (TriggerAuthentication sqs-reader): its podIdentity.roleArn → spec.roleArn of CloudWatchMetric shop/worker-0');
    expect(r.stderr).not.toContain('sqs-reader: ours reads');
  });

  it('-n, -A with -l, --context and KUBECONFIG select as kubectl does', async () => {
    expect(printed(await shpa(['--kubeconfig', kubeconfig, '-n', 'other', '--dry-run']))).toEqual(['ServerlessHorizontalPodAutoscaler other/api']);
    expect(printed(await shpa(['--kubeconfig', kubeconfig, '-A', '-l', 'team=a', '--dry-run']))).toEqual([
      'ServerlessHorizontalPodAutoscaler shop/web',
      'CloudWatchMetric shop/worker-0',
      'ServerlessHorizontalPodAutoscaler shop/worker',
    ]);
    expect(printed(await shpa(['--kubeconfig', kubeconfig, '-A', '-l', 'team!=a', '--dry-run']))).toEqual(['ServerlessHorizontalPodAutoscaler other/api']);
    expect(printed(await shpa(['--context', 'elsewhere', '--dry-run'], { KUBECONFIG: kubeconfig }))).toEqual(['ServerlessHorizontalPodAutoscaler other/api']);
    const table = await shpa(['--kubeconfig', kubeconfig, '-n', 'other', '--to', 'table', '--dry-run']);
    expect(printed(table)).toEqual(['HorizontalPodAutoscaler other/api']);
    const none = await shpa(['--kubeconfig', kubeconfig, '-n', 'empty', '--dry-run']);
    expect([none.code, none.stderr]).toEqual([1, 'error: no HorizontalPodAutoscaler or ScaledObject to import in namespace "empty" of context local\n']);
    const noConfig = await shpa(['--dry-run'], { HOME: dir });
    expect([noConfig.code, noConfig.stderr]).toEqual([1, 'error: no kubeconfig: KUBECONFIG is unset and ~/.kube/config does not exist; pass --kubeconfig PATH (for EKS, "aws eks update-kubeconfig --name CLUSTER" writes one)\n']);
    const missing = await shpa(['--kubeconfig', kubeconfig, '--context', 'prod', '--dry-run']);
    expect([missing.code, missing.stderr]).toEqual([1, 'error: context "prod" does not exist in the kubeconfig: the contexts are local, elsewhere\n']);
  });

  it('without --dry-run applies the objects to the cluster, paused by shpa.dev/dry-run; again, it changes nothing', async () => {
    const r = await shpa(['--kubeconfig', kubeconfig, '-l', 'team=a']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'serverlesshorizontalpodautoscaler.shpa.dev/web serverside-applied\ncloudwatchmetric.shpa.dev/worker-0 serverside-applied\nserverlesshorizontalpodautoscaler.shpa.dev/worker serverside-applied\n',
    );
    const worker = (await custom.getNamespacedCustomObject({ group: 'shpa.dev', version: 'v1', namespace: 'shop', plural: 'serverlesshorizontalpodautoscalers', name: 'worker' })) as {
      metadata: { annotations: Record<string, string>; resourceVersion: string };
      spec: Record<string, unknown>;
    };
    expect(worker.metadata.annotations['shpa.dev/dry-run']).toBe('true');
    expect(worker.spec).toMatchObject({ minReplicas: 0, maxReplicas: 100, metrics: [{ type: 'External', external: { metric: { name: 'worker-0' }, target: { type: 'AverageValue', averageValue: '10' } } }] });
    const metric = (await custom.getNamespacedCustomObject({ group: 'shpa.dev', version: 'v1', namespace: 'shop', plural: 'cloudwatchmetrics', name: 'worker-0' })) as { spec: { region: string } };
    expect(metric.spec.region).toBe('eu-west-1');
    expect((await shpa(['--kubeconfig', kubeconfig, '-l', 'team=a'])).code).toBe(0);
    const again = (await custom.getNamespacedCustomObject({ group: 'shpa.dev', version: 'v1', namespace: 'shop', plural: 'serverlesshorizontalpodautoscalers', name: 'worker' })) as { metadata: { resourceVersion: string } };
    expect(again.metadata.resourceVersion).toBe(worker.metadata.resourceVersion);
  });

  it("every real manifest's Kubernetes form is accepted by the API server with our CRDs (server-side apply)", async () => {
    const folder = join(import.meta.dirname, 'fixtures', 'import-real');
    // aws-sqs-queue triggers become SQSQueueMetric objects (test/cli/import-sqs.test.ts), applied here once that kind has its CRD and table kind.
    const files = readdirSync(folder).filter((f) => f.endsWith('.yaml') && f !== 'keda-crds.yaml' && !f.includes('sqs'));
    const report = importFiles(files.map((f) => join(folder, f)));
    expect(report.problems).toEqual([]);
    const objects = outputObjects(report, 'kubernetes', true);
    const applied = await applyObjects(openKubeconfig({ kubeconfig }), objects);
    expect(applied).toHaveLength(objects.length);
    const kinds = new Set(objects.map((o) => o.kind));
    expect(kinds).toEqual(new Set(['ServerlessHorizontalPodAutoscaler', 'CloudWatchMetric', 'PrometheusMetric']));
    const amp = (await custom.getNamespacedCustomObject({ group: 'shpa.dev', version: 'v1', namespace: 'default', plural: 'prometheusmetrics', name: 'keda-so-0' })) as { spec: unknown };
    expect(amp.spec).toMatchObject({ amp: { workspaceId: 'ws-0123abcd-4567-89ef-0123-456789abcdef', region: 'us-east-1' } });
  });

  it('a cluster without KEDA: the HPAs are read, and it says that no ScaledObject could be', async () => {
    const bare = await startK8sApiServer({ crds: [serverlessHpaCrd(), cloudWatchMetricCrd(), prometheusMetricCrd()] });
    try {
      const file = join(dir, 'bare');
      writeFileSync(file, kubeconfigYaml(bare, { name: 'bare' }), { mode: 0o600 });
      const kc = new KubeConfig();
      kc.loadFromFile(file);
      // The Kubernetes website's php-apache HPA, applied by the real kubectl where there is one.
      const manifest = join(import.meta.dirname, 'fixtures', 'import-real', 'php-apache-v2.yaml');
      if (kubectl) await new Promise((resolve, reject) => execFile(kubectl, ['--kubeconfig', file, 'apply', '-f', manifest], (err) => (err ? reject(err) : resolve(undefined))));
      else await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ group: 'autoscaling', version: 'v2', namespace: 'default', plural: 'horizontalpodautoscalers', body: parse(readFileSync(manifest, 'utf8')) });
      const r = await shpa(['--kubeconfig', file, '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      expect(printed(r)).toEqual(['ServerlessHorizontalPodAutoscaler default/php-apache']);
      expect(r.stderr).toContain('skipped: no ScaledObjects read: the cluster serves no scaledobjects.keda.sh/v1alpha1 (KEDA is not installed)');
    } finally {
      await bare.stop();
    }
  });
});
