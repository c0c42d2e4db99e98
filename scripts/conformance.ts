// Conformance runner: `npm run conformance -- <dir|file>...` runs every vector of every *.json
// under the given paths through lib/hpa and ends with "N passed, N failed".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  computeReplicasForMetric,
  type ControllerSettings,
  type FeatureGates,
  type Fetched,
  type HorizontalPodAutoscaler,
  type MetricData,
  type MetricSpec,
  normalizeLegacy,
  normalizeWithBehavior,
  reconcile,
  type ReconcileInput,
} from '#hpa';
import { applyDefaults, DEFAULT_CONTROLLER_SETTINGS, DEFAULT_FEATURE_GATES, milliValue, parseQuantity, validateAutoscaler } from '#hpa/api';

/** A vector as read from JSON: the schema of shared/conformance/README.md. */
type Vector = Record<string, unknown> & { kind: string; name: string; now: string; expect: Record<string, unknown> };
type Check = (v: Vector) => string[];

export interface VectorResult {
  file: string;
  name: string;
  failures: string[];
}

export function runVectorFiles(paths: string[]): VectorResult[] {
  const results: VectorResult[] = [];
  for (const file of paths.flatMap(jsonFilesUnder)) {
    let vectors: unknown;
    try {
      vectors = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      results.push({ file, name: '(file)', failures: [`cannot parse JSON: ${message(e)}`] });
      continue;
    }
    if (!Array.isArray(vectors)) {
      results.push({ file, name: '(file)', failures: ['expected a JSON array of vectors'] });
      continue;
    }
    vectors.forEach((raw: unknown, i) => {
      const v = raw as Vector;
      const name = typeof v?.name === 'string' ? v.name : `#${i}`;
      results.push({ file, name, failures: runVector(v) });
    });
  }
  return results;
}

export function runVector(v: Vector): string[] {
  const check = checks[v?.kind];
  if (!check) return [`unknown kind ${JSON.stringify(v?.kind)}`];
  if (typeof v.expect !== 'object' || v.expect === null) return ['vector has no expect'];
  try {
    return check(v);
  } catch (e) {
    return [`threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`];
  }
}

const checks: Record<string, Check> = {
  replicas(v) {
    const metric = v.metric as MetricSpec;
    const currentReplicas = v.currentReplicas as number;
    const settings = controllerSettings(v);
    const outcome = computeReplicasForMetric(
      metric,
      {
        currentReplicas,
        statusReplicas: (v.statusReplicas as number | undefined) ?? currentReplicas,
        pods: (v.pods as ReconcileInput['pods']) ?? [],
        tolerances: settings.tolerance,
        cpuInitializationPeriodSeconds: settings.cpuInitializationPeriodSeconds,
        initialReadinessDelaySeconds: settings.initialReadinessDelaySeconds,
        now: new Date(v.now),
      },
      replicaData(v, metric),
    );
    const e = v.expect;
    if (e.error !== undefined) {
      if (outcome.ok) return [`expected an error containing ${JSON.stringify(e.error)}, got ${outcome.proposal.replicas} replicas`];
      return outcome.message.includes(e.error as string) ? [] : [`error ${JSON.stringify(outcome.message)} does not contain ${JSON.stringify(e.error)}`];
    }
    if (!outcome.ok) return [`unexpected error: ${outcome.reason}: ${outcome.message}`];
    const p = outcome.proposal;
    const got: Record<string, unknown> = { replicas: p.replicas };
    if (e.utilization !== undefined) got.utilization = p.utilization;
    if (e.averageValueMilli !== undefined) got.averageValueMilli = jsonMilli(p.rawMilli);
    if (e.timestamp !== undefined) got.timestamp = sameInstant(p.timestamp, e.timestamp as string) ? e.timestamp : p.timestamp;
    return diff(pick(e, ['replicas', 'utilization', 'averageValueMilli', 'timestamp']), got);
  },

  behavior(v) {
    const r = normalizeWithBehavior({
      ...normalizeArgs(v),
      behavior: v.behavior as HorizontalPodAutoscaler['spec']['behavior'] & object,
      scaleUpEvents: (v.scaleUpEvents as []) ?? [],
      scaleDownEvents: (v.scaleDownEvents as []) ?? [],
    });
    return diff(pick(v.expect, ['replicas', 'reason']), { replicas: r.replicas, reason: r.limited.reason });
  },

  legacy(v) {
    const settings = controllerSettings(v);
    const r = normalizeLegacy({
      ...normalizeArgs(v),
      downscaleStabilizationWindowSeconds: settings.downscaleStabilizationWindowSeconds,
      scaleUpLimitFactor: settings.scaleUpLimitFactor,
      scaleUpLimitMinimum: settings.scaleUpLimitMinimum,
    });
    return diff(pick(v.expect, ['replicas', 'reason']), { replicas: r.replicas, reason: r.limited.reason });
  },

  validation(v) {
    // What `shpa apply` refuses, our annotations included (a malformed pause annotation is invalid).
    const r = validateAutoscaler(v.hpa, featureGates(v));
    const failures: string[] = [];
    if (r.valid !== v.expect.valid) {
      failures.push(`valid: expected ${String(v.expect.valid)}, got ${String(r.valid)}${r.valid ? '' : ` (${r.errors.map((x) => `${x.field}: ${x.message}`).join('; ')})`}`);
    }
    const named = new Set(r.errors.map((x) => x.field));
    for (const field of (v.expect.fields as string[] | undefined) ?? []) {
      if (!named.has(field)) failures.push(`no error names ${field} (errors: ${[...named].join(', ') || 'none'})`);
    }
    return failures;
  },

  reconcile(v) {
    const hpa = v.hpa as HorizontalPodAutoscaler;
    const scale = v.scaleError !== undefined ? { error: v.scaleError as string } : { value: v.scale as ReconcileInput['scale']['value'] & object };
    const result = reconcile(
      {
        hpa,
        scale,
        pods: (v.pods as ReconcileInput['pods']) ?? [],
        // aligned with the metrics reconcile will use: the defaulted ones (cpu 80% when none are given)
        metrics: (applyDefaults(hpa).spec.metrics ?? []).map((m) => reconcileData(v, m)),
        history: {
          recommendations: (v.recommendations as ReconcileInput['history']['recommendations']) ?? null,
          scaleUpEvents: (v.scaleUpEvents as []) ?? [],
          scaleDownEvents: (v.scaleDownEvents as []) ?? [],
        },
        otherHpaSelectors: v.otherHpaSelectors as ReconcileInput['otherHpaSelectors'],
        settings: controllerSettings(v),
        now: new Date(v.now),
      },
      v.scaleUpdateError as string | undefined,
    );
    const e = v.expect;
    const got: Record<string, unknown> = { desiredReplicas: result.status.desiredReplicas, scaled: result.scaled };
    if (e.statusUpdated !== undefined) got.statusUpdated = result.statusChanged;
    if (e.conditions !== undefined) got.conditions = result.conditions.map(({ type, status, reason }) => ({ type, status, reason }));
    if (e.events !== undefined) got.events = result.events.map(({ reason, message }) => ({ reason, message }));
    const failures = diff(pick(e, ['desiredReplicas', 'scaled', 'statusUpdated', 'conditions', 'events']), got);
    for (const want of (e.currentMetrics as unknown[] | undefined) ?? []) {
      if (!(result.status.currentMetrics ?? []).some((have) => partialMatch(want, have))) {
        failures.push(`currentMetrics: no entry matches ${JSON.stringify(want)} (have ${JSON.stringify(result.status.currentMetrics ?? [])})`);
      }
    }
    return failures;
  },
};

// ---- mapping vector fields to library inputs ----

function featureGates(v: Vector): FeatureGates {
  return { ...DEFAULT_FEATURE_GATES, ...((v.featureGates as Partial<FeatureGates>) ?? {}) };
}

function controllerSettings(v: Vector): ControllerSettings {
  const d = DEFAULT_CONTROLLER_SETTINGS;
  const extra = (v.settings as Partial<ControllerSettings> | undefined) ?? {};
  return {
    ...d,
    ...extra,
    tolerance: (v.tolerance as ControllerSettings['tolerance']) ?? d.tolerance,
    cpuInitializationPeriodSeconds: (v.cpuInitializationPeriodSeconds as number) ?? d.cpuInitializationPeriodSeconds,
    initialReadinessDelaySeconds: (v.initialReadinessDelaySeconds as number) ?? d.initialReadinessDelaySeconds,
    downscaleStabilizationWindowSeconds: (v.downscaleStabilizationWindowSeconds as number) ?? d.downscaleStabilizationWindowSeconds,
    featureGates: featureGates(v),
  };
}

function normalizeArgs(v: Vector) {
  return {
    currentReplicas: v.currentReplicas as number,
    prenormalizedDesiredReplicas: v.desiredReplicas as number,
    minReplicas: v.minReplicas as number,
    maxReplicas: v.maxReplicas as number,
    recommendations: (v.recommendations as []) ?? [],
    now: new Date(v.now),
  };
}

/** Vector values are a list, an object, or { error }. */
function fetched<T>(value: unknown, fallback: T): Fetched<T> {
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { error?: unknown }).error === 'string') {
    return { error: (value as { error: string }).error };
  }
  return { value: (value as T | undefined) ?? fallback };
}

/** The `replicas` kind: one metric's data, or metricsError on the field its type reads. */
function replicaData(v: Vector, metric: MetricSpec): MetricData {
  const err = v.metricsError as string | undefined;
  const or = <T>(value: unknown, fallback: T): Fetched<T> => (err !== undefined ? { error: err } : fetched(value, fallback));
  switch (metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return { podMetrics: or(v.podMetrics, []) };
    case 'Pods':
      return { podCustomMetrics: or(v.podCustomMetrics, []) };
    case 'Object':
      return v.objectMetric === undefined && err === undefined ? {} : { objectMetric: or(v.objectMetric, { value: '0', timestamp: v.now }) };
    case 'External':
      return { externalMetrics: or(v.externalMetrics, []) };
    default:
      return {};
  }
}

/** The `reconcile` kind: metric values by metric name. */
function reconcileData(v: Vector, metric: MetricSpec): MetricData {
  const byName = (field: string, name: string | undefined): unknown =>
    name === undefined ? undefined : (v[field] as Record<string, unknown> | undefined)?.[name];
  switch (metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return { podMetrics: fetched(v.podMetrics, []) };
    case 'Pods':
      return { podCustomMetrics: fetched(byName('podCustomMetrics', metric.pods?.metric.name), []) };
    case 'Object': {
      const value = byName('objectMetrics', metric.object?.metric.name);
      return value === undefined ? { objectMetric: { error: 'no value for this object metric' } } : { objectMetric: fetched(value, { value: '0', timestamp: v.now }) };
    }
    case 'External':
      return { externalMetrics: fetched(byName('externalMetrics', metric.external?.metric.name), []) };
    default:
      return {};
  }
}

// ---- comparison ----

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

function diff(want: Record<string, unknown>, got: Record<string, unknown>): string[] {
  return Object.keys(want)
    .filter((k) => !isDeepStrictEqual(want[k], got[k]))
    .map((k) => `${k}:\n      want ${JSON.stringify(want[k])}\n      got  ${JSON.stringify(got[k])}`);
}

/** averageValueMilli: a JSON integer, or a decimal string beyond 2^53. */
function jsonMilli(milli: bigint): number | string {
  return milli <= BigInt(Number.MAX_SAFE_INTEGER) && milli >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(milli) : milli.toString();
}

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}

/** Every field `want` gives matches `have`; quantities compare by value. */
function partialMatch(want: unknown, have: unknown): boolean {
  if (want !== null && typeof want === 'object') {
    if (have === null || typeof have !== 'object') return false;
    if (Array.isArray(want)) return Array.isArray(have) && want.length === have.length && want.every((w, i) => partialMatch(w, have[i]));
    return Object.entries(want).every(([k, w]) => partialMatch(w, (have as Record<string, unknown>)[k]));
  }
  if (typeof want === 'string' && typeof have === 'string' && want !== have) return sameQuantity(want, have);
  return want === have;
}

function sameQuantity(a: string, b: string): boolean {
  try {
    return milliValue(parseQuantity(a)) === milliValue(parseQuantity(b));
  } catch {
    return false;
  }
}

function jsonFilesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => {
      const full = join(path, entry);
      return statSync(full).isDirectory() ? jsonFilesUnder(full) : entry.endsWith('.json') ? [full] : [];
    });
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function main(argv: string[]): number {
  const paths = argv.filter((a) => !a.startsWith('-'));
  if (paths.length === 0) {
    console.error('usage: npm run conformance -- <folder or file of vectors>...');
    return 2;
  }
  for (const p of paths) {
    try {
      statSync(p);
    } catch {
      console.error(`conformance: no such file or folder: ${p}`);
      return 2;
    }
  }
  const results = runVectorFiles(paths);
  if (results.length === 0) {
    console.error(`conformance: no vectors under ${paths.join(', ')} (expected *.json files holding arrays of vectors)`);
    console.log('0 passed, 0 failed');
    return 1;
  }
  const failed = results.filter((r) => r.failures.length > 0);
  for (const r of failed) {
    console.log(`FAIL ${r.file} :: ${r.name}`);
    for (const f of r.failures) console.log(`    ${f}`);
  }
  if (argv.includes('--verbose')) for (const r of results.filter((x) => x.failures.length === 0)) console.log(`ok   ${r.name}`);
  console.log(`${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = main(process.argv.slice(2));
}
