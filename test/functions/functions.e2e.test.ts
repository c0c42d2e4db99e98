// The dispatcher, the worker, the stream and events functions end to end on local parts
// (harness.ts): ticks as delayed SQS messages, one short cycle per message, evaluations on
// change events, and what is dropped when messages come twice, late or out of order.
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bucketPk } from '../../lib/store/items.js';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/stack/functions.js';
import { bucketOf } from '../../lib/sync/shards.js';
import { dynamoDbLocalUnavailable, type DynamoServer } from '../support/dynamo.js';
import { BACKLOG_METRIC, backlogMetric, backlogObject, CLUSTER, hpa, MIN, START, startDynamo, startHarness, type Harness } from './harness.js';

const T_UP = START + 2 * MIN;
const T_DOWN = START + 8 * MIN;

let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.stop()));
  harnesses = [];
});

interface Tick {
  at: string;
  trigger: string;
  outcome: string;
  current?: number;
  desired?: number;
  recommendation?: number;
  steps: string[];
}

function ticksOf(lines: LogLine[]): Tick[] {
  return lines.map((l) => {
    const decision = l.decision as { recommendation?: number; steps: { rule: string }[] } | undefined;
    return {
      at: String(l.cycleStartedAt),
      trigger: String(l.trigger),
      outcome: String(l.outcome),
      current: l.currentReplicas as number | undefined,
      desired: l.desiredReplicas as number | undefined,
      recommendation: decision?.recommendation,
      steps: decision?.steps.map((s) => s.rule) ?? [],
    };
  });
}

const messages = (h: Harness, why?: string) => h.fns.lines.filter((l) => l.message === 'message' && (!why || (l.workMessage as { why?: string }).why === why));

describe('on dynalite', () => {
  let server: DynamoServer;
  beforeAll(async () => {
    server = await startDynamo('dynalite');
  });
  afterAll(() => server?.stop());

  async function arrange(replicas = 2, workerConcurrency = 1, setup?: (h: Harness) => void): Promise<Harness> {
    const h = await startHarness({ server, kind: 'dynalite' }, { workerConcurrency });
    harnesses.push(h);
    setup?.(h);
    h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
    const now = h.clock.now();
    await h.fns.admin.applySpec(CLUSTER, backlogObject, now);
    // behavior: {} → upstream's default rules (scale up max(+4 pods, +100 %) per 15 s; down 100 % per 15 s after a 300 s window).
    await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {} }), now);
    h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, (s) => (s * 1000 < T_UP ? 20 : s * 1000 < T_DOWN ? 200 : 20), 60);
    await h.fns.drain(); // the two applies' evaluations
    return h;
  }

  it('ticks exactly one period apart scale up by the default policies, hold for the stabilization window, then scale down', async () => {
    const h = await arrange();
    await h.run(18 * 4);
    const ticks = ticksOf(h.decisions('web')).filter((t) => t.trigger === 'tick');
    expect(ticks).toHaveLength(18 * 4);
    // Every tick exactly 15 s after the previous one: the gap is the sync period.
    const gaps = ticks.slice(1).map((t, i) => Date.parse(t.at) - Date.parse(ticks[i].at));
    expect(new Set(gaps)).toEqual(new Set([15_000]));
    expect(h.k8s.count('PATCH', /\/scale$/)).toBe(ticks.filter((t) => t.outcome === 'scaled').length);

    const firstUp = ticks.findIndex((t) => t.outcome === 'scaled');
    expect(Date.parse(ticks[firstUp].at)).toBeGreaterThan(T_UP);
    expect(ticks.slice(0, firstUp).every((t) => t.desired === 2 && t.outcome === 'unchanged')).toBe(true);
    // Upstream default scale-up rules: max(+4 pods, +100 %) per 15 s → 2 → 6 → 12 → 20, tick after tick.
    expect(ticks.slice(firstUp, firstUp + 3).map((t) => [t.current, t.desired, t.outcome])).toEqual([
      [2, 6, 'scaled'],
      [6, 12, 'scaled'],
      [12, 20, 'scaled'],
    ]);
    expect(ticks[firstUp].recommendation).toBe(20);
    expect(ticks[firstUp].steps).toContain('scaleUpPolicy');

    // The backlog drops: recommendations of 2 are held at 20 for the 300 s downscale window.
    const lastHigh = ticks.map((t) => t.recommendation).lastIndexOf(20);
    const down = ticks.findIndex((t, i) => i > firstUp + 2 && t.outcome === 'scaled');
    expect(down).toBeGreaterThan(lastHigh);
    for (const t of ticks.slice(lastHigh + 1, down)) {
      expect(t).toMatchObject({ desired: 20, outcome: 'unchanged', recommendation: 2 });
      expect(t.steps).toContain('scaleDownStabilization');
    }
    expect(Date.parse(ticks[down].at) - Date.parse(ticks[lastHigh].at)).toBe(300_000);
    expect(ticks[down]).toMatchObject({ current: 20, desired: 2 });
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
    // One cycle summary per tick, and no invocation lasted longer than its period.
    expect(h.fns.lines.filter((l) => l.message === 'cycle' && (l.cycle as { trigger: string }).trigger === 'tick')).toHaveLength(18 * 4);
  });

  it('duplicate, late, out-of-order and concurrent tick messages are dropped and counted; nothing is scaled twice', async () => {
    const h = await arrange(2, 3);
    h.clock.t = T_UP + 3 * MIN;
    const sqs = new SQSClient({ endpoint: h.fns.sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const tick = (at: number) => JSON.stringify({ kind: 'tick', shard: CLUSTER, tick: new Date(at).toISOString().replace('.000', ''), periodSeconds: 15 });
    const send = (bodies: string[]) => sqs.send(new SendMessageBatchCommand({ QueueUrl: h.fns.queueUrl, Entries: bodies.map((b, i) => ({ Id: String(i), MessageBody: b })) }));
    await h.fns.drain();
    const t0 = h.clock.t;
    // The same tick three times at once (at-least-once delivery), processed concurrently.
    await send([tick(t0), tick(t0), tick(t0)]);
    await h.fns.drain();
    expect(h.decisions('web').filter((l) => l.trigger === 'tick')).toHaveLength(1);
    expect(messages(h, 'duplicate').length + messages(h, 'busy').length).toBe(2);
    // Out of order: the later tick first, then the earlier one.
    h.clock.t = t0 + 20_000;
    await send([tick(t0 + 15_000)]);
    await h.fns.drain();
    await send([tick(t0 + 10_000)]);
    await h.fns.drain();
    // Late: a tick older than a period.
    h.clock.t = t0 + 40_000;
    await send([tick(t0 + 20_000)]);
    await h.fns.drain();
    expect(messages(h, 'late')).toHaveLength(1);
    expect(messages(h, 'duplicate').length).toBeGreaterThanOrEqual(2);
    const ticks = h.decisions('web').filter((l) => l.trigger === 'tick');
    expect(ticks).toHaveLength(2);
    expect(h.k8s.count('PATCH', /\/scale$/)).toBe(h.decisions('web').filter((l) => l.outcome === 'scaled').length);
    // Each message that ran no cycle (and was not sent again) is counted, without detailed metrics.
    const lost = messages(h).filter((l) => {
      const w = l.workMessage as { outcome: string; requeued?: boolean };
      return w.outcome === 'dropped' || (w.outcome === 'busy' && !w.requeued);
    });
    expect(lost.length).toBeGreaterThanOrEqual(3);
    expect(h.fns.emf.reduce((n, d) => n + (typeof d.DroppedMessages === 'number' ? d.DroppedMessages : 0), 0)).toBe(lost.length);
    sqs.destroy();
  });

  it('SQS failing while the dispatcher sends: the ticks it did not take are sent again, each once, and said', async () => {
    const h = await arrange();
    h.clock.t = START + 2 * MIN;
    // Every attempt the SDK makes of the first call fails: the minute's four ticks are not sent.
    h.fns.sqs.failNext('SendMessageBatch', 'internal-error', 3);
    expect(await h.fns.dispatch(new Date(h.clock.t))).toMatchObject({ sent: 4, lost: 0, late: 0 });
    const line = h.fns.lines.filter((l) => l.message === 'dispatch').at(-1);
    expect(line).toMatchObject({ level: 'WARN', dispatch: { sent: 4, lost: 0, attempts: 2, errors: [expect.stringMatching(/^SQS SendMessageBatch failed: /)] } });
    for (let i = 0; i < 4; i++) {
      await h.fns.drain();
      h.clock.t += 15_000;
    }
    expect(h.fns.lines.filter((l) => l.message === 'cycle' && (l.cycle as { trigger: string }).trigger === 'tick')).toHaveLength(4);
    expect(messages(h, 'duplicate')).toEqual([]);
  });

  it('a spec change is evaluated at once, between ticks, and the decision says what triggered it', async () => {
    const h = await arrange();
    h.clock.t = T_UP + 3 * MIN;
    await h.run(1);
    // The tick due now runs first: the change comes 3 s after it, between two ticks.
    await h.fns.drain();
    const before = h.model.replicasOf('apps', 'Deployment', 'web');
    h.clock.t += 3_000;
    await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {}, maxReplicas: 4 }), h.clock.now());
    await h.fns.drain();
    const evaluated = h.decisions('web').filter((l) => l.trigger === 'evaluate');
    expect(evaluated.at(-1)).toMatchObject({ cycleStartedAt: new Date(h.clock.t).toISOString(), desiredReplicas: 4 });
    expect(before).toBeGreaterThan(4);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(4);
  });

  it('evaluate-now and alarm events evaluate what they name, through the same worker', async () => {
    const h = await arrange();
    await h.fns.admin.applySpec(CLUSTER, { ...backlogObject, spec: { ...backlogObject.spec, alarmName: 'jobs-high' } }, h.clock.now());
    await h.fns.drain();
    const before = h.decisions('web').length;
    // Seconds apart, as people and alarms act (within one second, three evaluations of one autoscaler are a burst that coalesces).
    h.clock.t += 2_000;
    await h.fns.evaluateNow(CLUSTER, 'apps', 'web');
    await h.fns.drain();
    expect(h.decisions('web').length).toBe(before + 1);
    h.clock.t += 2_000;
    await h.fns.publish({ source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', detail: { alarmName: 'jobs-high', state: { value: 'ALARM' } } });
    await h.fns.drain();
    expect(h.decisions('web').length).toBe(before + 2);
    // the shard's cycles recorded the alarms its CloudWatchMetric objects name: another alarm is sent nowhere
    expect(await h.fns.publish({ source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', detail: { alarmName: 'unrelated', state: { value: 'ALARM' } } })).toEqual({ sent: 0 });
    await h.fns.drain();
    expect(h.decisions('web').length).toBe(before + 2);
    // A bad event is said, not retried.
    await h.fns.evaluateNow('nope', 'apps', 'web');
    expect(h.fns.lines.some((l) => l.message === 'event ignored' && /cluster nope is not configured/.test(String(l.ignored)))).toBe(true);
  });

  it('an evaluation still waiting for the evaluator past its maximum event age never runs: it is set aside on the failed-events queue, with its message', async () => {
    const h = await arrange();
    await h.fns.drain();
    const before = h.decisions('web').length;
    h.clock.t += 2_000;
    expect(await h.fns.evaluateNow(CLUSTER, 'apps', 'web')).toEqual({ sent: 1 });
    // held (the evaluator's concurrency taken, say) for longer than a period and Lambda's 60 s: a tick has covered it since
    h.clock.t += 61_000;
    await h.fns.evaluator.drain();
    expect(h.decisions('web').length).toBe(before);
    const sqs = new SQSClient({ endpoint: h.fns.sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: h.fns.failedEventsQueueUrl, MaxNumberOfMessages: 10 }));
    const records = (got.Messages ?? []).map((m) => JSON.parse(m.Body!) as { requestContext: { condition: string }; requestPayload: { kind: string; shard: string; targets: unknown[] } });
    expect(records).toEqual([expect.objectContaining({ requestContext: expect.objectContaining({ condition: 'EventAgeExceeded' }), requestPayload: expect.objectContaining({ kind: 'evaluate', targets: [{ kind: 'hpa', namespace: 'apps', name: 'web' }] }) })]);
  });

  it('a storm of evaluate-now events for one autoscaler (150 in 5 s) costs a handful of cycles; the ticks still run at their time', async () => {
    const h = await arrange();
    const minute = T_UP + 3 * MIN;
    h.clock.t = minute;
    await h.fns.dispatch(new Date(minute));
    const ticksBefore = h.fns.lines.filter((l) => l.message === 'cycle' && (l.cycle as { trigger: string }).trigger === 'tick').length;
    const cyclesBefore = h.fns.lines.filter((l) => l.message === 'cycle' && (l.cycle as { trigger: string }).trigger === 'evaluate').length;
    // 30 a second from 13 s to 18 s: across the tick of 15 s (the cost per event is the same at 1,000: each is one queued message).
    for (const s of [0, 13, 14, 15, 16, 17, 18, 19, 30, 45]) {
      h.clock.t = minute + s * 1000;
      if (s >= 13 && s < 18) await Promise.all(Array.from({ length: 30 }, () => h.fns.evaluateNow(CLUSTER, 'apps', 'web')));
      await h.fns.drain();
    }
    const cycles = h.fns.lines.filter((l) => l.message === 'cycle').map((l) => l.cycle as { trigger: string; tick?: string; startedAt: string });
    const ticks = cycles.filter((c) => c.trigger === 'tick').slice(ticksBefore);
    // all four ticks of the minute, each started within a second of its time (a tick behind an evaluation waits one second)
    expect(ticks.map((c) => c.tick)).toEqual([0, 15, 30, 45].map((s) => new Date(minute + s * 1000).toISOString()));
    for (const c of ticks) expect(Date.parse(c.startedAt) - Date.parse(c.tick!)).toBeLessThanOrEqual(1_000);
    expect(messages(h, 'late')).toEqual([]);
    // every event became an evaluation; those a cycle already covered were dropped as such, not run
    const evaluations = cycles.filter((c) => c.trigger === 'evaluate').length - cyclesBefore;
    expect(evaluations).toBeGreaterThanOrEqual(1);
    // at most two a second while it lasts: one covering what came before it, one for the burst a second later
    expect(evaluations).toBeLessThanOrEqual(2 * 5 + 2);
    const coalesced = h.fns.lines.filter((l) => l.message === 'message' && (l.workMessage as { outcome: string }).outcome === 'coalesced');
    expect(coalesced.length).toBeGreaterThan(150 - 2 * 5 - 2);
  }, 60_000);

  it('a metrics outage never scales down, and the conditions say why', async () => {
    const h = await arrange(6, 1, (x) => x.cloudWatch.failNext(...Array.from({ length: 50 }, () => 'AccessDenied' as const)));
    await h.run(4);
    const lines = h.decisions('web').filter((l) => l.trigger === 'tick');
    expect(lines).toHaveLength(4);
    for (const l of lines) {
      expect(l).toMatchObject({ outcome: 'unchanged', currentReplicas: 6, patched: false, level: 'WARN' });
      expect((l.decision as { skipped: { reason: string } }).skipped.reason).toBe('FailedGetExternalMetric');
    }
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(6);
    const stored = await h.fns.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ScalingActive', status: 'False', reason: 'FailedGetExternalMetric' }));
    // A failing metric is a decision, not a failed invocation: nothing for SQS to retry (and drop as late).
    expect(h.fns.worker.counters.errors).toBe(0);
    const dropped = h.fns.lines.filter((l) => l.message === 'message' && (l.workMessage as { why?: string }).why === 'late');
    expect(dropped).toEqual([]);
  });

  it('a bad record in the table is reported; the other autoscalers scale', async () => {
    const h = await arrange();
    h.clock.t = T_UP + 3 * MIN;
    await h.fns.admin.doc.send(
      new PutCommand({ TableName: h.fns.config.tableName, Item: { pk: bucketPk(CLUSTER, bucketOf('apps')), sk: 'hpa#apps#broken', kind: 'HorizontalPodAutoscaler', doc: '{"spec": tru', v: 1, ct: 'x', ut: 'x' } }),
    );
    await h.run(1);
    expect(h.decisions('broken').at(-1)).toMatchObject({ outcome: 'broken', level: 'ERROR' });
    expect(h.decisions('web').at(-1)).toMatchObject({ outcome: 'scaled', currentReplicas: 2, desiredReplicas: 6 });
    const summary = h.fns.lines.filter((l) => l.message === 'cycle').at(-1) as { cycle: { counts: Record<string, number> } };
    expect(summary.cycle.counts).toMatchObject({ autoscalers: 2, broken: 1, scaled: 1 });
  });
});

const noLocal = dynamoDbLocalUnavailable();
if (noLocal) console.warn(`skipping the end-to-end tests on DynamoDB Local's real stream: ${noLocal}`);

describe.skipIf(noLocal !== undefined)("on DynamoDB Local, with the table's real stream", () => {
  let server: DynamoServer;
  beforeAll(async () => {
    server = await startDynamo('dynamodb-local');
  }, 120_000);
  afterAll(() => server?.stop());

  it('shpa apply of a spec is evaluated within seconds through the stream, not at the next tick', async () => {
    const h = await startHarness({ server, kind: 'dynamodb-local' });
    harnesses.push(h);
    h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas: 2, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
    h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, () => 200, 60);
    await h.fns.admin.applySpec(CLUSTER, backlogObject, h.clock.now());
    h.clock.t += 5_000;
    const applied = h.clock.t;
    await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {} }), h.clock.now());
    const { streamRecords } = await h.fns.drain();
    expect(streamRecords).toBeGreaterThanOrEqual(1);
    const [first] = h.decisions('web');
    expect(first).toMatchObject({ trigger: 'evaluate', outcome: 'scaled', desiredReplicas: 6 });
    expect(Date.parse(String(first.cycleStartedAt)) - applied).toBeLessThan(5_000);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(6);
    // State writes are not spec items: the stream filter keeps them from the stream function.
    const fromStream = h.fns.lines.filter((l) => l.function === 'stream' && l.message === 'spec changes');
    expect(fromStream.reduce((n, l) => n + (l.specChanges as { records: number }).records, 0)).toBe(2);
  });
});
