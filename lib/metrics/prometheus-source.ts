// Reads a cycle's PrometheusMetric objects: one instant query per distinct object (identical
// specs share one), evaluated at the start of the object's period so that every environment asks
// the same question and an answer stands for the period, here and for the deployment (the
// shard's shared answers, as CloudWatch's). The vector's samples are the External metric's
// series, summed by the replica calculator as upstream sums them; anything else is a failure
// that says what came back. Throttling and 5xx are retried until the cycle's read deadline.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { createHash } from 'node:crypto';
import type { MetricSample, Timestamp } from '#hpa';
import type { Clock, MetricReadOptions, SharedMetricAnswer } from '#sync/ports';
import {
  DEFAULT_PROMETHEUS_PERIOD_SECONDS,
  type MetricAccess,
  prometheusEndpointText,
  type PrometheusMetric,
  type PrometheusMetricSpec,
  serverGrant,
} from '#api';
import { floatToMilliQuantity } from './float-quantity.js';
import { PrometheusHttpError, queryTarget, sendInstantQuery, type Credentials, type InstantAnswer, type PrometheusEndpoints, type QueryTarget } from './prometheus-http.js';
import { stableKey } from '../shared/stable-key.js';
import type { BoundedFetchOptions, ResolveHost } from '#transport';
import { errorText } from '../shared/error-text.js';
import { backoffMs } from '../shared/backoff.js';

export interface PrometheusSourceOptions {
  /** Region of amp and cloudWatch endpoints that name none. */
  defaultRegion?: string;
  /** Signs AMP and CloudWatch queries; default: the SDK's default chain (the function's role). */
  credentials?: Credentials;
  endpoints?: PrometheusEndpoints;
  /** Secrets Manager's endpoint for bearer tokens (GetSecretValue, SecretString): a local one in tests; never set in production. */
  secretsEndpoint?: string;
  /** The cycle's clock: evaluation times and readBy are times on it. */
  clock?: Clock;
  /** Monotonic milliseconds measuring the retry budget (real time by default). */
  timer?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Queries in flight at once; default 8. */
  concurrency?: number;
  retry?: { maxAttempts?: number; baseDelayMs?: number; deadlineMs?: number };
  /** Which servers each namespace may query (param metricAccess); default: none. Checked again here, before each request. */
  access?: MetricAccess;
  /** Bytes of an answer read before it is dropped; default DEFAULT_MAX_ANSWER_BYTES (4 MiB). */
  maxAnswerBytes?: number;
  /** Resolves server host names (default: the system resolver); every address it gives is checked before connecting. */
  resolve?: ResolveHost;
  /** host:port endpoints never reached; default: the Lambda runtime API (AWS_LAMBDA_RUNTIME_API). */
  refusedEndpoints?: string[];
}

export interface PrometheusStats {
  /** HTTP queries sent, retries included. */
  queries: number;
  throttled: number;
  failedQueries: number;
  /** Query samples processed, as the endpoints reported them (stats=all). */
  samplesProcessed: number;
  /** Of those, processed by AMP: what it bills. */
  ampSamplesProcessed: number;
  ampQueries: number;
  cacheHits: number;
  sharedHits: number;
  objectsFetched: number;
}

export interface PrometheusAnswer {
  result: { value: MetricSample[]; error?: undefined } | { error: string; value?: undefined };
  messages?: string[];
  shared?: { key: string; answer: SharedMetricAnswer };
}

type Outcome = { samples: MetricSample[]; messages: string[] } | { error: string; messages: string[]; cacheable: boolean };

const RETRY = { maxAttempts: 4, baseDelayMs: 200, deadlineMs: 10_000 };
const MAX_DELAY_MS = 2_000;
const MIN_ATTEMPT_MS = 200;
const ANSWER_MARGIN_MS = 50;
const CACHE_IDLE_MS = 3_600_000;
const TOKEN_TTL_MS = 300_000;

function rfc3339(epochSeconds: number): Timestamp {
  return new Date(Math.floor(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The evaluation time of an object's query at `nowMs`: the start of its current period (epoch seconds). */
export function evaluationTime(spec: PrometheusMetricSpec, nowMs: number): number {
  const period = spec.periodSeconds ?? DEFAULT_PROMETHEUS_PERIOD_SECONDS;
  return Math.floor(nowMs / 1000 / period) * period;
}

/** A Prometheus sample value as JavaScript reads it: "+Inf", "-Inf" and "NaN" included. */
function sampleValue(text: unknown): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return typeof text === 'string' && text.trim() !== '' ? Number(text) : NaN;
}

function labelsText(metric: unknown): string {
  const labels = typeof metric === 'object' && metric !== null ? Object.entries(metric as Record<string, unknown>) : [];
  return `{${labels.map(([k, v]) => `${k}=${JSON.stringify(String(v))}`).join(', ')}}`;
}

/** The samples of an instant query's answer, or why it is no External metric value. */
export function outcomeOf(answer: InstantAnswer, time: number, showLabels = true): Outcome {
  const messages = answer.warnings.map((w) => `PrometheusWarning: ${w}`);
  const at = rfc3339(time);
  switch (answer.resultType) {
    case 'vector':
      break;
    case 'matrix':
      return { error: 'the query returned a range vector (matrix), not an instant vector: drop the [range] selector or aggregate over it, e.g. rate(x[1m])', messages, cacheable: true };
    case 'scalar':
      return { error: 'the query returned a scalar, not an instant vector: wrap it in vector(...) if a scalar is meant', messages, cacheable: true };
    case 'string':
      return { error: 'the query returned a string, not an instant vector', messages, cacheable: true };
    default:
      return { error: `the answer has resultType ${JSON.stringify(answer.resultType)}, not vector`, messages, cacheable: false };
  }
  const series = Array.isArray(answer.result) ? (answer.result as { metric?: unknown; value?: unknown }[]) : [];
  if (series.length === 0) return { error: `the query returned an empty vector at ${at}: no series matched`, messages, cacheable: true };
  const samples: MetricSample[] = [];
  for (const [i, s] of series.entries()) {
    // A server's labels are its own text: named by position, not echoed.
    const seriesName = showLabels ? `series ${labelsText(s.metric)}` : `series ${i + 1} of ${series.length}`;
    const [t, v] = Array.isArray(s.value) ? (s.value as unknown[]) : [];
    const value = sampleValue(v);
    const q = floatToMilliQuantity(value);
    if ('problem' in q) {
      const what = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
      const error = Number.isFinite(value) ? `${seriesName} ${q.problem}` : `${seriesName} is ${what}, which is no metric value`;
      return { error, messages, cacheable: true };
    }
    if (q.milli < 0n) messages.push(`NegativeValue: ${seriesName} is ${value}, used as is`);
    samples.push({ value: q.quantity, timestamp: rfc3339(typeof t === 'number' ? t : time) });
  }
  return { samples, messages };
}

/** A query's key in the table's shared answers: apart from CloudWatch's by its prefix. */
function sharedKey(key: string): string {
  return createHash('sha256').update(`promql\n${key}`).digest('base64url').slice(0, 16);
}

export class PrometheusSource {
  private readonly cache = new Map<string, { end: number; outcome: Outcome; lastUsed: number }>();
  private readonly tokens = new Map<string, { token: Promise<string>; at: number }>();
  private readonly credentials = new Map<string, Credentials | undefined>();
  private counters: PrometheusStats = PrometheusSource.zero();
  private readonly clock: Clock;
  private readonly timer: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly secrets = new Map<string, SecretsManagerClient>();

  constructor(private readonly options: PrometheusSourceOptions = {}) {
    this.clock = options.clock ?? { now: () => new Date() };
    this.timer = options.timer ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private static zero(): PrometheusStats {
    return { queries: 0, throttled: 0, failedQueries: 0, samplesProcessed: 0, ampSamplesProcessed: 0, ampQueries: 0, cacheHits: 0, sharedHits: 0, objectsFetched: 0 };
  }

  stats(): PrometheusStats {
    return { ...this.counters };
  }

  resetStats(): void {
    this.counters = PrometheusSource.zero();
  }

  /** One answer per object, aligned; never throws for one object. */
  async fetch(objects: PrometheusMetric[], now: Date, signal?: AbortSignal, read: MetricReadOptions = {}): Promise<PrometheusAnswer[]> {
    const nowMs = now.getTime();
    const perObject: ({ key: string; time: number } | { error: string })[] = [];
    const wanted = new Map<string, { target: QueryTarget; spec: PrometheusMetricSpec; time: number }>();
    const outcomes = new Map<string, Outcome>();
    for (const obj of objects) {
      const time = evaluationTime(obj.spec, nowMs);
      let target: QueryTarget;
      try {
        target = queryTarget(obj.spec, time, this.options.defaultRegion, this.options.endpoints);
      } catch (e) {
        perObject.push({ error: errorText(e) });
        continue;
      }
      if (obj.spec.server) {
        // The grant again, at the request: the source never trusts that a caller checked it.
        const grant = serverGrant(obj, this.options.access ?? {});
        if ('problem' in grant) {
          perObject.push({ error: `refused: ${grant.problem}` });
          continue;
        }
        target = { ...target, allowPrivate: grant.allowPrivate };
      }
      // The period is part of the key: objects evaluated at different times are different questions.
      const key = stableKey({ ...obj.spec, url: target.url.href, params: { ...target.params, time: undefined }, allowPrivate: target.allowPrivate });
      perObject.push({ key, time });
      if (outcomes.has(key) || wanted.has(key)) continue;
      const cached = this.cache.get(key);
      const kept = cached?.end === time ? undefined : read.shared?.get(sharedKey(key));
      if (kept && kept.end === time) {
        this.counters.sharedHits++;
        const outcome: Outcome = kept.samples ? { samples: kept.samples, messages: kept.messages ?? [] } : { error: kept.error ?? 'no answer', messages: kept.messages ?? [], cacheable: true };
        this.cache.set(key, { end: time, outcome, lastUsed: nowMs });
      }
      const entry = this.cache.get(key);
      if (entry && entry.end === time) {
        entry.lastUsed = nowMs;
        this.counters.cacheHits++;
        outcomes.set(key, entry.outcome);
      } else {
        wanted.set(key, { target, spec: obj.spec, time });
      }
    }

    if (wanted.size) {
      const budget = Math.min(this.options.retry?.deadlineMs ?? RETRY.deadlineMs, read.readBy ? read.readBy.getTime() - this.clock.now().getTime() - ANSWER_MARGIN_MS : Infinity);
      const deadline = this.timer() + budget;
      const entries = [...wanted];
      let next = 0;
      const worker = async () => {
        while (next < entries.length) {
          const [key, w] = entries[next++];
          const outcome = await this.query(w.target, w.spec, w.time, deadline, signal);
          outcomes.set(key, outcome);
          if ('samples' in outcome || outcome.cacheable) this.cache.set(key, { end: w.time, outcome, lastUsed: nowMs });
          else this.cache.delete(key);
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 8, entries.length) }, worker));
      this.counters.objectsFetched += wanted.size;
    }
    for (const [key, entry] of this.cache) if (nowMs - entry.lastUsed > CACHE_IDLE_MS) this.cache.delete(key);

    return objects.map((obj, i) => {
      const name = `PrometheusMetric ${obj.metadata.namespace ?? 'default'}/${obj.metadata.name} (${prometheusEndpointText(obj.spec, this.options.defaultRegion)})`;
      const slot = perObject[i];
      if ('error' in slot) return { result: { error: `${name}: ${slot.error}` } };
      const outcome = outcomes.get(slot.key)!;
      const messages = outcome.messages.length ? { messages: [...outcome.messages] } : {};
      const keep: SharedMetricAnswer | undefined =
        'samples' in outcome
          ? { end: slot.time, samples: outcome.samples, ...messages }
          : outcome.cacheable
            ? { end: slot.time, error: outcome.error, ...messages }
            : undefined;
      const shared = keep ? { shared: { key: sharedKey(slot.key), answer: keep } } : {};
      if ('error' in outcome) return { result: { error: `${name}: ${outcome.error}` }, ...messages, ...shared };
      return { result: { value: outcome.samples.map((s) => ({ ...s })) }, ...messages, ...shared };
    });
  }

  /** One object's query, retried on throttling and 5xx while the deadline allows. */
  private async query(target: QueryTarget, spec: PrometheusMetricSpec, time: number, deadline: number, signal?: AbortSignal): Promise<Outcome> {
    const maxAttempts = this.options.retry?.maxAttempts ?? RETRY.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return { error: 'abandoned (cycle deadline)', messages: [], cacheable: false };
      const remaining = Math.max(1, Math.round(deadline - this.timer()));
      const attemptSignal = signal ? AbortSignal.any([signal, AbortSignal.timeout(remaining)]) : AbortSignal.timeout(remaining);
      this.counters.queries++;
      if (target.billedBySamples) this.counters.ampQueries++;
      try {
        const auth = target.sign
          ? { credentials: this.credentialsFor(target.sign.region, spec.roleArn) }
          : target.bearerTokenSecretArn
            ? { bearerToken: await this.token(target.bearerTokenSecretArn, attemptSignal) }
            : {};
        // Signed on the real clock, as the SDK signs: the cycle's clock may be virtual (the demo).
        const answer = await sendInstantQuery(target, auth, attemptSignal, this.fetchOptions(target));
        if (answer.samplesProcessed !== undefined) {
          this.counters.samplesProcessed += answer.samplesProcessed;
          if (target.billedBySamples) this.counters.ampSamplesProcessed += answer.samplesProcessed;
        }
        return outcomeOf(answer, time, target.sign !== undefined);
      } catch (e) {
        if (signal?.aborted) {
          this.counters.failedQueries++;
          return { error: 'abandoned (cycle deadline)', messages: [], cacheable: false };
        }
        const status = e instanceof PrometheusHttpError ? e.status : undefined;
        const throttled = status === 429;
        if (throttled) this.counters.throttled++;
        else this.counters.failedQueries++;
        const timedOut = attemptSignal.aborted;
        const text = timedOut ? `no answer within ${remaining} ms` : errorText(e);
        const refused = e instanceof PrometheusHttpError && e.refused;
        const retriable = !refused && (throttled || (status !== undefined && status >= 500) || (status === undefined && !timedOut && e instanceof PrometheusHttpError));
        const wait = backoffMs(attempt, { baseMs: this.options.retry?.baseDelayMs ?? RETRY.baseDelayMs, maxMs: MAX_DELAY_MS });
        if (!retriable || attempt >= maxAttempts || this.timer() + wait + MIN_ATTEMPT_MS > deadline) {
          return { error: `query failed${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${text}`, messages: [], cacheable: false };
        }
        await this.sleep(wait);
      }
    }
  }

  /** How the request may go: AWS's endpoints (or the operator's local stand-ins) anywhere, a server as granted. */
  private fetchOptions(target: QueryTarget): Omit<BoundedFetchOptions, 'headers' | 'signal'> {
    const { maxAnswerBytes, resolve, refusedEndpoints } = this.options;
    return {
      allowPrivate: target.sign !== undefined || target.allowPrivate === true,
      ...(maxAnswerBytes !== undefined ? { maxBytes: maxAnswerBytes } : {}),
      ...(resolve ? { resolve } : {}),
      ...(refusedEndpoints ? { refusedEndpoints } : {}),
    };
  }

  private credentialsFor(region: string, roleArn: string | undefined): Credentials | undefined {
    if (!roleArn) return this.options.credentials ?? defaultCredentials();
    const key = `${region}\n${roleArn}`;
    if (!this.credentials.has(key)) {
      this.credentials.set(key, fromTemporaryCredentials({ params: { RoleArn: roleArn, RoleSessionName: 'serverless-hpa' }, masterCredentials: this.options.credentials, clientConfig: { region } }));
    }
    return this.credentials.get(key);
  }

  /** A bearer token, read once every few minutes (a rotated secret is picked up). */
  private token(arn: string, signal: AbortSignal): Promise<string> {
    const held = this.tokens.get(arn);
    if (held && this.timer() - held.at < TOKEN_TTL_MS) return held.token;
    const token = this.readSecret(arn, signal).catch((e: unknown) => {
      this.tokens.delete(arn);
      throw new PrometheusHttpError(`cannot read the bearer token from ${arn}: ${errorText(e)}`, 403);
    });
    this.tokens.set(arn, { token, at: this.timer() });
    return token;
  }

  private async readSecret(arn: string, signal: AbortSignal): Promise<string> {
    // The secret's region is in its ARN.
    const region = arn.split(':')[3];
    let client = this.secrets.get(region);
    if (!client) {
      client = new SecretsManagerClient({ region, endpoint: this.options.secretsEndpoint, credentials: this.options.credentials, maxAttempts: 2 });
      this.secrets.set(region, client);
    }
    const out = await client.send(new GetSecretValueCommand({ SecretId: arn }), { abortSignal: signal });
    if (typeof out.SecretString !== 'string' || out.SecretString === '') throw new Error('the secret has no SecretString');
    return out.SecretString.trim();
  }
}

let chain: Credentials | undefined;
/** The default credential chain, made once (the SDK caches and refreshes what it resolves). */
function defaultCredentials(): Credentials {
  chain ??= fromNodeProviderChain();
  return chain;
}
