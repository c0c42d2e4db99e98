// `shpa local up` as a platform engineer uses it, with the real kubectl: apply an autoscaler
// object, change the load, see it scale in `kubectl get shpa` and `kubectl describe shpa`
// within two sync periods, delete it and see it stop; an object the CRD admits but the sync
// finds invalid is reported in its status, never acted on. Real time, a 5 s sync period.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKubectl, KUBECTL, kubectlWith } from '../support/kubectl.js';
import { findPrometheus } from '../../lib/local/prometheus/prometheus-server.js';
import { startLocalUp, type LocalUp } from '../../lib/local/stack/up.js';
import { command } from '../../lib/cli/local.js';

if (!haveKubectl) console.warn(`skipping the shpa local up end-to-end test: ${KUBECTL} is not installed`);

const PERIOD = 5;
const havePrometheus = findPrometheus() !== undefined;
if (!havePrometheus) console.warn('skipping the PromQL case of the shpa local up test: no prometheus binary (apt-get install prometheus)');

describe.skipIf(!haveKubectl)('shpa local up, driven with kubectl', () => {
  let up: LocalUp;
  let dir: string;
  const kubectl = (...args: string[]) => kubectlWith(up.kubeconfig, ...args);
  const replicas = () => up.model.replicasOf('demo', 'Deployment', 'web');

  /** Polls until `check` holds, for at most `periods` sync periods. */
  async function within<T>(periods: number, read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + periods * PERIOD * 1000;
    for (;;) {
      const v = await read();
      if (check(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-local-up-'));
    up = await startLocalUp({ kubeconfig: join(dir, 'kubeconfig'), periodSeconds: PERIOD });
  });
  afterAll(async () => {
    await up?.stop();
  });

  it('apply, a load change, the scale in get and describe within two periods; delete stops it', async () => {
    expect(await kubectl('apply', '-f', 'examples/kubernetes/web.yaml')).toBe('serverlesshorizontalpodautoscaler.shpa.dev/web created\n');
    up.setLoad('demo', 'web', 4);
    // Seen at the next tick, scaled at the one after at the latest (upstream's legacy limit: 2 → 4 first).
    const got = await within(3, () => kubectl('get', 'shpa', 'web', '--no-headers'), (t) => /Deployment\/web\s+cpu: \d+%\/60%\s+2\s+20\s+4\b/.test(t));
    expect(got).toMatch(/^web\s+Deployment\/web\s+cpu: \d+%\/60%\s+2\s+20\s+4\s+\d+s\n$/);
    expect(replicas()).toBeGreaterThanOrEqual(4);
    const described = await kubectl('describe', 'shpa', 'web');
    expect(described).toMatch(/Last Transition Time:\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+Message:[^\n]+\s+Observed Generation:\s+1\s+Reason:\s+SucceededRescale\s+Status:\s+True\s+Type:\s+AbleToScale/);
    expect(described).toMatch(/Normal\s+SuccessfulRescale\s+\S+\s+serverless-hpa\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
    expect(await kubectl('get', 'events', '--field-selector', 'involvedObject.name=web,reason=SuccessfulRescale', '--no-headers')).toMatch(/SuccessfulRescale/);

    expect(await kubectl('delete', 'shpa', 'web')).toBe('serverlesshorizontalpodautoscaler.shpa.dev "web" deleted\n');
    const after = replicas();
    up.setLoad('demo', 'web', 20);
    await new Promise((r) => setTimeout(r, 2 * PERIOD * 1000));
    expect(replicas()).toBe(after);
  });

  it('an object the CRD admits but the sync finds invalid: its status says why, nothing is scaled', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: shpa.dev/v1',
        'kind: ServerlessHorizontalPodAutoscaler',
        'metadata: {name: api, namespace: demo}',
        'spec:',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}',
        '  minReplicas: 1',
        '  maxReplicas: 5',
        '  metrics:',
        '    - type: ContainerResource',
        '      containerResource: {name: "example.com/bad_name!", container: app, target: {type: AverageValue, averageValue: "1"}}',
      ].join('\n'),
    );
    await kubectl('apply', '-f', file);
    up.setLoad('demo', 'api', 10);
    const reason = await within(3, () => kubectl('get', 'shpa', 'api', '-o', 'jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}'), (r) => r === 'InvalidSpec');
    expect(reason).toBe('InvalidSpec');
    expect(await kubectl('describe', 'shpa', 'api')).toMatch(/Warning\s+InvalidSpec\s+\S+\s+serverless-hpa\s+the spec is invalid and is not acted on until it is fixed: spec\.metrics\[0\]\.containerResource\.name: Invalid value/);
    expect(up.model.replicasOf('demo', 'Deployment', 'api')).toBe(2);
    await kubectl('delete', '-f', file);
  });

  it('examples/kubernetes/scale-to-zero.yaml: to zero on an empty queue, held there below the activation threshold, back up above it', async () => {
    const queue = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'reports' }] };
    const reports = () => up.model.replicasOf('demo', 'Deployment', 'reports');
    const condition = (type: string) => kubectl('get', 'shpa', 'reports', '-o', `jsonpath={.status.conditions[?(@.type=="${type}")].status}/{.status.conditions[?(@.type=="${type}")].reason}`);
    expect(await kubectl('apply', '-f', 'examples/kubernetes/scale-to-zero.yaml')).toBe(
      'cloudwatchmetric.shpa.dev/reports-backlog created\nserverlesshorizontalpodautoscaler.shpa.dev/reports created\n',
    );
    // An empty queue (no datapoint: defaultValue 0): 1 → 0 after the 15 s window.
    expect(await within(8, () => condition('ScaledToZero'), (c) => c === 'True/ScaledToZero')).toBe('True/ScaledToZero');
    expect(reports()).toBe(0);
    // The workload at zero keeps its selector and has no pods; nothing reads that as an error.
    const scale = JSON.parse(await kubectl('get', '--raw', '/apis/apps/v1/namespaces/demo/deployments/reports/scale')) as { spec: { replicas?: number }; status: { replicas?: number; selector?: string } };
    // autoscaling/v1 Scale: spec.replicas omitted when zero (omitempty), as the real API server writes it.
    expect(scale.spec.replicas ?? 0).toBe(0);
    expect(scale.status).toEqual({ replicas: 0, selector: 'app=reports' });
    // Its last pod goes once its 5 s grace period is over.
    expect(await within(2, () => kubectl('get', 'pods', '-l', 'app=reports', '-o', 'name'), (t) => t === '')).toBe('');
    // Held at zero below the threshold (0 ≤ 10), and the status says why; the autoscaler stays Ready.
    // (A value between 0 and the threshold holding it there is in test/hpa/activation.test.ts.)
    expect(await condition('ScalingActive')).toBe('True/BelowActivationThreshold');
    expect(await kubectl('get', 'shpa', 'reports', '-o', 'jsonpath={.status.conditions[?(@.type=="ScalingActive")].message}')).toBe(
      'the target stays at zero replicas: no metric is above its activation threshold (reports-backlog: 0 (activation 10))',
    );
    expect(await kubectl('get', 'shpa', 'reports', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')).toBe('True');
    // 25 messages: above it, back up by the ordinary algorithm (25 / 10 a replica = 3), ScaledToZero False.
    // The worker reads the queue's latest complete 60 s period, and keeps each answer for its period: within a minute or so.
    up.cloudWatch.setSeriesFunction(queue, () => 25);
    expect(await within(18, () => condition('ScaledToZero'), (c) => c === 'False/NotScaledToZero')).toBe('False/NotScaledToZero');
    expect(reports()).toBe(3);
    const described = await kubectl('describe', 'shpa', 'reports');
    expect(described).toMatch(/Reason:\s+NotScaledToZero\s+Status:\s+False\s+Type:\s+ScaledToZero/);
    expect(described).toMatch(/Normal\s+SuccessfulRescale\s+\S+\s+serverless-hpa\s+New size: 0; reason: All metrics below target/);
    expect(described).toMatch(/Normal\s+SuccessfulRescale\s+\S+\s+serverless-hpa\s+New size: 3; reason: external metric reports-backlog\(nil\) above target/);
    await kubectl('delete', '-f', 'examples/kubernetes/scale-to-zero.yaml');
  }, 150_000);

  it('examples/kubernetes/sqs-queue.yaml: demo/orders to zero on its empty queue, up on `sqs send orders`, back to zero on `sqs receive orders`', async () => {
    const orders = () => up.model.replicasOf('demo', 'Deployment', 'orders');
    const typed = (line: string) => command({ ...up, queues: { endpoint: up.fns.sqs.endpoint, region: up.region, internal: ['work', 'work-dlq'] } }, line.split(' '));
    expect(await kubectl('apply', '-f', 'examples/kubernetes/sqs-queue.yaml')).toBe('sqsqueuemetric.shpa.dev/orders-backlog created\nserverlesshorizontalpodautoscaler.shpa.dev/orders created\n');
    // The empty queue: 1 → 0 once the 15 s window has passed.
    expect(await within(8, async () => orders(), (n) => n === 0)).toBe(0);
    expect(await typed('sqs send orders --count 50')).toBe('sent 50 messages to orders; orders now: 50 visible, 0 in flight, 0 delayed');
    // Read live at the next tick: above the activation threshold (2), out of zero; then 50 / 5 a replica = 10
    // (upstream's default scale-up policies allow +4 pods or +100 % per 15 s: 1 → 5, then 10 a 15 s window later).
    expect(await within(2, async () => orders(), (n) => n > 0)).toBeGreaterThan(0);
    expect(await within(8, async () => orders(), (n) => n === 10)).toBe(10);
    expect(await kubectl('get', 'shpa', 'orders', '-o', 'jsonpath={.status.metricSources[0]}')).toMatch(/^SQSQueueMetric demo\/orders-backlog/);
    expect(await typed('sqs receive orders --count 50')).toMatch(/^received and deleted 50 messages; orders now: 0 visible/);
    expect(await within(8, async () => orders(), (n) => n === 0)).toBe(0);
    expect(await kubectl('get', 'shpa', 'orders', '-o', 'jsonpath={.status.conditions[?(@.type=="ScaledToZero")].status}')).toBe('True');
    await kubectl('delete', '-f', 'examples/kubernetes/sqs-queue.yaml');
  }, 180_000);

  it.skipIf(!havePrometheus)('examples/kubernetes/web-requests.yaml: catalog scales on PromQL, signed for AMP, answered by the real Prometheus', async () => {
    expect(up.prometheus).toBeDefined();
    expect(await kubectl('apply', '-f', 'examples/kubernetes/web-requests.yaml')).toBe('prometheusmetric.shpa.dev/http-requests created\nserverlesshorizontalpodautoscaler.shpa.dev/catalog created\n');
    up.setLoad('demo', 'catalog', 4);
    const value = () => kubectl('get', 'shpa', 'catalog', '-o', 'jsonpath={.status.currentMetrics[0].external.current.averageValue}');
    const read = await within(6, value, (v) => v !== '');
    expect(read).toMatch(/^\d+(\.\d+)?m?$/);
    expect(await kubectl('get', 'shpa', 'catalog', '-o', 'jsonpath={.status.conditions[?(@.type=="ScalingActive")].reason}')).toBe('ValidMetricFound');
    // 40 requests a second at 5 a pod: up from 2.
    const scaled = await within(6, async () => up.model.replicasOf('demo', 'Deployment', 'catalog'), (n) => n > 2);
    expect(scaled).toBeGreaterThan(2);
    await kubectl('delete', '-f', 'examples/kubernetes/web-requests.yaml');
  });
});
