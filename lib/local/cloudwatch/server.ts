// A local CloudWatch endpoint for tests and the demo. It speaks what the installed
// @aws-sdk/client-cloudwatch sends: AWS JSON 1.0 (POST /, content-type
// application/x-amz-json-1.0, x-amz-target GraniteServiceVersion20100801.<Operation>),
// query-compatible errors (x-amzn-query-error: Code;Sender), timestamps as epoch seconds.
// It evaluates GetMetricData over series set by the caller.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { closeServer, readAwsJsonRequest } from '../shared/aws-json-protocol.js';
import { type ExpressionToken, tokenizeExpression } from '#api';
import { stableKey } from '../../shared/stable-key.js';
import { PendingTimers } from '../shared/pending-timers.js';

export interface LocalMetric {
  namespace: string;
  metricName: string;
  dimensions?: { name: string; value: string }[];
}

export interface RawPoint {
  /** Epoch milliseconds or a Date. */
  timestamp: number | Date;
  value: number;
}

/** Errors as CloudWatch answers them; PartialData: served, each result without its newest datapoint and marked PartialData; Hang: never answered. */
export type LocalFault = 'Throttling' | 'LimitExceeded' | 'InternalError' | 'AccessDenied' | 'PartialData' | 'Hang';

export interface RequestLogEntry {
  /** Milliseconds of the server's clock. */
  at: number;
  operation: string;
  body: unknown;
  status: number;
  /** The fault it met, if any. */
  fault?: LocalFault;
}

export interface LocalCloudWatchOptions {
  /** The server's notion of now, in epoch ms (a virtual clock in tests). */
  clock?: () => number;
  /** A point becomes visible this many seconds after its timestamp (CloudWatch ingests late). */
  ingestDelaySeconds?: number;
}

type Generator = { fn: (epochSeconds: number) => number | undefined; intervalSeconds: number };

interface WireQuery {
  Id?: string;
  Label?: string;
  ReturnData?: boolean;
  Expression?: string;
  Period?: number;
  MetricStat?: {
    Metric?: { Namespace?: string; MetricName?: string; Dimensions?: { Name?: string; Value?: string }[] };
    Period?: number;
    Stat?: string;
  };
}

interface WireRequest {
  MetricDataQueries?: WireQuery[];
  StartTime?: number;
  EndTime?: number;
  NextToken?: string;
  ScanBy?: 'TimestampDescending' | 'TimestampAscending';
  MaxDatapoints?: number;
}

type TimeSeries = Map<number, number>;
type Value = number | TimeSeries | TimeSeries[];

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly queryCode: string,
    message: string,
  ) {
    super(message);
  }
}

const TARGET_PREFIX = 'GraniteServiceVersion20100801.';
const FAULTS: Record<Exclude<LocalFault, 'PartialData' | 'Hang'>, RequestError> = {
  Throttling: new RequestError(400, 'com.amazon.coral.availability#ThrottlingException', 'Throttling;Sender', 'Rate exceeded'),
  LimitExceeded: new RequestError(400, 'com.amazonaws.cloudwatch#LimitExceededFault', 'LimitExceeded;Sender', 'The maximum request rate was exceeded'),
  InternalError: new RequestError(500, 'com.amazonaws.cloudwatch#InternalServiceFault', 'InternalServiceError;Receiver', 'Internal service error'),
  AccessDenied: new RequestError(
    403,
    'com.amazon.coral.service#AccessDeniedException',
    'AccessDenied;Sender',
    'User is not authorized to perform: cloudwatch:GetMetricData',
  ),
};

function metricKey(m: LocalMetric): string {
  const dims = [...(m.dimensions ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  return stableKey({ ns: m.namespace, name: m.metricName, dims });
}

function statistic(stat: string, values: number[]): number | undefined {
  if (!values.length) return undefined;
  switch (stat) {
    case 'Average':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'Sum':
      return values.reduce((a, b) => a + b, 0);
    case 'Minimum':
      return Math.min(...values);
    case 'Maximum':
      return Math.max(...values);
    case 'SampleCount':
      return values.length;
  }
  const p = /^p(\d+(\.\d+)?)$/.exec(stat);
  if (p && Number(p[1]) <= 100) {
    // Nearest rank.
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((Number(p[1]) / 100) * sorted.length) - 1)];
  }
  throw new RequestError(400, 'com.amazonaws.cloudwatch#InvalidParameterValueException', 'InvalidParameterValue;Sender', `The local endpoint does not support statistic ${stat}`);
}

export class LocalCloudWatch {
  readonly requests: RequestLogEntry[] = [];
  /** Added to the Messages of every GetMetricData answer. */
  responseMessages: { Code: string; Value: string }[] = [];
  latencyMs = 0;
  private readonly series = new Map<string, RawPoint[]>();
  private readonly generators = new Map<string, Generator>();
  private readonly faults: LocalFault[] = [];
  private standing: { fault: LocalFault; metricName?: string }[] = [];
  private readonly clock: () => number;
  private readonly timers = new PendingTimers();

  constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: LocalCloudWatchOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** Replaces a metric's raw points. */
  putSeries(metric: LocalMetric, points: RawPoint[]): void {
    this.generators.delete(metricKey(metric));
    this.series.set(metricKey(metric), [...points]);
  }

  /** A metric whose raw points are fn(t) every intervalSeconds (undefined: no point). */
  setSeriesFunction(metric: LocalMetric, fn: (epochSeconds: number) => number | undefined, intervalSeconds = 60): void {
    this.series.delete(metricKey(metric));
    this.generators.set(metricKey(metric), { fn, intervalSeconds });
  }

  clearSeries(): void {
    this.series.clear();
    this.generators.clear();
  }

  /** The next requests fail with these errors, in order. */
  failNext(...faults: LocalFault[]): void {
    this.faults.push(...faults);
  }

  /** Every request reading `metricName` (every request when absent) meets `fault` until the returned function is called. */
  failWhile(fault: LocalFault, metricName?: string): () => void {
    const entry = { fault, metricName };
    this.standing.push(entry);
    return () => {
      this.standing = this.standing.filter((e) => e !== entry);
    };
  }

  /** GetMetricData calls received, and the MetricStat queries they carried. */
  counts(): { calls: number; metricStats: number } {
    const calls = this.requests.filter((r) => r.operation === 'GetMetricData');
    const metricStats = calls.reduce((n, r) => n + ((r.body as WireRequest).MetricDataQueries ?? []).filter((q) => q.MetricStat).length, 0);
    return { calls: calls.length, metricStats };
  }

  close(): Promise<void> {
    this.timers.cancelAll();
    return closeServer(this.server);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { operation, body: raw } = await readAwsJsonRequest(req, TARGET_PREFIX);
    let body: unknown;
    let status = 200;
    let payload: unknown;
    let fault: LocalFault | undefined;
    try {
      if (req.method !== 'POST' || (req.url ?? '/') !== '/') throw new RequestError(404, 'UnknownOperationException', 'UnknownOperation;Sender', 'POST / only');
      if (req.headers['content-type'] !== 'application/x-amz-json-1.0') {
        throw new RequestError(400, 'SerializationException', 'SerializationException;Sender', 'content-type must be application/x-amz-json-1.0');
      }
      if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) {
        throw new RequestError(403, 'com.amazon.coral.service#MissingAuthenticationTokenException', 'MissingAuthenticationToken;Sender', 'Request is missing a SigV4 signature');
      }
      try {
        body = JSON.parse(raw.toString('utf8') || '{}');
      } catch {
        throw new RequestError(400, 'SerializationException', 'SerializationException;Sender', 'body is not JSON');
      }
      if (this.latencyMs > 0) await this.timers.delay(this.latencyMs);
      fault = this.faults.shift() ?? this.standingFault(body as WireRequest);
      if (fault === 'Hang') {
        this.requests.push({ at: this.clock(), operation, body, status: 0, fault });
        return; // the client's timeout ends it, or close()
      }
      if (fault && fault !== 'PartialData') throw FAULTS[fault];
      if (operation !== 'GetMetricData') throw new RequestError(400, 'UnknownOperationException', 'UnknownOperation;Sender', `operation ${operation} is not served here`);
      payload = this.getMetricData(body as WireRequest, fault === 'PartialData');
    } catch (e) {
      const err = e instanceof RequestError ? e : new RequestError(500, 'InternalFailure', 'InternalFailure;Receiver', String(e));
      status = err.status;
      payload = { __type: err.code, message: err.message };
      res.setHeader('x-amzn-query-error', err.queryCode);
    }
    this.requests.push({ at: this.clock(), operation, body, status, ...(fault ? { fault } : {}) });
    res.statusCode = status;
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.setHeader('x-amzn-requestid', randomUUID());
    res.end(JSON.stringify(payload));
  }

  private standingFault(r: WireRequest): LocalFault | undefined {
    const names = (r?.MetricDataQueries ?? []).map((q) => q.MetricStat?.Metric?.MetricName);
    return this.standing.find((e) => e.metricName === undefined || names.includes(e.metricName))?.fault;
  }

  private getMetricData(r: WireRequest, partial = false): unknown {
    const queries = r.MetricDataQueries ?? [];
    const invalid = (msg: string) => new RequestError(400, 'com.amazonaws.cloudwatch#InvalidParameterValueException', 'ValidationError;Sender', msg);
    if (typeof r.StartTime !== 'number' || typeof r.EndTime !== 'number') throw invalid('StartTime and EndTime are required (epoch seconds)');
    if (r.StartTime >= r.EndTime) throw invalid('The parameter StartTime must be less than the parameter EndTime.');
    if (queries.length < 1 || queries.length > 500) throw invalid('MetricDataQueries must hold between 1 and 500 queries');
    const byId = new Map<string, WireQuery>();
    for (const q of queries) {
      if (!q.Id || !/^[a-z][a-zA-Z0-9_]*$/.test(q.Id)) throw invalid(`Invalid metric data query id: ${q.Id}`);
      if (byId.has(q.Id)) throw invalid(`Duplicate metric data query id: ${q.Id}`);
      if (!q.MetricStat === !q.Expression) throw invalid(`Query ${q.Id} must set exactly one of MetricStat and Expression`);
      byId.set(q.Id, q);
    }
    const start = r.StartTime;
    const end = r.EndTime;
    const memo = new Map<string, Value>();
    const evaluate = (id: string, stack: string[]): Value => {
      const done = memo.get(id);
      if (done !== undefined) return done;
      const q = byId.get(id);
      if (!q) throw invalid(`Expression refers to unknown id ${id}`);
      if (stack.includes(id)) throw invalid(`Circular expression involving ${id}`);
      const v = q.MetricStat
        ? this.metricStat(q, start, end)
        : new ExpressionEvaluator(tokenizeExpression(q.Expression ?? ''), (ref) => evaluate(ref, [...stack, id]), () =>
            queries.filter((x) => x.MetricStat).map((x) => ({ id: x.Id!, series: evaluate(x.Id!, [...stack, id]) as TimeSeries })),
          ).run();
      memo.set(id, v);
      return v;
    };
    const results: { Id: string; Label: string; points: [number, number][]; partial: boolean }[] = [];
    for (const q of queries) {
      if (q.ReturnData === false) continue;
      const v = evaluate(q.Id!, []);
      if (typeof v === 'number') throw invalid(`Expression ${q.Id} must return a time series`);
      const list = Array.isArray(v) ? v : [v];
      const label = q.Label ?? (q.MetricStat ? (q.MetricStat.Metric?.MetricName ?? q.Id!) : q.Id!);
      list.forEach((s, i) => {
        const points = [...s].filter(([t]) => t >= start && t < end);
        points.sort(([a], [b]) => (r.ScanBy === 'TimestampAscending' ? a - b : b - a));
        if (partial) points.splice(r.ScanBy === 'TimestampAscending' ? -1 : 0, 1);
        results.push({ Id: q.Id!, Label: list.length > 1 ? `${label} ${i}` : label, points, partial });
      });
    }
    return this.page(results, r);
  }

  private page(results: { Id: string; Label: string; points: [number, number][]; partial: boolean }[], r: WireRequest): unknown {
    const max = r.MaxDatapoints ?? 100_800;
    const offset = r.NextToken ? Number(JSON.parse(Buffer.from(r.NextToken, 'base64').toString('utf8')).offset) : 0;
    const total = results.reduce((n, x) => n + x.points.length, 0);
    let seen = 0;
    const out = [];
    for (const res of results) {
      const from = Math.max(0, offset - seen);
      const to = Math.min(res.points.length, offset + max - seen);
      seen += res.points.length;
      const slice = from < to ? res.points.slice(from, to) : [];
      if (!slice.length && !(offset === 0 && res.points.length === 0)) continue;
      out.push({
        Id: res.Id,
        Label: res.Label,
        Timestamps: slice.map(([t]) => t),
        // AWS JSON sends NaN and the infinities as strings.
        Values: slice.map(([, v]) => (Number.isFinite(v) ? v : String(v))),
        StatusCode: to < res.points.length || res.partial ? 'PartialData' : 'Complete',
        Messages: [],
      });
    }
    const next = offset + max < total ? Buffer.from(JSON.stringify({ offset: offset + max })).toString('base64') : undefined;
    return { MetricDataResults: out, Messages: this.responseMessages, ...(next ? { NextToken: next } : {}) };
  }

  private rawPoints(metric: LocalMetric, from: number, to: number): { t: number; v: number }[] {
    const key = metricKey(metric);
    const visibleUntil = this.clock() / 1000 - (this.options.ingestDelaySeconds ?? 0);
    const gen = this.generators.get(key);
    const points: { t: number; v: number }[] = [];
    if (gen) {
      for (let t = Math.ceil(from / gen.intervalSeconds) * gen.intervalSeconds; t < to; t += gen.intervalSeconds) {
        const v = gen.fn(t);
        if (v !== undefined) points.push({ t, v });
      }
    } else {
      for (const p of this.series.get(key) ?? []) {
        const t = (p.timestamp instanceof Date ? p.timestamp.getTime() : p.timestamp) / 1000;
        if (t >= from && t < to) points.push({ t, v: p.value });
      }
    }
    return points.filter((p) => p.t <= visibleUntil);
  }

  private metricStat(q: WireQuery, start: number, end: number): TimeSeries {
    const ms = q.MetricStat!;
    const period = ms.Period ?? 0;
    if (!(period > 0)) throw new RequestError(400, 'com.amazonaws.cloudwatch#InvalidParameterValueException', 'ValidationError;Sender', `Query ${q.Id} needs a Period`);
    const metric: LocalMetric = {
      namespace: ms.Metric?.Namespace ?? '',
      metricName: ms.Metric?.MetricName ?? '',
      dimensions: (ms.Metric?.Dimensions ?? []).map((d) => ({ name: d.Name ?? '', value: d.Value ?? '' })),
    };
    const buckets = new Map<number, number[]>();
    // Periods start at StartTime; the last one may run past EndTime (and be incomplete).
    for (const p of this.rawPoints(metric, start, end + period)) {
      const b = start + Math.floor((p.t - start) / period) * period;
      if (b >= end) continue;
      buckets.set(b, [...(buckets.get(b) ?? []), p.v]);
    }
    const out: TimeSeries = new Map();
    for (const [b, values] of buckets) out.set(b, statistic(ms.Stat ?? '', values)!);
    return out;
  }
}

/** + - * / over ids, numbers and parentheses; SUM/AVG/MIN/MAX; METRICS() (every MetricStat query). */
class ExpressionEvaluator {
  private i = 0;
  constructor(
    private readonly tokens: ExpressionToken[],
    private readonly ref: (id: string) => Value,
    private readonly allMetrics: () => { id: string; series: TimeSeries }[],
  ) {}

  run(): Value {
    const v = this.sum();
    if (this.i < this.tokens.length) throw this.error(`unexpected "${this.tokens[this.i].text}"`);
    return v;
  }

  private error(msg: string): RequestError {
    return new RequestError(400, 'com.amazonaws.cloudwatch#InvalidParameterValueException', 'ValidationError;Sender', `Error in expression: ${msg}`);
  }

  private peek(text: string): boolean {
    const t = this.tokens[this.i];
    return t?.kind === 'punct' && t.text === text;
  }

  private expect(text: string): void {
    if (!this.peek(text)) throw this.error(`expected "${text}"`);
    this.i++;
  }

  private sum(): Value {
    let v = this.product();
    while (this.peek('+') || this.peek('-')) {
      const op = this.tokens[this.i++].text;
      v = combine(v, this.product(), op === '+' ? (a, b) => a + b : (a, b) => a - b);
    }
    return v;
  }

  private product(): Value {
    let v = this.unary();
    while (this.peek('*') || this.peek('/')) {
      const op = this.tokens[this.i++].text;
      v = combine(v, this.unary(), op === '*' ? (a, b) => a * b : (a, b) => (b === 0 ? undefined : a / b));
    }
    return v;
  }

  private unary(): Value {
    if (this.peek('-')) {
      this.i++;
      return combine(-1, this.unary(), (a, b) => a * b);
    }
    return this.primary();
  }

  private primary(): Value {
    const t = this.tokens[this.i++];
    if (!t) throw this.error('unexpected end');
    if (t.kind === 'number') return t.value;
    if (t.kind === 'punct' && t.text === '(') {
      const v = this.sum();
      this.expect(')');
      return v;
    }
    if (t.kind === 'name' && /^[a-z]/.test(t.text)) return this.ref(t.text);
    if (t.kind === 'name') {
      this.expect('(');
      const args: Value[] = [];
      let filter: string | undefined;
      while (!this.peek(')')) {
        const s = this.tokens[this.i];
        if (s?.kind === 'string') {
          filter = s.value;
          this.i++;
        } else {
          args.push(this.sum());
        }
        if (!this.peek(')')) this.expect(',');
      }
      this.expect(')');
      return this.call(t.text, args, filter);
    }
    throw this.error(`unexpected "${t.text}"`);
  }

  private call(fn: string, args: Value[], filter: string | undefined): Value {
    if (fn === 'METRICS') {
      // METRICS('x'): the MetricStat queries whose id contains x.
      return this.allMetrics()
        .filter((m) => filter === undefined || m.id.includes(filter))
        .map((m) => m.series);
    }
    const reducers: Record<string, (xs: number[]) => number> = {
      SUM: (xs) => xs.reduce((a, b) => a + b, 0),
      AVG: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
      MIN: (xs) => Math.min(...xs),
      MAX: (xs) => Math.max(...xs),
    };
    const reduce = reducers[fn];
    if (!reduce || args.length !== 1) throw this.error(`the local endpoint does not support ${fn}(${args.length} arguments)`);
    const [arg] = args;
    if (typeof arg === 'number') return arg;
    if (!Array.isArray(arg)) return reduce([...arg.values()]);
    // Across series, per timestamp.
    const at = new Map<number, number[]>();
    for (const s of arg) for (const [t, v] of s) at.set(t, [...(at.get(t) ?? []), v]);
    return new Map([...at].map(([t, vs]) => [t, reduce(vs)]));
  }
}

function combine(a: Value, b: Value, op: (x: number, y: number) => number | undefined): Value {
  if (Array.isArray(a) || Array.isArray(b)) {
    const xs = Array.isArray(a) ? a : [a];
    const ys = Array.isArray(b) ? b : [b];
    return xs.flatMap((x) => ys.map((y) => combine(x, y, op) as TimeSeries));
  }
  if (typeof a === 'number' && typeof b === 'number') return op(a, b) ?? NaN;
  const out: TimeSeries = new Map();
  const timestamps = typeof a === 'number' ? [...(b as TimeSeries).keys()] : [...a.keys()];
  for (const t of timestamps) {
    const x = typeof a === 'number' ? a : a.get(t);
    const y = typeof b === 'number' ? b : b.get(t);
    if (x === undefined || y === undefined) continue;
    const v = op(x, y);
    if (v !== undefined && Number.isFinite(v)) out.set(t, v);
  }
  return out;
}

export async function startLocalCloudWatch(options: LocalCloudWatchOptions = {}): Promise<LocalCloudWatch> {
  let instance: LocalCloudWatch | undefined;
  const server = createServer((req, res) => {
    // Only reading the body can reject (the client went away): there is no one to answer.
    instance!.handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  instance = new LocalCloudWatch(server, `http://127.0.0.1:${port}`, options);
  return instance;
}
