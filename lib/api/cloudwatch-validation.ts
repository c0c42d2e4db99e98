// Validation of shpa.dev/v1 CloudWatchMetric documents, with field paths as for HPAs.
// The rules are CloudWatch's GetMetricData rules, checked before anything is stored.
import type { FieldError } from '#hpa/api';
import type { CloudWatchMetric } from './cloudwatch-types.js';
import { ExpressionSyntaxError, referencedIds, tokenizeExpression, usesAllMetrics } from './cloudwatch-expression.js';
import { statisticProblem } from './cloudwatch-statistic.js';
import { FieldCollector } from './field-collector.js';
import { isAwsRegion, isRoleArn } from '../shared/aws-patterns.cjs';

export type CloudWatchMetricValidation = { valid: true; object: CloudWatchMetric } | { valid: false; errors: FieldError[] };

export const MAX_QUERIES_PER_REQUEST = 500;

const UNITS = new Set(
  'Seconds Microseconds Milliseconds Bytes Kilobytes Megabytes Gigabytes Terabytes Bits Kilobits Megabits Gigabits Terabits Percent Count Bytes/Second Kilobytes/Second Megabytes/Second Gigabytes/Second Terabytes/Second Bits/Second Kilobits/Second Megabits/Second Gigabits/Second Terabits/Second Count/Second None'.split(
    ' ',
  ),
);
const ID = /^[a-z][a-zA-Z0-9_]*$/;

/** True for 1, 5, 10, 20, 30 and multiples of 60: the periods CloudWatch accepts. */
export function isValidPeriod(p: unknown): p is number {
  return typeof p === 'number' && Number.isInteger(p) && p > 0 && ([1, 5, 10, 20, 30].includes(p) || p % 60 === 0);
}

/** The shared collector, with CloudWatch's period rule. */
class Collector extends FieldCollector {
  period(path: string, v: unknown, required: boolean): void {
    if (v === undefined || v === null) {
      if (required) this.add(path, 'Required', '');
    } else if (!isValidPeriod(v)) {
      this.add(path, 'Invalid', 'must be 1, 5, 10, 20, 30 or a multiple of 60 (seconds)', v);
    }
  }
}

function validateMetricStat(c: Collector, path: string, v: unknown): void {
  const ms = c.object(path, v, true);
  if (!ms) return;
  c.unknownFields(path, ms, ['metric', 'period', 'stat', 'unit']);
  const metric = c.object(`${path}.metric`, ms.metric, true);
  if (metric) {
    c.unknownFields(`${path}.metric`, metric, ['namespace', 'metricName', 'dimensions']);
    const ns = c.string(`${path}.metric.namespace`, metric.namespace, true, 255);
    if (ns?.startsWith(':')) c.add(`${path}.metric.namespace`, 'Invalid', 'must not start with ":"', ns);
    c.string(`${path}.metric.metricName`, metric.metricName, true, 255);
    validateDimensions(c, `${path}.metric.dimensions`, metric.dimensions);
  }
  c.period(`${path}.period`, ms.period, true);
  const stat = c.string(`${path}.stat`, ms.stat, true, 100);
  if (stat) {
    const problem = statisticProblem(stat);
    if (problem) c.add(`${path}.stat`, 'NotSupported', problem, stat);
  }
  const unit = c.string(`${path}.unit`, ms.unit, false, 100);
  if (unit !== undefined && !UNITS.has(unit)) c.add(`${path}.unit`, 'NotSupported', 'not a CloudWatch unit', unit);
}

function validateDimensions(c: Collector, path: string, v: unknown): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) {
    c.add(path, 'TypeInvalid', 'must be a list of {name, value}', v);
    return;
  }
  if (v.length > 30) c.add(path, 'TooLong', 'CloudWatch allows at most 30 dimensions');
  const seen = new Set<string>();
  v.forEach((d, i) => {
    const p = `${path}[${i}]`;
    const dim = c.object(p, d, true);
    if (!dim) return;
    c.unknownFields(p, dim, ['name', 'value']);
    const name = c.string(`${p}.name`, dim.name, true, 255);
    c.string(`${p}.value`, dim.value, true, 1024);
    if (name) {
      if (seen.has(name)) c.add(`${p}.name`, 'Duplicate', 'Duplicate value', name);
      seen.add(name);
    }
  });
}

// PutMetricAlarm AlarmName: 1 to 255 characters, UTF-8, no ASCII control characters.
const ALARM_NAME_CONTROL = /[\u0000-\u001f\u007f]/;

function validateAlarmName(c: Collector, path: string, v: unknown): void {
  const name = c.string(path, v, false, Infinity);
  if (name === undefined) return;
  const length = [...name].length;
  if (length === 0 || length > 255) c.add(path, 'Invalid', 'must be 1 to 255 characters (a CloudWatch alarm name)', name);
  else if (ALARM_NAME_CONTROL.test(name)) c.add(path, 'Invalid', 'must not contain ASCII control characters (a CloudWatch alarm name)', name);
}

interface QueryFacts {
  id?: string;
  path: string;
  refs: string[];
  returnsData: boolean;
  /** 'broken' when neither a metricStat nor a readable expression. */
  kind: 'stat' | 'expression' | 'broken';
  /** Uses METRICS(): every metricStat query. */
  allMetrics?: boolean;
  period?: number;
}

function validateQueries(c: Collector, path: string, v: unknown): QueryFacts[] {
  if (v === undefined || v === null) {
    c.add(path, 'Required', '');
    return [];
  }
  if (!Array.isArray(v)) {
    c.add(path, 'TypeInvalid', 'must be a list of queries', v);
    return [];
  }
  if (v.length === 0) c.add(path, 'Required', 'at least one query is required');
  if (v.length > MAX_QUERIES_PER_REQUEST) c.add(path, 'TooLong', `at most ${MAX_QUERIES_PER_REQUEST} queries (one GetMetricData request)`);
  const facts: QueryFacts[] = [];
  v.forEach((q, i) => {
    const p = `${path}[${i}]`;
    const query = c.object(p, q, true);
    if (!query) return;
    c.unknownFields(p, query, ['id', 'metricStat', 'expression', 'label', 'returnData', 'period']);
    const id = c.string(`${p}.id`, query.id, true, 255);
    if (id && !ID.test(id)) {
      c.add(`${p}.id`, 'Invalid', 'must start with a lowercase letter and contain only letters, digits and underscores', id);
    }
    c.string(`${p}.label`, query.label, false, 2048);
    if (query.returnData !== undefined && typeof query.returnData !== 'boolean') {
      c.add(`${p}.returnData`, 'TypeInvalid', 'must be true or false', query.returnData);
    }
    const fact: QueryFacts = { id, path: p, refs: [], returnsData: query.returnData !== false, kind: 'broken' };
    const hasStat = query.metricStat !== undefined && query.metricStat !== null;
    const hasExpr = query.expression !== undefined && query.expression !== null;
    if (hasStat === hasExpr) {
      // Neither set: name the field the document left empty ("expression:"), if any.
      const empty = hasStat ? undefined : (['expression', 'metricStat'] as const).find((k) => k in query);
      c.add(empty ? `${p}.${empty}` : p, hasStat ? 'Forbidden' : 'Required', 'exactly one of metricStat or expression must be set');
    }
    if (hasStat) {
      validateMetricStat(c, `${p}.metricStat`, query.metricStat);
      if (query.period !== undefined) c.add(`${p}.period`, 'Forbidden', 'set metricStat.period instead (period applies to expressions)');
      if (!hasExpr) fact.kind = 'stat';
    } else if (hasExpr) {
      const expr = c.string(`${p}.expression`, query.expression, true, 2048);
      if (expr) {
        try {
          tokenizeExpression(expr);
          fact.refs = referencedIds(expr);
          if (!hasStat) fact.kind = 'expression';
          fact.allMetrics = usesAllMetrics(expr);
        } catch (e) {
          if (!(e instanceof ExpressionSyntaxError)) throw e;
          c.add(`${p}.expression`, 'Invalid', e.message, expr);
        }
      }
      c.period(`${p}.period`, query.period, false);
      if (isValidPeriod(query.period)) fact.period = query.period;
    }
    facts.push(fact);
  });
  return facts;
}

function checkReferences(c: Collector, path: string, facts: QueryFacts[]): void {
  const byId = new Map<string, QueryFacts>();
  facts.forEach((f) => {
    if (!f.id) return;
    if (byId.has(f.id)) c.add(`${f.path}.id`, 'Duplicate', 'Duplicate value', f.id);
    else byId.set(f.id, f);
  });
  for (const f of facts) {
    for (const ref of f.refs) {
      if (ref === f.id) c.add(`${f.path}.expression`, 'Invalid', `refers to its own id "${ref}"`);
      else if (!byId.has(ref)) c.add(`${f.path}.expression`, 'Invalid', `refers to unknown id "${ref}"`);
    }
  }
  // Expressions may use other expressions, but not in a cycle.
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (f: QueryFacts): boolean => {
    if (!f.id) return false;
    if (state.get(f.id) === 'done') return false;
    if (state.get(f.id) === 'visiting') return true;
    state.set(f.id, 'visiting');
    const cyclic = f.refs.some((r) => r !== f.id && byId.has(r) && visit(byId.get(r)!));
    state.set(f.id, 'done');
    return cyclic;
  };
  for (const f of facts) if (visit(f)) c.add(`${f.path}.expression`, 'Invalid', 'expressions refer to each other in a cycle');

  const returning = facts.filter((f) => f.returnsData);
  if (facts.length > 0 && returning.length !== 1) {
    c.add(
      path,
      'Invalid',
      returning.length === 0
        ? 'exactly one query must return data (returnData defaults to true)'
        : `exactly one query must return data, found ${returning.length}: set returnData: false on the others (it defaults to true)`,
    );
  } else if (returning.length === 1 && returning[0].kind === 'expression' && returning[0].period === undefined) {
    if (!usesMetricStat(returning[0], byId)) {
      c.add(`${returning[0].path}.period`, 'Required', 'an expression that uses no metricStat query (SEARCH, Metrics Insights) needs a period');
    }
  }
}

function usesMetricStat(f: QueryFacts, byId: Map<string, QueryFacts>, seen = new Set<string>()): boolean {
  if (f.kind === 'stat') return true;
  if (f.allMetrics && [...byId.values()].some((g) => g.kind === 'stat')) return true;
  return f.refs.some((r) => {
    const g = byId.get(r);
    if (!g || seen.has(r)) return false;
    seen.add(r);
    return usesMetricStat(g, byId, seen);
  });
}

/** Validates a decoded CloudWatchMetric document; on success returns it typed (not defaulted). */
export function validateCloudWatchMetric(input: unknown): CloudWatchMetricValidation {
  const c = new Collector();
  const spec = c.envelope(input, 'CloudWatchMetric');
  if (spec) {
    c.unknownFields('spec', spec, ['queries', 'region', 'roleArn', 'endTimeOffsetSeconds', 'lookbackPeriods', 'defaultValue', 'alarmName']);
    const facts = validateQueries(c, 'spec.queries', spec.queries);
    checkReferences(c, 'spec.queries', facts);
    const region = c.string('spec.region', spec.region, false, 64);
    if (region !== undefined && !isAwsRegion(region)) c.add('spec.region', 'Invalid', 'must be an AWS region such as us-east-1', region);
    const role = c.string('spec.roleArn', spec.roleArn, false, 2048);
    if (role !== undefined && !isRoleArn(role)) {
      c.add('spec.roleArn', 'Invalid', 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name', role);
    }
    c.integer('spec.endTimeOffsetSeconds', spec.endTimeOffsetSeconds, 0, 86_400);
    c.integer('spec.lookbackPeriods', spec.lookbackPeriods, 1, 1_440);
    if (spec.defaultValue !== undefined && (typeof spec.defaultValue !== 'number' || !Number.isFinite(spec.defaultValue))) {
      c.add('spec.defaultValue', 'TypeInvalid', 'must be a number', spec.defaultValue);
    }
    validateAlarmName(c, 'spec.alarmName', spec.alarmName);
  }
  return c.errors.length ? { valid: false, errors: c.errors } : { valid: true, object: input as CloudWatchMetric };
}
