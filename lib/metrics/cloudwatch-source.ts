// Reads a cycle's CloudWatchMetric objects with GetMetricData: one request for many
// objects (see cloudwatch-plan), a value cached until a newer datapoint can exist (an
// alarm's read fresh, up to the period it evaluated), throttling and 5xx retried with
// backoff until the cycle's read deadline (then the last error is the answer), every call
// counted.
import { GetMetricDataCommand, type CloudWatchClient, type GetMetricDataCommandOutput, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import type { MetricSample, QuantityString, Timestamp } from '#hpa';
import { createHash } from 'node:crypto';
import type { Clock, DelayLearning, MetricReadOptions, SharedMetricAnswer } from '#sync/ports';
import type { CloudWatchMetric } from '#api';
import { alarmWindowFor, DEFAULT_LOOKBACK_PERIODS, planRequests, specKey, windowFor, type PlannedRequest, type PlannedUnit, type QueryWindow } from './cloudwatch-plan.js';
import { floatToMilliQuantity } from './float-quantity.js';
import { checkUsedValue, closeProbing, dueLearning, observeCounts, probing, SETTLE_SECONDS } from './publish-delay.js';
import { namedErrorText as errorText } from '../shared/error-text.js';
import { backoffMs } from '../shared/backoff.js';

export interface CloudWatchClients {
  clientFor(region: string, roleArn?: string): CloudWatchClient;
}

export interface RetryOptions {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Retries stop when the next attempt would start later than this after the fetch began (or than its readBy). */
  deadlineMs: number;
}

export interface CloudWatchSourceOptions {
  clients: CloudWatchClients;
  /** Region of objects that name none. */
  defaultRegion?: string;
  lookbackPeriods?: number;
  /** Seconds after a period ends before its datapoint is read (CloudWatch publishes late), until a shorter delay is learned. */
  publishDelaySeconds?: number;
  /** Learn each object's publication delay from its sample counts (publish-delay.ts); off: always publishDelaySeconds. */
  learnPublishDelay?: boolean;
  retry?: Partial<RetryOptions>;
  /** The cycle's clock: a fetch's readBy is a time on it. */
  clock?: Clock;
  /**
   * Milliseconds on a monotonic timer, measuring the retry budget: real time by default, as the
   * cycle's deadline timers run in real time even when its clock is virtual (tests, the demo).
   */
  timer?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** GetMetricData requests in flight at once. */
  concurrency?: number;
  /** Told when a learned publication delay proved too short and was reset (the deploy logs it at WARN). */
  onDelayReset?: (reset: DelayReset) => void;
}

/** A learned publication delay thrown away: a datapoint read at it changed afterwards. */
export interface DelayReset {
  /** The CloudWatchMetric objects (namespace/name) reading it. */
  objects: string[];
  /** The period whose value changed (RFC 3339), and its length in seconds. */
  period: string;
  periodSeconds: number;
  /** The value read at the learned delay, and the value read later. */
  old: number;
  new: number;
  learnedDelaySeconds: number;
  /** The delay used from now on while the delay is learned again. */
  delaySeconds: number;
}

export interface CloudWatchStats {
  /** GetMetricData calls sent, including retries and pages. */
  calls: number;
  throttled: number;
  failedCalls: number;
  /** MetricStat queries in calls that succeeded: what CloudWatch bills ($0.01 per 1,000). */
  metricsRequested: number;
  /** All MetricDataQuery entries sent (metric stats and expressions). */
  queriesRequested: number;
  /** Objects answered from the cache: this container's, or the deployment's kept in the table (sharedHits of them). */
  cacheHits: number;
  sharedHits: number;
  /** Distinct objects read from CloudWatch. */
  objectsFetched: number;
  /** SampleCount metric stats requested to learn publication delays (billed as metrics too; included in metricsRequested). */
  probeMetrics: number;
  /** Objects read at a learned delay shorter than the default. */
  learnedDelays: number;
}

export interface CloudWatchAnswer {
  result: { value: MetricSample[]; error?: undefined } | { error: string; value?: undefined };
  messages?: string[];
  /** The answer to keep for the deployment while its window stands (absent for partial data, failures, an alarm's fresh read). */
  shared?: { key: string; answer: SharedMetricAnswer };
}

export const DEFAULT_PUBLISH_DELAY_SECONDS = 60;
const DEFAULT_RETRY: RetryOptions = { maxAttempts: 6, baseDelayMs: 200, maxDelayMs: 5_000, deadlineMs: 10_000 };
const MAX_PAGES = 100;
/** An answer takes a moment to reach the autoscalers: the last attempt ends this long before readBy. */
const ANSWER_MARGIN_MS = 50;
/** A retry with less time than this left would only time out: the last error is reported instead. */
const MIN_ATTEMPT_MS = 200;
const CACHE_IDLE_MS = 3_600_000;
// Error names (query-compatible codes included) that mean "slow down".
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'LimitExceeded',
  'LimitExceededException',
  'LimitExceededFault',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
]);

type Outcome =
  | { samples: MetricSample[]; messages: string[]; partial?: boolean; seen?: SeenSeries }
  | { error: string; messages: string[]; cacheable: boolean };

/** A probed object's sample counts by period start, summed over its metric stats. */
interface ProbeCounts {
  period: number;
  counts: Map<number, number>;
}

/** A single series' datapoints and the one used: checked against the next read when the delay was learned. */
interface SeenSeries {
  points: { t: number; v: number }[];
  used?: { t: number; v: number };
}

interface CacheEntry {
  end: number;
  outcome: Outcome;
  lastUsed: number;
}

interface Series {
  id: string;
  label?: string;
  points: { t: number; v: number }[];
  status?: string;
  messages: string[];
}

interface Collected {
  series: Map<string, Series[]>;
  messages: string[];
}

/** Retries that ran out (attempts or time): the last error says why. */
class RetriesExhausted extends Error {
  constructor(attempts: number, last: unknown) {
    super(`after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${errorText(last)}`);
  }
}

function rfc3339(epochSeconds: number): Timestamp {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function httpStatus(e: unknown): number | undefined {
  const meta = (e as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  return meta?.httpStatusCode;
}

export class CloudWatchSource {
  private readonly cache = new Map<string, CacheEntry>();
  /** Each object's publication delay learning, as this container last left it (the table's copy wins). */
  private readonly learning = new Map<string, DelayLearning>();
  private counters: CloudWatchStats = CloudWatchSource.zero();
  private readonly retry: RetryOptions;
  private readonly clock: Clock;
  private readonly timer: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: CloudWatchSourceOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? { now: () => new Date() };
    this.timer = options.timer ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private static zero(): CloudWatchStats {
    return { calls: 0, throttled: 0, failedCalls: 0, metricsRequested: 0, queriesRequested: 0, cacheHits: 0, sharedHits: 0, objectsFetched: 0, probeMetrics: 0, learnedDelays: 0 };
  }

  stats(): CloudWatchStats {
    return { ...this.counters };
  }

  resetStats(): void {
    this.counters = CloudWatchSource.zero();
  }

  /** One answer per object, aligned; never throws for one object. */
  async fetch(objects: CloudWatchMetric[], now: Date, signal?: AbortSignal, read: MetricReadOptions = {}): Promise<CloudWatchAnswer[]> {
    const nowMs = now.getTime();
    const lookback = this.options.lookbackPeriods ?? DEFAULT_LOOKBACK_PERIODS;
    const defaultDelay = this.options.publishDelaySeconds ?? DEFAULT_PUBLISH_DELAY_SECONDS;
    // When the data read could first have been read (the tick's time): what completion is timed against.
    const readMs = read.observedAt?.getTime() ?? nowMs;
    const learnings = new Map<string, DelayLearning>();
    const probes: PlannedUnit[] = [];
    const perObject: ({ key: string } | { error: string })[] = [];
    const wanted = new Map<string, PlannedUnit>();
    const outcomes = new Map<string, Outcome>();
    const fresh = new Set<string>();
    const ends = new Map<string, number>();
    const held = new Set<string>();
    for (const obj of objects) {
      const region = obj.spec.region ?? this.options.defaultRegion;
      if (!region) {
        perObject.push({ error: 'no region: set spec.region or configure a default region' });
        continue;
      }
      // An alarm evaluated this metric: read it fresh, up to the period the alarm saw.
      const alarmedUntil = obj.spec.alarmName === undefined ? undefined : read.alarms?.get(obj.spec.alarmName);
      let key: string;
      let window: QueryWindow;
      try {
        key = specKey(obj.spec, region);
        let learning = learnings.get(key);
        if (!learning && this.options.learnPublishDelay && learnable(obj.spec)) {
          learning = dueLearning(read.shared?.get(sharedKey(key))?.learn ?? this.learning.get(key), nowMs);
          learnings.set(key, learning);
          if (probing(learning, nowMs)) probes.push({ key, spec: obj.spec, region, window: windowFor(obj.spec, nowMs, 0, 0) });
        }
        const delay = learning?.learnedDelaySeconds ?? defaultDelay;
        window = alarmedUntil ? alarmWindowFor(obj.spec, nowMs, alarmedUntil.getTime(), delay, lookback) : windowFor(obj.spec, nowMs, delay, lookback);
        // A longer delay (a reset learning) never steps back to a period older than one already read:
        // that newer one is read again (not answered from a cache) until the delay catches up with it.
        if (!alarmedUntil) {
          const natural = window;
          window = keepForward(window, Math.max(this.cache.get(key)?.end ?? -Infinity, read.shared?.get(sharedKey(key))?.end ?? -Infinity));
          if (window !== natural) held.add(key);
        }
      } catch (e) {
        perObject.push({ error: `invalid spec: ${errorText(e)}` });
        continue;
      }
      if (alarmedUntil) {
        key = `${key}\nalarm`;
        fresh.add(key);
      }
      perObject.push({ key });
      if (outcomes.has(key) || wanted.has(key)) continue;
      ends.set(key, window.end);
      let cached = alarmedUntil || held.has(key) ? undefined : this.cache.get(key);
      if (!(cached && cached.end === window.end) && !alarmedUntil && !held.has(key)) {
        // Another environment may have read it this period: the table keeps the deployment's answers.
        const kept = read.shared?.get(sharedKey(key));
        if (kept && kept.end === window.end) {
          cached = { end: kept.end, outcome: outcomeOf(kept), lastUsed: nowMs };
          this.cache.set(key, cached);
          this.counters.sharedHits++;
        }
      }
      if (cached && cached.end === window.end) {
        cached.lastUsed = nowMs;
        this.counters.cacheHits++;
        outcomes.set(key, cached.outcome);
      } else {
        wanted.set(key, { key, spec: obj.spec, region, window });
      }
    }

    // The time budget, on the monotonic timer: the read deadline, converted once on the cycle's clock.
    const budget = Math.min(this.retry.deadlineMs, read.readBy ? read.readBy.getTime() - this.clock.now().getTime() - ANSWER_MARGIN_MS : Infinity);
    const deadline = this.timer() + budget;
    const probed = probes.length ? this.probe(probes, deadline, signal) : Promise.resolve(new Map<string, ProbeCounts>());
    if (wanted.size) {
      const requests = planRequests([...wanted.values()]);
      await this.runAll(requests, async (req) => {
        for (const [key, outcome] of await this.execute(req, wanted, deadline, signal)) outcomes.set(key, outcome);
      });
      this.counters.objectsFetched += wanted.size;
      for (const [key, unit] of wanted) {
        const outcome = outcomes.get(key)!;
        // An alarm's read (its own window) is not kept: the usual window's entry stays as it is.
        if (fresh.has(key)) continue;
        if ('samples' in outcome ? !outcome.partial : outcome.cacheable) this.cache.set(key, { end: unit.window.end, outcome, lastUsed: nowMs });
        else this.cache.delete(key);
      }
    }
    for (const [key, entry] of this.cache) {
      if (nowMs - entry.lastUsed <= CACHE_IDLE_MS) continue;
      this.cache.delete(key);
      this.learning.delete(key);
    }
    const late = this.learn(learnings, await probed, wanted, outcomes, readMs, nowMs, defaultDelay);
    for (const [key, reset] of late) {
      const named = objects.filter((_, i) => 'key' in perObject[i] && (perObject[i] as { key: string }).key === key);
      this.options.onDelayReset?.({ ...reset, objects: named.map((o) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`) });
    }

    return objects.map((obj, i) => {
      const name = `CloudWatchMetric ${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`;
      const slot = perObject[i];
      if ('error' in slot) return { result: { error: `${name}: ${slot.error}` } };
      const outcome = outcomes.get(slot.key)!;
      const reset = late.get(slot.key);
      const said = [...outcome.messages, ...(reset ? [resetMessage(reset)] : [])];
      const messages = said.length ? { messages: said } : {};
      const learning = learnings.get(slot.key);
      const kept = fresh.has(slot.key) ? undefined : sharedAnswerOf(outcome, ends.get(slot.key)!);
      const keep = kept && learning ? { ...kept, learn: learning } : kept;
      const shared = keep ? { shared: { key: sharedKey(slot.key), answer: keep } } : {};
      if ('error' in outcome) return { result: { error: `${name}: ${outcome.error}` }, ...messages, ...shared };
      return { result: { value: outcome.samples.map((s) => ({ ...s })) }, ...messages, ...shared };
    });
  }

  /**
   * Moves each object's learning on: the probe's counts, the value just read at a learned delay
   * checked against the last one; returns what to say of a delay found too short, by key.
   */
  private learn(
    learnings: Map<string, DelayLearning>,
    counts: Map<string, ProbeCounts>,
    wanted: Map<string, PlannedUnit>,
    outcomes: Map<string, Outcome>,
    readMs: number,
    nowMs: number,
    defaultDelay: number,
  ): Map<string, Omit<DelayReset, 'objects'>> {
    const said = new Map<string, Omit<DelayReset, 'objects'>>();
    for (const [key, before] of learnings) {
      let l = before;
      const probeCounts = counts.get(key);
      if (probeCounts) l = observeCounts(l, probeCounts.counts, probeCounts.period, readMs, defaultDelay);
      l = closeProbing(l, nowMs);
      const outcome = wanted.has(key) ? outcomes.get(key) : undefined;
      if (outcome && 'samples' in outcome && outcome.seen) {
        const checked = checkUsedValue(l, outcome.seen.points, outcome.seen.used, nowMs);
        if (checked.late) {
          const { periodStart, before: was, after } = checked.late;
          const periodSeconds = wanted.get(key)!.window.period;
          said.set(key, { period: rfc3339(periodStart), periodSeconds, old: was, new: after, learnedDelaySeconds: before.learnedDelaySeconds!, delaySeconds: defaultDelay });
        }
        l = checked.learning;
      }
      if (l.learnedDelaySeconds !== undefined) this.counters.learnedDelays++;
      learnings.set(key, l);
      this.learning.set(key, l);
    }
    return said;
  }

  /** Sample counts of the probed objects' metric stats, summed by period start; an object whose probe failed is left out. */
  private async probe(units: PlannedUnit[], deadline: number, signal?: AbortSignal): Promise<Map<string, ProbeCounts>> {
    const parts: PlannedUnit[] = [];
    // Each metric stat is a unit of its own; its counts go to the object it belongs to.
    const owner = new Map<string, string>();
    for (const u of units) {
      const period = u.window.period;
      // From the oldest period that may still settle to the newest that has ended.
      const window = { period, end: u.window.end, start: u.window.end - Math.ceil(SETTLE_SECONDS / period + 1) * period };
      u.spec.queries.forEach((q, j) => {
        if (!q.metricStat) return;
        const key = `${u.key}\n#${j}`;
        owner.set(key, u.key);
        parts.push({ key, region: u.region, window, spec: { roleArn: u.spec.roleArn, queries: [{ id: 'n', metricStat: { ...q.metricStat, stat: 'SampleCount' } }] } });
      });
    }
    const out = new Map<string, ProbeCounts>();
    const periods = new Map(units.map((u) => [u.key, u.window.period]));
    const failed = new Set<string>();
    await this.runAll(planRequests(parts), async (req) => {
      let collected: Collected;
      try {
        collected = await this.collect(req, deadline, signal);
      } catch {
        for (const u of req.units) failed.add(owner.get(u.key)!);
        return;
      }
      this.counters.probeMetrics += req.queries.length;
      for (const u of req.units) {
        const key = owner.get(u.key)!;
        const entry = out.get(key) ?? { period: periods.get(key)!, counts: new Map<number, number>() };
        out.set(key, entry);
        for (const s of collected.series.get(u.returnId) ?? []) for (const p of s.points) entry.counts.set(p.t, (entry.counts.get(p.t) ?? 0) + p.v);
      }
    });
    for (const key of failed) out.delete(key);
    return out;
  }

  private async runAll(requests: PlannedRequest[], run: (r: PlannedRequest) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < requests.length) await run(requests[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 4, requests.length) }, worker));
  }

  private async execute(req: PlannedRequest, units: Map<string, PlannedUnit>, deadline: number, signal?: AbortSignal): Promise<Map<string, Outcome>> {
    const out = new Map<string, Outcome>();
    let collected: Collected;
    try {
      collected = await this.collect(req, deadline, signal);
    } catch (e) {
      const error = e instanceof RetriesExhausted ? `GetMetricData failed ${e.message}` : `GetMetricData failed: ${errorText(e)}`;
      for (const u of req.units) out.set(u.key, { error, messages: [], cacheable: false });
      return out;
    }
    for (const u of req.units) out.set(u.key, this.outcome(units.get(u.key)!, u.returnId, u.ids, collected));
    return out;
  }

  private async collect(req: PlannedRequest, deadline: number, signal?: AbortSignal): Promise<Collected> {
    const client = this.options.clients.clientFor(req.region, req.roleArn);
    const collected: Collected = { series: new Map(), messages: [] };
    const metricStats = req.queries.filter((q) => q.MetricStat).length;
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await this.send(
        client,
        new GetMetricDataCommand({
          MetricDataQueries: req.queries,
          StartTime: new Date(req.startTime * 1000),
          EndTime: new Date(req.endTime * 1000),
          ScanBy: 'TimestampDescending',
          NextToken: token,
        }),
        deadline,
        signal,
      );
      this.counters.metricsRequested += metricStats;
      this.counters.queriesRequested += req.queries.length;
      for (const m of page.Messages ?? []) collected.messages.push(`${m.Code ?? 'Message'}: ${m.Value ?? ''}`);
      for (const r of page.MetricDataResults ?? []) merge(collected.series, r);
      token = page.NextToken;
    } while (token && ++pages < MAX_PAGES);
    if (token) collected.messages.push(`stopped after ${MAX_PAGES} pages of results`);
    return collected;
  }

  private async send(client: CloudWatchClient, command: GetMetricDataCommand, deadline: number, signal?: AbortSignal): Promise<GetMetricDataCommandOutput> {
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new Error('abandoned (cycle deadline)');
      this.counters.calls++;
      // An attempt may take what is left of the budget: a call that hangs must not hold up the cycle.
      const remaining = Math.max(1, Math.round(deadline - this.timer()));
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), remaining);
      const onAbort = () => timeout.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        return await client.send(command, { abortSignal: timeout.signal });
      } catch (e) {
        if (signal?.aborted) {
          this.counters.failedCalls++;
          throw new Error('abandoned (cycle deadline)');
        }
        if (timeout.signal.aborted) {
          this.counters.failedCalls++;
          const late = new Error(`no answer within ${remaining} ms`);
          throw attempt > 1 ? new RetriesExhausted(attempt, late) : late;
        }
        const throttled = e instanceof Error && THROTTLING.has(e.name);
        if (throttled) this.counters.throttled++;
        else this.counters.failedCalls++;
        if (!throttled && (httpStatus(e) ?? 0) < 500) throw e;
        // Jittered: calls throttled together do not retry together.
        const wait = backoffMs(attempt, { baseMs: this.retry.baseDelayMs, maxMs: this.retry.maxDelayMs });
        // No time for another attempt before the deadline: the last error is the answer, now.
        if (attempt >= this.retry.maxAttempts || this.timer() + wait + MIN_ATTEMPT_MS > deadline) throw new RetriesExhausted(attempt, e);
        await this.sleep(wait);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    }
  }

  private outcome(unit: PlannedUnit, returnId: string, ids: string[], collected: Collected): Outcome {
    const { period, start, end } = unit.window;
    const messages = [...collected.messages];
    const statuses: string[] = [];
    for (const id of ids) {
      for (const s of collected.series.get(id) ?? []) {
        messages.push(...s.messages);
        if (s.status && s.status !== 'Complete') statuses.push(s.status);
      }
    }
    if (statuses.includes('PartialData')) messages.push('PartialData: CloudWatch returned part of the data');
    const forbidden = statuses.find((s) => s === 'Forbidden' || s === 'InternalError');
    if (forbidden) return { error: `CloudWatch answered ${forbidden}`, messages, cacheable: false };

    const samples: MetricSample[] = [];
    const series = collected.series.get(returnId) ?? [];
    let seen: SeenSeries | undefined;
    for (const s of series) {
      // The latest complete datapoint: its period has ended by the window's end.
      let best: { t: number; v: number } | undefined;
      for (const p of s.points) if (p.t >= start && p.t + period <= end && (!best || p.t > best.t)) best = p;
      if (series.length === 1) seen = { points: s.points, ...(best ? { used: best } : {}) };
      if (!best) continue;
      const value = quantityOf(best.v);
      if ('problem' in value) return { error: `datapoint at ${rfc3339(best.t)} ${value.problem}`, messages, cacheable: false };
      if (value.negative) messages.push(`NegativeValue: the datapoint at ${rfc3339(best.t)} is ${best.v}, used as is (where below zero means zero, clamp the expression: IF(e < 0, 0, e))`);
      samples.push({ value: value.quantity, timestamp: rfc3339(best.t) });
    }
    // Part of the data may be missing: use it this cycle, but ask again next cycle rather than keep it for a period.
    if (samples.length) return statuses.includes('PartialData') ? { samples, messages, partial: true, ...(seen ? { seen } : {}) } : { samples, messages, ...(seen ? { seen } : {}) };
    // Stable from one cycle to the next (no timestamps), so that its event aggregates (count + 1) as upstream's do.
    const range = windowText(unit.window, unit.spec.endTimeOffsetSeconds);
    if (unit.spec.defaultValue !== undefined) {
      const value = quantityOf(unit.spec.defaultValue);
      if ('problem' in value) return { error: `no datapoint ${range}, and spec.defaultValue ${value.problem}`, messages, cacheable: false };
      messages.push(`no datapoint ${range}: using defaultValue ${unit.spec.defaultValue}`);
      return { samples: [{ value: value.quantity, timestamp: rfc3339(end) }], messages };
    }
    // A valid answer for this window: cached like a value, so an idle metric is not polled every cycle.
    return { error: `no datapoint ${range} (set spec.defaultValue to use a value instead)`, messages, cacheable: true };
  }
}

/**
 * Whether an object's publication delay can be learned: every value comes from metric stats of one period (the
 * probe counts their samples); SEARCH and SELECT find their metrics at query time, and mixed periods cannot be summed.
 */
function learnable(spec: CloudWatchMetric['spec']): boolean {
  if (spec.endTimeOffsetSeconds) return false;
  const stats = spec.queries.filter((q) => q.metricStat);
  if (stats.length === 0 || spec.queries.some((q) => q.expression !== undefined && /\b(SEARCH|SELECT)\b/i.test(q.expression))) return false;
  const period = stats[0].metricStat!.period;
  return spec.queries.every((q) => (q.metricStat?.period ?? q.period ?? period) === period);
}

/** "in the last 5 periods of 60 s", and how far back they end when the spec shifts them. */
function windowText(w: QueryWindow, offsetSeconds: number | undefined): string {
  const periods = Math.round((w.end - w.start) / w.period);
  return `in the last ${periods === 1 ? 'period' : `${periods} periods`} of ${w.period} s${offsetSeconds ? ` ending ${offsetSeconds} s back (endTimeOffsetSeconds)` : ''}`;
}

/** A query's key in the table: short, since the shard's answers are rewritten every period. */
function sharedKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

/** What to keep of an answer for the deployment: complete values and answers that are errors for good (no datapoint). */
function sharedAnswerOf(outcome: Outcome, end: number): SharedMetricAnswer | undefined {
  const messages = outcome.messages.length ? { messages: outcome.messages } : {};
  if ('samples' in outcome) return outcome.partial ? undefined : { end, samples: outcome.samples, ...messages };
  return outcome.cacheable ? { end, error: outcome.error, ...messages } : undefined;
}

function outcomeOf(kept: SharedMetricAnswer): Outcome {
  const messages = kept.messages ?? [];
  return kept.samples ? { samples: kept.samples, messages } : { error: kept.error ?? 'no answer', messages, cacheable: true };
}

/**
 * A CloudWatchMetric's value as a quantity, or why it cannot be one (beyond an int64 of
 * milli-units). A negative value is a value: metric math can go below zero, and upstream
 * uses a negative External value as it comes (it asks for fewer replicas); it is said.
 */
function quantityOf(v: number): { quantity: QuantityString; negative: boolean } | { problem: string } {
  const q = floatToMilliQuantity(v);
  if ('problem' in q) return q;
  // Compared as a milli quantity: metric-math noise such as -1e-12 truncates to 0, as upstream adapters do.
  return { quantity: q.quantity, negative: q.milli < 0n };
}

function merge(into: Map<string, Series[]>, r: MetricDataResult): void {
  const id = r.Id ?? '';
  const list = into.get(id) ?? [];
  into.set(id, list);
  // SEARCH returns several series under one id; pages continue each series by label.
  let s = list.find((x) => x.label === r.Label);
  if (!s) {
    s = { id, label: r.Label, points: [], messages: [] };
    list.push(s);
  }
  const ts = r.Timestamps ?? [];
  const vs = r.Values ?? [];
  for (let i = 0; i < ts.length && i < vs.length; i++) s.points.push({ t: Math.floor(ts[i].getTime() / 1000), v: vs[i] });
  s.status = r.StatusCode ?? s.status;
  for (const m of r.Messages ?? []) s.messages.push(`${m.Code ?? 'Message'}: ${m.Value ?? ''}`);
}

/** The window moved forward to end at `floorEnd` when it would end before it: reads never go back to an older period. */
export function keepForward(window: QueryWindow, floorEnd: number): QueryWindow {
  return floorEnd > window.end ? { ...window, start: window.start + (floorEnd - window.end), end: floorEnd } : window;
}

function resetMessage(r: Omit<DelayReset, 'objects'>): string {
  return `PublicationDelay: the datapoint at ${r.period} changed from ${r.old} to ${r.new} after it was read ${r.learnedDelaySeconds} s after its period: read ${r.delaySeconds} s after each period again while the delay is learned again (never an older period than one already read)`;
}
