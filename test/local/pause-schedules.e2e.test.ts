// Pause and scheduled minimums on the local stack (`shpa local up`: the local API server with the
// CRDs, the real worker on a 5 s period), driven with the real kubectl: a pause annotation holds
// the scale-up and `kubectl annotate ...-` resumes it; a one-off window raises the minimum while
// it is open and the ordinary scale-down follows it. Real time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKubectl, KUBECTL, kubectlWith } from '../support/kubectl.js';
import { startLocalUp, type LocalUp } from '../../lib/local/stack/up.js';

if (!haveKubectl) console.warn(`skipping the pause and schedules end-to-end test: ${KUBECTL} is not installed`);

const PERIOD = 5;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe.skipIf(!haveKubectl)('pause and scheduled minimums on the local stack, with kubectl', () => {
  let up: LocalUp;
  let dir: string;
  const kubectl = (...args: string[]) => kubectlWith(up.kubeconfig, ...args);
  const condition = (name: string, type: string, field: string) => kubectl('get', 'shpa', name, '-n', 'demo', '-o', `jsonpath={.status.conditions[?(@.type=="${type}")].${field}}`);

  async function within<T>(periods: number, read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + periods * PERIOD * 1000;
    for (;;) {
      const v = await read();
      if (check(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  function apply(name: string, lines: string[]): Promise<string> {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, ['apiVersion: shpa.dev/v1', 'kind: ServerlessHorizontalPodAutoscaler', ...lines].join('\n'));
    return kubectl('apply', '-f', file);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-pause-'));
    up = await startLocalUp({ kubeconfig: join(dir, 'kubeconfig'), periodSeconds: PERIOD });
  });
  afterAll(async () => {
    await up?.stop();
  });

  it('shpa.dev/pause-scale-up holds the scale-up while it recommends; removing it resumes', async () => {
    await apply('web', [
      'metadata: {name: web, namespace: demo, annotations: {shpa.dev/pause-scale-up: "true"}}',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      '  minReplicas: 2',
      '  maxReplicas: 20',
      '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]',
    ]);
    up.setLoad('demo', 'web', 4);
    const message = await within(4, () => condition('web', 'ScalingPaused', 'message'), (m) => /would scale to \d+/.test(m));
    expect(message).toMatch(/^scale up paused with no expiry \(shpa\.dev\/pause-scale-up\); would scale to \d+$/);
    expect(up.model.replicasOf('demo', 'Deployment', 'web')).toBe(2);
    expect(await kubectl('describe', 'shpa', 'web', '-n', 'demo')).toMatch(/Normal\s+ScalingPaused\s+\S+\s+serverless-hpa\s+scale up paused with no expiry/);

    expect(await kubectl('annotate', 'shpa', 'web', '-n', 'demo', 'shpa.dev/pause-scale-up-')).toBe('serverlesshorizontalpodautoscaler.shpa.dev/web annotated\n');
    const scaled = await within(4, async () => up.model.replicasOf('demo', 'Deployment', 'web'), (n) => n > 2);
    expect(scaled).toBeGreaterThan(2);
    expect(await condition('web', 'ScalingPaused', 'reason')).toBe('PauseRemoved');
    expect(await kubectl('describe', 'shpa', 'web', '-n', 'demo')).toMatch(/Normal\s+PauseRemoved\s+\S+\s+serverless-hpa\s+scale up pause removed: scaling up resumes/);
    await kubectl('delete', 'shpa', 'web', '-n', 'demo');
  });

  it('a malformed pause value (a CRD schema cannot see annotations) is reported by the sync, and does not pause', async () => {
    await apply('api', [
      'metadata: {name: api, namespace: demo, annotations: {shpa.dev/pause: "tomorrow"}}',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}',
      '  minReplicas: 1',
      '  maxReplicas: 5',
      '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]',
    ]);
    const reason = await within(4, () => condition('api', 'ScalingPaused', 'reason'), (r) => r !== '');
    expect(reason).toBe('InvalidPauseAnnotation');
    expect(await condition('api', 'Ready', 'status')).toBe('False');
    await kubectl('delete', 'shpa', 'api', '-n', 'demo');
  });

  it('a one-off window raises the minimum while open; after it the ordinary scale-down applies', async () => {
    // Whole seconds, as the window is written (RFC 3339 without a fraction): it opens no sooner than `start`.
    const start = Math.ceil((Date.now() + 2 * PERIOD * 1000) / 1000) * 1000;
    const end = start + 3 * PERIOD * 1000;
    up.setLoad('demo', 'api', 0.1);
    await apply('api', [
      'metadata: {name: api, namespace: demo}',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}',
      '  minReplicas: 1',
      '  maxReplicas: 10',
      `  minReplicaSchedules: [{name: launch, minReplicas: 5, start: "${iso(start)}", end: "${iso(end)}"}]`,
      '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]',
      '  behavior: {scaleDown: {stabilizationWindowSeconds: 0}}',
    ]);
    const next = await within(3, () => condition('api', 'ScheduledMinimum', 'message'), (m) => m !== '');
    expect(next).toBe(`no window open: minimum spec.minReplicas 1; next: launch at ${iso(start)}`);
    const raised = await within(6, async () => up.model.replicasOf('demo', 'Deployment', 'api'), (n) => n === 5);
    expect(raised).toBe(5);
    expect(Date.now()).toBeGreaterThanOrEqual(start);
    expect(await condition('api', 'ScheduledMinimum', 'reason')).toBe('WindowOpen');
    const lowered = await within(8, async () => up.model.replicasOf('demo', 'Deployment', 'api'), (n) => n < 5);
    expect(lowered).toBeLessThan(5);
    expect(Date.now()).toBeGreaterThanOrEqual(end);
    expect(await kubectl('describe', 'shpa', 'api', '-n', 'demo')).toMatch(/Normal\s+ScheduleWindowClosed\s+\S+\s+serverless-hpa\s+no window open/);
    await kubectl('delete', 'shpa', 'api', '-n', 'demo');
  }, 90_000);

  it('the CRD refuses a window whose minimum is above maxReplicas, with the field', async () => {
    const out = await apply('bad', [
      'metadata: {name: bad, namespace: demo}',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}',
      '  maxReplicas: 3',
      '  minReplicaSchedules: [{name: x, minReplicas: 9, start: "0 9 * * *", end: "0 10 * * *"}]',
    ]).catch((e: Error) => e.message);
    expect(out).toMatch(/spec\.minReplicaSchedules: Invalid value: .*each window's minReplicas must be less than or equal to `maxReplicas`/);
  });

  it('spec.predictive: the PredictiveMinimum condition shows in kubectl describe, learning until it has 24 h of history', async () => {
    await apply('shop', [
      'metadata: {name: shop, namespace: demo}',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shop}',
      '  minReplicas: 1',
      '  maxReplicas: 10',
      '  predictive: {mode: ForecastAndScale}',
      '  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}]',
    ]);
    const reason = await within(4, () => condition('shop', 'PredictiveMinimum', 'reason'), (r) => r !== '');
    expect(reason).toBe('NotEnoughHistory');
    const described = await kubectl('describe', 'shpa', 'shop', '-n', 'demo');
    expect(described).toMatch(/Predictive:\s+(?:[A-Z][A-Za-z ]+:\s+\S+\s+)*Mode:\s+ForecastAndScale/);
    expect(described).toMatch(/Message:\s+not enough history: \d+m of the 1d needed\s+Observed Generation:\s+\d+\s+Reason:\s+NotEnoughHistory\s+Status:\s+False\s+Type:\s+PredictiveMinimum/);
    await kubectl('delete', 'shpa', 'shop', '-n', 'demo');
  });
});
