// The pure parts of the event-driven design: shards and buckets, the dispatcher's tick plan,
// the work messages, change events as evaluations, the event log, pending scales.
import { describe, expect, it } from 'vitest';
import { planTicks } from '../../lib/sync/dispatch.js';
import { recordEvents, logNeedsWrite, REPEAT_WRITE_INTERVAL_MS } from '../../lib/sync/event-log.js';
import { fromBusEvent, fromSpecChanges } from '../../lib/sync/event-sources.js';
import { parseWorkMessage, type EvaluateMessage, type TickMessage } from '../../lib/sync/messages.js';
import { inFlightMs, resolvePending } from '../../lib/sync/pending.js';
import type { ClusterConfig } from '../../lib/sync/ports/cluster-access.js';
import { bucketOf, bucketsOf, NAMESPACE_BUCKETS, ownsAutoscaler, parseShardId, shardId, shardOfAutoscaler, shardOfNamespace, shardsOf, shardsOfNamespace } from '../../lib/sync/shards.js';

const clusters: ClusterConfig[] = [
  { name: 'prod', region: 'eu-west-1', shards: 4 },
  { name: 'batch', region: 'eu-west-1', shards: 1 },
];
const body = (m: { body: string }) => JSON.parse(m.body) as Omit<TickMessage, 'kind'> & Omit<EvaluateMessage, 'kind'> & { kind: string };
/** Each message's shard and SQS message group, sorted. */
const groups = (messages: { body: string; groupId: string }[]) => messages.map((m) => [body(m).shard, m.groupId]).sort();

describe('shards', () => {
  it('each bucket belongs to exactly one shard, whatever K', () => {
    for (const k of [1, 2, 4, 8, 16]) {
      const all = Array.from({ length: k }, (_, index) => bucketsOf({ cluster: 'c', index, count: k })).flat().sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: NAMESPACE_BUCKETS }, (_, b) => b));
    }
  });

  it('past 16 shards a bucket is cut by autoscaler name: each autoscaler in exactly one shard, a namespace spread over its bucket\'s parts', () => {
    const names = Array.from({ length: 400 }, (_, i) => `app-${i}`);
    for (const k of [32, 256]) {
      const owners = names.map((n) => shardsOf('prod', k).filter((s) => ownsAutoscaler(s, 'big', n)));
      expect(owners.every((o) => o.length === 1)).toBe(true);
      expect(owners.map(([o]) => o)).toEqual(names.map((n) => shardOfAutoscaler('prod', k, 'big', n)));
      expect(new Set(owners.map(([o]) => o.index)).size).toBe(k / NAMESPACE_BUCKETS);
      expect(shardsOfNamespace('prod', k, 'big').map((s) => s.index).sort((a, b) => a - b)).toEqual([...new Set(owners.map(([o]) => o.index))].sort((a, b) => a - b));
    }
  });

  it('a namespace stays in its bucket, and its shard is the one owning the bucket', () => {
    expect(bucketOf('apps')).toBe(bucketOf('apps'));
    const s = shardOfNamespace('prod', 4, 'apps');
    expect(bucketsOf(s)).toContain(bucketOf('apps'));
    expect(new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map(bucketOf)).size).toBeGreaterThan(4);
  });

  it('shard ids read back, and bad ones are named', () => {
    expect(shardId({ cluster: 'prod', index: 0, count: 1 })).toBe('prod');
    expect(parseShardId('prod/2of4')).toEqual({ cluster: 'prod', index: 2, count: 4 });
    expect(() => parseShardId('prod/4of4')).toThrow(/index 4 is not below 4/);
    expect(() => parseShardId('prod/0of3')).toThrow(/K must be one of 2, 4, 8, 16, 32, 64, 128, 256/);
    expect(parseShardId('prod/37of64')).toEqual({ cluster: 'prod', index: 37, count: 64 });
    expect(() => parseShardId('pr od')).toThrow(/is not CLUSTER or CLUSTER\/IofK/);
  });
});

describe('the dispatcher plan', () => {
  const minute = Date.parse('2026-03-01T10:00:00Z');

  it('one message per shard per tick of the minute, delayed to its exact second', () => {
    const plan = planTicks(clusters, new Date(minute), new Date(minute + 400), 15);
    expect(plan.messages).toHaveLength(5 * 4);
    expect([...new Set(plan.messages.map((m) => m.delaySeconds))]).toEqual([0, 15, 30, 45]);
    const prod0 = plan.messages.filter((m) => body(m).shard === 'prod/0of4');
    expect(prod0.map((m) => body(m).tick)).toEqual(['2026-03-01T10:00:00Z', '2026-03-01T10:00:15Z', '2026-03-01T10:00:30Z', '2026-03-01T10:00:45Z']);
    expect(prod0.every((m) => parseWorkMessage(m.body).kind === 'tick')).toBe(true);
  });

  it("each tick goes in its cluster's message group (SQS fair queues: one cluster's backlog cannot hold back another's ticks)", () => {
    const plan = planTicks(clusters, new Date(minute), new Date(minute), 30);
    expect(groups(plan.messages)).toEqual([
      ['batch', 'batch'],
      ['batch', 'batch'],
      ...['prod/0of4', 'prod/0of4', 'prod/1of4', 'prod/1of4', 'prod/2of4', 'prod/2of4', 'prod/3of4', 'prod/3of4'].map((s) => [s, 'prod']),
    ]);
  });

  it('any period that divides 60, or is a multiple of it', () => {
    expect(planTicks(clusters.slice(1), new Date(minute), new Date(minute), 20).messages.map((m) => m.delaySeconds)).toEqual([0, 20, 40]);
    expect(planTicks(clusters.slice(1), new Date(minute), new Date(minute), 120).messages).toHaveLength(1); // 10:00 is a multiple of 2 minutes
    expect(planTicks(clusters.slice(1), new Date(minute + 60_000), new Date(minute + 60_000), 120).messages).toHaveLength(0);
  });

  it("a shard ticks at its own period and offset (its autoscalers' syncPeriodSeconds, its data's phase), the others on the even seconds", () => {
    const timing = new Map([
      ['prod/1of4', { offsetSeconds: 7 }],
      ['batch', { periodSeconds: 5, offsetSeconds: 1 }],
    ]);
    const plan = planTicks(clusters, new Date(minute), new Date(minute), 15, timing);
    const ticksOf = (shard: string) => plan.messages.filter((m) => body(m).shard === shard).map((m) => [m.delaySeconds, body(m).periodSeconds]);
    expect(ticksOf('prod/0of4')).toEqual([0, 15, 30, 45].map((s) => [s, 15]));
    expect(ticksOf('prod/1of4')).toEqual([7, 22, 37, 52].map((s) => [s, 15]));
    expect(ticksOf('batch')).toEqual(Array.from({ length: 12 }, (_, i) => [i * 5 + 1, 5]));
    // an offset learned at another period falls within this one
    expect(planTicks(clusters.slice(1), new Date(minute), new Date(minute), 15, new Map([['batch', { offsetSeconds: 17 }]])).messages.map((m) => m.delaySeconds)).toEqual([2, 17, 32, 47]);
    // learning or probing when its data changes: one offset per tick of the minute (lib/sync/visibility.ts)
    expect(planTicks(clusters.slice(1), new Date(minute), new Date(minute), 15, new Map([['batch', { offsetSeconds: 7, offsetsSeconds: [8, 7, 7, 6] }]])).messages.map((m) => m.delaySeconds)).toEqual([8, 22, 37, 51]);
  });

  it('a late invocation sends only the ticks still ahead (or just due), an old event none', () => {
    const late = planTicks(clusters.slice(1), new Date(minute), new Date(minute + 20_000), 15);
    expect(late.messages.map((m) => [body(m).tick.slice(14, 19), m.delaySeconds])).toEqual([
      ['00:15', 0],
      ['00:30', 10],
      ['00:45', 25],
    ]);
    expect(late.late).toBe(1);
    expect(planTicks(clusters, new Date(minute), new Date(minute + 61_000), 15)).toMatchObject({ tooOld: true, messages: [] });
  });
});

describe('work messages', () => {
  it.each([
    ['not json', /^not JSON/],
    ['[]', /must be a JSON object/],
    ['{"kind":"tick","shard":"prod","tick":"yesterday","periodSeconds":15}', /^tick: must be an ISO 8601 UTC time/],
    ['{"kind":"tick","shard":"pr od","tick":"2026-01-01T00:00:00Z","periodSeconds":15}', /^shard: shard "pr od"/],
    ['{"kind":"evaluate","shard":"prod","targets":[],"reason":"x","at":"2026-01-01T00:00:00Z","attempt":1}', /^targets: must be a list of 1 to 500/],
    ['{"kind":"evaluate","shard":"prod","targets":[{"kind":"pod"}],"reason":"x","at":"2026-01-01T00:00:00Z","attempt":1}', /^targets\[0\]\.kind: must be "hpa", "cwm" or "alarm"/],
    ['{"kind":"scale","shard":"prod"}', /^kind: must be "tick" or "evaluate"/],
  ])('%s is refused, naming the field', (text, message) => {
    expect(() => parseWorkMessage(text)).toThrow(message);
  });
});

describe('change events as evaluations', () => {
  const now = new Date('2026-03-01T10:00:00Z');

  it('spec changes: one message per shard concerned, naming each autoscaler or CloudWatchMetric', () => {
    const plan = fromSpecChanges(
      [
        { cluster: 'prod', namespace: 'apps', name: 'web', kind: 'hpa', at: now },
        { cluster: 'prod', namespace: 'apps', name: 'queue', kind: 'cwm', at: now },
        { cluster: 'gone', namespace: 'apps', name: 'x', kind: 'hpa', at: now },
      ],
      clusters,
    );
    expect(plan.messages).toHaveLength(1);
    expect(body(plan.messages[0])).toMatchObject({
      kind: 'evaluate',
      shard: shardId(shardOfNamespace('prod', 4, 'apps')),
      targets: [
        { kind: 'hpa', namespace: 'apps', name: 'web' },
        { kind: 'cwm', namespace: 'apps', name: 'queue' },
      ],
      reason: 'spec change',
      attempt: 1,
    });
    expect(plan.ignored).toEqual(['apps/x: cluster gone is not configured for this deploy']);
  });

  it("every evaluation goes in its cluster's message group", () => {
    const specs = fromSpecChanges(
      ['apps', 'web', 'jobs', 'kube-system'].map((namespace) => ({ cluster: 'prod', namespace, name: 'x', kind: 'hpa' as const, at: now })),
      clusters,
    );
    expect(specs.messages.length).toBeGreaterThan(1);
    expect(specs.messages.every((m) => m.groupId === 'prod')).toBe(true);
    const alarm = fromBusEvent({ source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', time: now.toISOString(), detail: { alarmName: 'queue-high' } }, clusters, now);
    expect(groups(alarm.messages)).toEqual([['batch', 'batch'], ...['prod/0of4', 'prod/1of4', 'prod/2of4', 'prod/3of4'].map((s) => [s, 'prod'])]);
    const one = fromBusEvent({ source: 'shpa.dev', 'detail-type': 'Evaluate Autoscaler', detail: { cluster: 'prod', namespace: 'jobs', name: 'worker' } }, clusters, now);
    expect(groups(one.messages)).toEqual([[shardId(shardOfNamespace('prod', 4, 'jobs')), 'prod']]);
  });

  it('an alarm state change goes to every shard (which CloudWatchMetric names it is known there)', () => {
    const plan = fromBusEvent({ source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', time: now.toISOString(), detail: { alarmName: 'queue-high', state: { value: 'ALARM' } } }, clusters, now);
    expect(plan.messages.map((m) => body(m).shard).sort()).toEqual(['batch', 'prod/0of4', 'prod/1of4', 'prod/2of4', 'prod/3of4']);
    expect(body(plan.messages[0])).toMatchObject({ targets: [{ kind: 'alarm', alarmName: 'queue-high' }], reason: 'alarm queue-high ALARM' });
  });

  it('evaluate-now names one autoscaler; a bad one is said, not retried', () => {
    const ok = fromBusEvent({ source: 'shpa.dev', 'detail-type': 'Evaluate Autoscaler', detail: { cluster: 'batch', namespace: 'jobs', name: 'worker' } }, clusters, now);
    expect(body(ok.messages[0])).toMatchObject({ shard: 'batch', targets: [{ kind: 'hpa', namespace: 'jobs', name: 'worker' }], reason: 'evaluate-now' });
    expect(fromBusEvent({ source: 'shpa.dev', 'detail-type': 'Evaluate Autoscaler', detail: { cluster: 'batch' } }, clusters, now).ignored[0]).toMatch(/detail\.namespace is missing/);
    expect(fromBusEvent({ source: 'x', 'detail-type': 'y', detail: {} }, clusters, now).ignored[0]).toMatch(/not one this function handles/);
  });
});

describe('the event log', () => {
  const t = (s: number) => new Date(Date.parse('2026-03-01T10:00:00Z') + s * 1000);
  const failed = { type: 'Warning' as const, reason: 'FailedGetScale', message: 'deployments.apps "web" not found' };

  it('aggregates repeats as the event recorder does, counting the cycles between stored repeats', () => {
    let log = recordEvents([], [failed], t(0), 15_000);
    log = recordEvents(log, [failed], t(15), 15_000);
    expect(log).toEqual([{ ...failed, firstTimestamp: t(0).toISOString(), lastTimestamp: t(15).toISOString(), count: 2 }]);
    // Not stored for five minutes: the next repeat counts the cycles since.
    log = recordEvents(log, [failed], t(315), 15_000);
    expect(log[0].count).toBe(22);
  });

  it('counts a rescale once each time it happens, however long since the last', () => {
    const rescale = { type: 'Normal' as const, reason: 'SuccessfulRescale', message: 'New size: 4; reason: cpu resource utilization (percentage of request) above target', from: 2, to: 4 };
    let log = recordEvents([], [rescale], t(0), 15_000);
    // The same 2 → 4 again four periods later (a scale-down between, say): one more, not four.
    log = recordEvents(log, [rescale], t(60), 15_000);
    expect(log).toEqual([{ ...rescale, firstTimestamp: t(0).toISOString(), lastTimestamp: t(60).toISOString(), count: 2 }]);
  });

  it('a repeat alone is worth a write at most every few minutes; a new entry at once', () => {
    const stored = recordEvents([], [failed], t(0), 15_000);
    expect(logNeedsWrite(stored, recordEvents(stored, [failed], t(15), 15_000), t(15).getTime())).toBe(false);
    expect(logNeedsWrite(stored, recordEvents(stored, [failed], t(300), 15_000), t(0).getTime() + REPEAT_WRITE_INTERVAL_MS)).toBe(true);
    expect(logNeedsWrite(stored, recordEvents(stored, [{ ...failed, reason: 'SuccessfulRescale', type: 'Normal' }], t(15), 15_000), t(15).getTime())).toBe(true);
  });

  it('is bounded, oldest dropped first', () => {
    let log = recordEvents([], [failed], t(0), 15_000);
    for (let i = 1; i <= 20; i++) log = recordEvents(log, [{ ...failed, message: `m${i}` }], t(i), 15_000);
    expect(log).toHaveLength(12);
    expect(log.at(-1)!.message).toBe('m20');
  });
});

describe('a pending scale, settled from the target', () => {
  const history = { recommendations: null, scaleUpEvents: [{ timestamp: '2026-03-01T10:00:00Z', change: 4 }], scaleDownEvents: [] };
  const pending = { from: 2, to: 6, at: '2026-03-01T10:00:00Z', resourceVersion: '7', previousScaleTime: '2026-03-01T09:00:00Z' };
  const scale = (replicas: number, rv: string) => ({ specReplicas: replicas, statusReplicas: replicas, selector: 'app=web', resourceVersion: rv });
  const PERIOD_MS = 15_000;
  /** Once the deciding cycle's lease (two periods) and the Kubernetes time budget (8 s) are over: 38 s after the decision. */
  const settled = new Date('2026-03-01T10:00:38Z');
  const resolve = (replicas: number, rv: string, now = settled) => resolvePending(pending, scale(replicas, rv), history, 'Deployment/web', now, inFlightMs(PERIOD_MS, 8_000));

  it('the target has the new size: it happened (at once, however young the scale)', () => {
    expect(resolve(6, '8', new Date('2026-03-01T10:00:01Z'))).toEqual({ outcome: 'confirmed', history });
  });

  it('the target is unchanged since the read: it never happened, and its scale event goes', () => {
    const r = resolve(2, '7');
    expect(r).toMatchObject({ outcome: 'notApplied', lastScaleTime: '2026-03-01T09:00:00Z', event: { type: 'Warning', reason: 'ScaleNotApplied' } });
    expect(r.outcome !== 'inFlight' && r.history.scaleUpEvents).toEqual([]);
  });

  it('unchanged, but the cycle that decided it may still be writing it: left pending, nothing concluded', () => {
    expect(inFlightMs(PERIOD_MS, 8_000)).toBe(38_000);
    const r = resolve(2, '7', new Date(settled.getTime() - 1));
    expect(r).toEqual({
      outcome: 'inFlight',
      reason:
        'the rescale to 6 decided at 2026-03-01T10:00:00Z by another cycle may still be in flight (Deployment/web still has 2, unchanged since): not evaluated until 2026-03-01T10:00:38.000Z, then settled from the target',
    });
  });

  it('someone else changed it since: kept, and said (a write of ours in flight would meet a 409)', () => {
    const r = resolve(3, '9', new Date('2026-03-01T10:00:01Z'));
    expect(r).toMatchObject({ outcome: 'unconfirmed', history, event: { reason: 'ScaleUnconfirmed' } });
  });
});
