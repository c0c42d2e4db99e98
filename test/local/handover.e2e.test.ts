// docs/migrate.md end to end on the local stack, with the real kubectl: an HPA scales demo/web
// (kube-controller-manager's controller, stood in), ours shadows it in dry-run and reports each
// decision against the HPA's, `shpa handover` gives ours the target, `shpa handback` returns it.
// The proof is at the API server: every write of /scale with its User-Agent, and no sync period in
// which two controllers wrote it. Real time, a 4 s period.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handBack, handOver } from '../../lib/cli/handover.js';
import { connectKube } from '../../lib/cli/kube-client.js';
import { USER_AGENT } from '../../lib/cluster/kubernetes-cluster.js';
import { HPA_CONTROLLER_USER_AGENT } from '../../lib/local/kubernetes/hpa-controller.js';
import { startLocalUp, type LocalUp } from '../../lib/local/stack/up.js';
import { haveKubectl, KUBECTL, kubectlWith } from '../support/kubectl.js';

if (!haveKubectl) console.warn(`skipping the handover end-to-end test: ${KUBECTL} is not installed`);

const PERIOD = 4;
const SCALE = '/apis/apps/v1/namespaces/demo/deployments/web/scale';

describe.skipIf(!haveKubectl)('shadow, hand over and hand back on the local stack', () => {
  let up: LocalUp;
  const kubectl = (...args: string[]) => kubectlWith(up.kubeconfig, ...args);
  const replicas = () => up.model.replicasOf('demo', 'Deployment', 'web');
  const json = async (...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json')) as { status?: { shadow?: { decisions: number; agreed: number; maxDifference: number; since: string; until?: string } } };

  async function until<T>(periods: number, read: () => T | Promise<T>, check: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + periods * PERIOD * 1000;
    for (;;) {
      const v = await read();
      if (check(v)) return v;
      if (Date.now() > deadline) throw new Error(`not within ${periods} periods: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  /** Every successful write of web's /scale: when, and by whom. */
  const scaleWrites = () =>
    up.k8s.requestLog
      .filter((r) => (r.method === 'PATCH' || r.method === 'PUT') && r.path === SCALE && r.status === 200)
      .map((r) => ({ at: r.at ?? 0, by: r.userAgent === HPA_CONTROLLER_USER_AGENT ? 'hpa' : r.userAgent === USER_AGENT ? 'shpa' : String(r.userAgent) }));

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-handover-'));
    up = await startLocalUp({ kubeconfig: join(dir, 'kubeconfig'), periodSeconds: PERIOD });
  });
  afterAll(async () => {
    await up?.stop();
  });

  it('reports each shadow decision against the live HPA, then hands over and back with one writer at a time', async () => {
    expect(await kubectl('apply', '-f', 'examples/migrate/hpa.yaml')).toBe('horizontalpodautoscaler.autoscaling/web created\n');
    expect(await kubectl('apply', '-f', 'examples/migrate/shadow.yaml')).toBe('serverlesshorizontalpodautoscaler.shpa.dev/web-shadow created\n');
    up.setLoad('demo', 'web', 3);

    // Shadow: the HPA scales; ours compares, in its status, its events and kubectl describe.
    await until(6, replicas, (n) => n > 2);
    const shadowed = await until(6, () => json('get', 'shpa', 'web-shadow'), (o) => (o.status?.shadow?.decisions ?? 0) >= 2);
    expect(shadowed.status!.shadow).toMatchObject({ of: 'HorizontalPodAutoscaler/web' });
    expect(scaleWrites().every((w) => w.by === 'hpa')).toBe(true);
    const events = await kubectl('get', 'events', '-n', 'demo', '--field-selector', 'involvedObject.name=web-shadow', '--no-headers');
    expect(events).toMatch(/Shadow(Agrees|Differs)\s+serverlesshorizontalpodautoscaler\/web-shadow\s+would scale to \d+; HorizontalPodAutoscaler\/web \(HPA web\) wants \d+, has \d+/);
    expect(await kubectl('describe', 'shpa', 'web-shadow', '-n', 'demo')).toMatch(/Shadow:\s+Agreed:\s+\d+\s+Decisions:\s+\d+/);

    // Hand over: the HPA is deleted and confirmed gone before ours leaves dry-run.
    const said: string[] = [];
    const opts = { namespace: 'demo', timeoutMs: 6 * PERIOD * 1000, pollMs: 250, say: (l: string) => said.push(l) };
    const kube = connectKube({ kubeconfig: up.kubeconfig });
    await handOver(kube, 'web-shadow', opts);
    const handedOver = Date.now();
    expect(said.join('\n')).toMatch(/shadow of HorizontalPodAutoscaler\/web: \d+ decisions compared[^]*horizontalpodautoscaler.autoscaling\/web deleted[^]*web-shadow out of dry-run/);
    await expect(kubectl('get', 'hpa', 'web', '-n', 'demo')).rejects.toThrow(/NotFound/);
    const before = replicas();
    up.setLoad('demo', 'web', 8);
    await until(6, replicas, (n) => n > before);
    expect(scaleWrites().filter((w) => w.at > handedOver).every((w) => w.by === 'shpa')).toBe(true);
    const over = await json('get', 'shpa', 'web-shadow', '-n', 'demo');
    expect(over.status!.shadow!.until).toBeDefined();

    // Hand back: ours is confirmed in dry-run, then the HPA comes back and scales down again.
    said.length = 0;
    await handBack(kube, 'web-shadow', opts);
    const handedBack = Date.now();
    expect(said.join('\n')).toMatch(/web-shadow in dry-run \(confirmed[^]*horizontalpodautoscaler.autoscaling\/web re-created/);
    expect(await kubectl('get', 'hpa', 'web', '-n', 'demo', '--no-headers')).toMatch(/^web\s+Deployment\/web/);
    const high = replicas();
    up.setLoad('demo', 'web', 1);
    await until(6, replicas, (n) => n < high);
    expect(scaleWrites().filter((w) => w.at > handedBack).every((w) => w.by === 'hpa')).toBe(true);

    // At the API server: hpa… shpa… hpa…, and no period with both.
    const writes = scaleWrites();
    const runs = writes.map((w) => w.by).filter((by, i, all) => i === 0 || all[i - 1] !== by);
    expect(runs).toEqual(['hpa', 'shpa', 'hpa']);
    const byPeriod = new Map<number, Set<string>>();
    for (const w of writes) byPeriod.set(Math.floor(w.at / (PERIOD * 1000)), (byPeriod.get(Math.floor(w.at / (PERIOD * 1000))) ?? new Set()).add(w.by));
    expect([...byPeriod.values()].filter((s) => s.size > 1)).toEqual([]);
  }, 180_000);
});
