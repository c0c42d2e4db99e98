// Pure planning of a cycle's CloudWatch reads: the time window of each query object,
// and the GetMetricData requests that fetch many objects at once. Identical metric
// stats and expressions become one MetricDataQuery; ids are renamed per request
// group so objects never collide, and expressions are renamed with them.
import type { MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import {
  type CloudWatchDimension,
  type CloudWatchMetricSpec,
  type CloudWatchMetricStat,
  type CloudWatchQuery,
  MAX_QUERIES_PER_REQUEST,
  referencedIds,
  renameIds,
  usesAllMetrics,
} from '#api';
import { stableKey } from '../shared/stable-key.js';

export const DEFAULT_LOOKBACK_PERIODS = 5;

/** The window a query object is read over, in epoch seconds. */
export interface QueryWindow {
  /** Period of the returned series: a datapoint at t is complete when t + period <= end. */
  period: number;
  start: number;
  end: number;
}

/** One distinct query object of a cycle (identical specs share one). */
export interface PlannedUnit {
  key: string;
  spec: CloudWatchMetricSpec;
  region: string;
  window: QueryWindow;
}

export interface UnitInRequest {
  key: string;
  /** The id whose result is this object's value. */
  returnId: string;
  /** Every id of the request this object uses (its messages and status matter). */
  ids: string[];
}

export interface PlannedRequest {
  region: string;
  roleArn?: string;
  startTime: number;
  endTime: number;
  queries: MetricDataQuery[];
  units: UnitInRequest[];
}

/** The normalized spec two objects must share to be fetched once. */
export function specKey(spec: CloudWatchMetricSpec, region: string): string {
  const queries = spec.queries.map((q) => ({
    ...q,
    returnData: q.returnData !== false,
    metricStat: q.metricStat && {
      ...q.metricStat,
      metric: { ...q.metricStat.metric, dimensions: sortedDimensions(q.metricStat.metric.dimensions) },
    },
  }));
  return stableKey({ ...spec, queries, region });
}

function sortedDimensions(d: CloudWatchDimension[] | undefined): CloudWatchDimension[] | undefined {
  return d && [...d].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

type SdkMetricStat = NonNullable<MetricDataQuery['MetricStat']>;

function toSdkMetricStat(ms: CloudWatchMetricStat): SdkMetricStat {
  return {
    Metric: {
      Namespace: ms.metric.namespace,
      MetricName: ms.metric.metricName,
      Dimensions: sortedDimensions(ms.metric.dimensions)?.map((d) => ({ Name: d.name, Value: d.value })),
    },
    Period: ms.period,
    Stat: ms.stat,
    ...(ms.unit ? { Unit: ms.unit as SdkMetricStat['Unit'] } : {}),
  };
}

export function returnQuery(spec: CloudWatchMetricSpec): CloudWatchQuery {
  const q = spec.queries.find((x) => x.returnData !== false);
  if (!q) throw new Error('no query returns data');
  return q;
}

/** The period of the returned series: its own, or the longest metricStat period it uses. */
export function resultPeriod(spec: CloudWatchMetricSpec): number {
  const byId = new Map(spec.queries.map((q) => [q.id, q]));
  const periods = (q: CloudWatchQuery, seen: Set<string>): number[] => {
    if (q.metricStat) return [q.metricStat.period];
    if (q.period !== undefined) return [q.period];
    const expr = q.expression ?? '';
    // METRICS() uses every metricStat query of the object.
    const refs = usesAllMetrics(expr) ? spec.queries.filter((x) => x.metricStat).map((x) => x.id) : referencedIds(expr);
    return refs.flatMap((id) => {
      const r = byId.get(id);
      if (!r || seen.has(id)) return [];
      seen.add(id);
      return periods(r, seen);
    });
  };
  const found = periods(returnQuery(spec), new Set());
  if (!found.length) throw new Error('the returned query has no period');
  return Math.max(...found);
}

/**
 * The newest window whose last period has ended, publishDelay seconds ago: the value is
 * re-requested only when this window moves, i.e. when a newer datapoint can exist.
 */
export function windowFor(spec: CloudWatchMetricSpec, nowMs: number, publishDelaySeconds: number, defaultLookback: number): QueryWindow {
  const period = resultPeriod(spec);
  const latest = Math.floor(nowMs / 1000) - (spec.endTimeOffsetSeconds ?? 0) - publishDelaySeconds;
  const end = Math.floor(latest / period) * period;
  return { period, end, start: end - (spec.lookbackPeriods ?? defaultLookback) * period };
}

/**
 * The window of a read an alarm asked for: it ends at, or just after, the end of the period
 * the alarm evaluated (`evaluatedUntilMs`), which CloudWatch therefore has; never inside a
 * period that has not ended, and never before the usual window's end.
 */
export function alarmWindowFor(spec: CloudWatchMetricSpec, nowMs: number, evaluatedUntilMs: number, publishDelaySeconds: number, defaultLookback: number): QueryWindow {
  const usual = windowFor(spec, nowMs, publishDelaySeconds, defaultLookback);
  const { period } = usual;
  const ended = Math.floor(nowMs / 1000 / period) * period;
  const evaluated = Math.ceil(evaluatedUntilMs / 1000 / period) * period;
  const end = Math.max(usual.end, Math.min(ended, evaluated));
  return { period, end, start: end - (spec.lookbackPeriods ?? defaultLookback) * period };
}

interface Node {
  id: string;
  query: MetricDataQuery;
}

/** Nodes of one group (same region, role and window), shared by all its objects. */
class GroupNodes {
  private readonly byKey = new Map<string, Node>();
  private readonly byId = new Map<string, MetricDataQuery>();
  constructor(private readonly prefix: string) {}

  add(key: string, make: (id: string) => MetricDataQuery): Node {
    let node = this.byKey.get(key);
    if (!node) {
      const id = `${this.prefix}${this.byKey.size}`;
      node = { id, query: make(id) };
      this.byKey.set(key, node);
      this.byId.set(id, node.query);
    }
    return node;
  }

  queryOf(id: string): MetricDataQuery {
    const query = this.byId.get(id);
    if (!query) throw new Error(`no query ${id}`);
    return query;
  }
}

/** Adds the closure of one object's returned query; returns the node ids it uses, the returned one last. */
function addUnit(nodes: GroupNodes, spec: CloudWatchMetricSpec): { returnId: string; ids: string[] } {
  const byId = new Map(spec.queries.map((q) => [q.id, q]));
  const resolved = new Map<string, Node>();
  const resolve = (q: CloudWatchQuery): Node => {
    const done = resolved.get(q.id);
    if (done) return done;
    let node: Node;
    if (q.metricStat) {
      const metricStat = toSdkMetricStat(q.metricStat);
      node = nodes.add(stableKey(metricStat), (id) => ({ Id: id, MetricStat: metricStat, ReturnData: false }));
    } else {
      const expr = q.expression ?? '';
      // Inputs first, so the expression can be written with their ids.
      const text = renameIds(expr, (ref) => resolve(byId.get(ref)!).id);
      node = nodes.add(stableKey({ expr: text, period: q.period }), (id) => ({
        Id: id,
        Expression: text,
        ...(q.period !== undefined ? { Period: q.period } : {}),
        ReturnData: false,
      }));
    }
    resolved.set(q.id, node);
    return node;
  };
  const ret = resolve(returnQuery(spec));
  return { returnId: ret.id, ids: [...new Set([...resolved.values()].map((n) => n.id))] };
}

/** METRICS() means "every query of the request": such an object gets a request of its own, as written. */
function isolatedRequest(unit: PlannedUnit): PlannedRequest {
  const queries: MetricDataQuery[] = unit.spec.queries.map((q) => ({
    Id: q.id,
    ...(q.label !== undefined ? { Label: q.label } : {}),
    ...(q.metricStat
      ? { MetricStat: toSdkMetricStat(q.metricStat) }
      : { Expression: q.expression, ...(q.period !== undefined ? { Period: q.period } : {}) }),
    ReturnData: q.returnData !== false,
  }));
  return {
    region: unit.region,
    roleArn: unit.spec.roleArn,
    startTime: unit.window.start,
    endTime: unit.window.end,
    queries,
    units: [{ key: unit.key, returnId: returnQuery(unit.spec).id, ids: unit.spec.queries.map((q) => q.id) }],
  };
}

/** As few GetMetricData requests as the limits allow: grouped by region, role and window, ≤ 500 queries each. */
export function planRequests(units: PlannedUnit[]): PlannedRequest[] {
  const requests: PlannedRequest[] = [];
  const groups = new Map<string, PlannedUnit[]>();
  for (const u of units) {
    if (u.spec.queries.some((q) => q.expression !== undefined && usesAllMetrics(q.expression))) {
      requests.push(isolatedRequest(u));
      continue;
    }
    const g = stableKey([u.region, u.spec.roleArn ?? '', u.window.start, u.window.end]);
    groups.set(g, [...(groups.get(g) ?? []), u]);
  }
  let groupIndex = 0;
  for (const members of groups.values()) {
    const first = members[0];
    const nodes = new GroupNodes(`g${groupIndex++}_`);
    let current: { ids: Set<string>; units: UnitInRequest[] } | undefined;
    const chunks: { ids: Set<string>; units: UnitInRequest[] }[] = [];
    for (const u of members) {
      const { returnId, ids } = addUnit(nodes, u.spec);
      const fits = current && [...ids].filter((id) => !current!.ids.has(id)).length + current.ids.size <= MAX_QUERIES_PER_REQUEST;
      if (!current || !fits) {
        current = { ids: new Set(), units: [] };
        chunks.push(current);
      }
      for (const id of ids) current.ids.add(id);
      current.units.push({ key: u.key, returnId, ids });
    }
    for (const chunk of chunks) {
      const returned = new Set(chunk.units.map((u) => u.returnId));
      requests.push({
        region: first.region,
        roleArn: first.spec.roleArn,
        startTime: first.window.start,
        endTime: first.window.end,
        // A query returns data in this request only when an object of this request reads it.
        queries: [...chunk.ids].map((id) => ({ ...nodes.queryOf(id), ReturnData: returned.has(id) })),
        units: chunk.units,
      });
    }
  }
  return requests;
}
