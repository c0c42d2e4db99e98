// The real kubectl against the local API server, through a kubeconfig from
// writeKubeconfig: what a user does after `shpa local up`.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { admitCustomResource } from '../../lib/local/kubernetes/crd/admission.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { writeKubeconfig } from '../../lib/local/kubernetes/kubeconfig.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';

function findKubectl(): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return 'kubectl';
  } catch {
    return undefined;
  }
}

const kubectl = findKubectl();
if (!kubectl) console.log('kubectl.test.ts: skipped — no kubectl on PATH (install kubectl 1.32 to run these tests)');

const G = { group: 'shpa.dev', version: 'v1', plural: 'serverlesshorizontalpodautoscalers' };

describe.skipIf(!kubectl)('kubectl against the local API server', () => {
  let server: K8sApiServer;
  let dir: string;
  let kubeconfig: string;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;

  beforeAll(async () => {
    // kubectl computes some ages itself (describe's Events): the model runs on the real clock
    const model = new WorkloadModel({ clock: { now: () => new Date() }, startDelaySeconds: 0, readyDelaySeconds: 0 });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'default', name: 'web', replicas: 2, selector: { app: 'web' }, load: () => ({ cpu: 0.1 }) });
    server = await startK8sApiServer({ model });
    dir = mkdtempSync(join(tmpdir(), 'shpa-kubectl-'));
    kubeconfig = await writeKubeconfig(server, join(dir, 'kubeconfig'), { namespace: 'default' });
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    custom = kc.makeApiClient(CustomObjectsApi);
    core = kc.makeApiClient(CoreV1Api);
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const args = (a: string[]) => ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...a];

  function run(...a: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(kubectl!, args(a), { timeout: 10_000 }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  }

  /** Splits kubectl's columns (two or more spaces apart); for rows without empty cells. */
  const rows = (out: string) =>
    out
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s{2,}/));

  /** A table's rows as objects, cut at the header's column positions (empty cells stay). */
  function table(out: string): Record<string, string>[] {
    const [header, ...lines] = out.trimEnd().split('\n');
    const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
    return lines.map((l) => Object.fromEntries(starts.map((c, i) => [c.name, l.slice(c.at, starts[i + 1]?.at).trim()])));
  }

  it('applies the CRDs, then an autoscaler, and rejects an invalid one with the evaluator’s message', async () => {
    const crds = await run('apply', '-f', 'infra/crds/');
    expect(crds).toMatchObject({ code: 0, stderr: '' });
    expect(crds.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/serverlesshorizontalpodautoscalers.shpa.dev created');
    expect((await run('apply', '-f', 'test/local/fixtures/web-shpa.yaml')).stdout.trim()).toBe('serverlesshorizontalpodautoscaler.shpa.dev/web created');
    expect((await run('apply', '-f', 'test/local/fixtures/web-shpa.yaml')).stdout.trim()).toBe('serverlesshorizontalpodautoscaler.shpa.dev/web unchanged');

    const invalid = await run('apply', '-f', 'test/local/fixtures/web-shpa-invalid.yaml');
    expect(invalid.code).toBe(1);
    const crd = parseAllDocuments(readFileSync('infra/crds/serverlesshorizontalpodautoscalers.yaml', 'utf8'))[0].toJS() as unknown;
    const doc = parseAllDocuments(readFileSync('test/local/fixtures/web-shpa-invalid.yaml', 'utf8'))[0].toJS() as Record<string, unknown>;
    const { errors } = admitCustomResource(crd, 'v1', doc);
    expect(errors.length).toBeGreaterThan(0);
    expect(invalid.stderr).toContain('The ServerlessHorizontalPodAutoscaler "broken" is invalid');
    for (const e of errors) expect(invalid.stderr).toContain(e.field);
  });

  it('prints autoscalers with the printer columns, and follows a status change with -w', async () => {
    const get = await run('get', 'shpa');
    expect(rows(get.stdout)[0]).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    // no status yet: kubectl leaves those cells empty
    expect(table(get.stdout)).toEqual([{ NAME: 'web', REFERENCE: '', TARGETS: '', MINPODS: '2', MAXPODS: '10', REPLICAS: '', AGE: expect.stringMatching(/^\d+s$/) }]);

    const watcher = spawn(kubectl!, args(['get', 'shpa', '-w']));
    let out = '';
    watcher.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await expect.poll(() => out, { timeout: 5_000 }).toContain('web');
      await custom.patchNamespacedCustomObjectStatus(
        { ...G, namespace: 'default', name: 'web', body: { status: { currentReplicas: 3, desiredReplicas: 3, reference: 'Deployment/web', targets: 'cpu: 72%/60%' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await expect.poll(() => rows(out).at(-1)?.slice(0, 6), { timeout: 5_000 }).toEqual(['web', 'Deployment/web', 'cpu: 72%/60%', '2', '10', '3']);
      expect(rows(out).filter((r) => r[0] === 'NAME')).toHaveLength(1); // headers once
    } finally {
      watcher.kill();
    }
  });

  it('describes an autoscaler with its Events, and lists events', async () => {
    const web = (await custom.getNamespacedCustomObject({ ...G, namespace: 'default', name: 'web' })) as { metadata: { uid: string } };
    const event = (name: string, involved: Record<string, string>, reason: string, message: string) => ({
      metadata: { name, namespace: 'default' },
      involvedObject: { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', namespace: 'default', ...involved },
      reason,
      message,
      type: 'Normal',
      source: { component: 'serverless-hpa' },
      firstTimestamp: new Date(),
      lastTimestamp: new Date(),
      count: 1,
    });
    await core.createNamespacedEvent({ namespace: 'default', body: event('web.1', { name: 'web', uid: web.metadata.uid }, 'SuccessfulRescale', 'New size: 3; reason: cpu resource utilization (percentage of request) above target') });
    await core.createNamespacedEvent({ namespace: 'default', body: event('old.1', { name: 'web', uid: 'an-earlier-web' }, 'FailedGetScale', 'from an object of the same name') });

    const describeOut = (await run('describe', 'shpa', 'web')).stdout;
    expect(describeOut).toMatch(/^Name:\s+web$/m);
    expect(describeOut).toMatch(/Targets:\s+cpu: 72%\/60%/);
    const events = describeOut.slice(describeOut.indexOf('Events:'));
    expect(rows(events)[1]).toEqual(['Type', 'Reason', 'Age', 'From', 'Message']);
    expect(rows(events)[3]).toEqual(['Normal', 'SuccessfulRescale', expect.stringMatching(/^\d+s$/), 'serverless-hpa', 'New size: 3; reason: cpu resource utilization (percentage of request) above target']);
    expect(events).not.toContain('FailedGetScale');

    const list = rows((await run('get', 'events')).stdout);
    expect(list[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(list.map((r) => r.slice(1, 4))).toContainEqual(['Normal', 'SuccessfulRescale', 'serverlesshorizontalpodautoscaler/web']);
  });

  it('gets deployments and the top of pods', async () => {
    const deploy = rows((await run('get', 'deploy')).stdout);
    expect(deploy[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(deploy[1].slice(0, 4)).toEqual(['web', '2/2', '2', '2']);
    const top = rows((await run('top', 'pods')).stdout);
    expect(top[0]).toEqual(['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    expect(top.slice(1).map((r) => r[1])).toEqual(['52m', '52m']); // 0.1 core over two pods + 2m baseline
  });

  it('deletes the autoscaler', async () => {
    expect((await run('delete', 'shpa', 'web')).stdout.trim()).toBe('serverlesshorizontalpodautoscaler.shpa.dev "web" deleted');
    const after = await run('get', 'shpa');
    expect(after.stderr.trim()).toBe('No resources found in default namespace.');
  });
});
