// Upstream pkg/apis/autoscaling/validation (ValidateHorizontalPodAutoscaler) for autoscaling/v2,
// as the API server runs it on create, plus JSON type checks so any decoded YAML can be passed in.
import { DEFAULT_FEATURE_GATES } from './defaults.js';
import { MIN_FAILURE_DURATION_SECONDS } from '../fallback.js';
import {
  FieldPath,
  forbidden,
  formatFieldError,
  invalid,
  notSupported,
  required,
  tooLong,
  typeInvalid,
  type FieldError,
  type FieldErrorType,
} from './field-path.js';
import {
  containerResourceNameErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  parseGroupVersion,
} from './name-rules.js';
import { parseQuantity, QuantityError, sign, type Quantity } from './quantity.js';
import { validateSchedules } from '../schedules.js';
import { validatePredictive } from '../predictive.js';
import type { FeatureGates, HorizontalPodAutoscaler } from '../types.js';

/** spec.syncPeriodSeconds: KEP-6003's bounds, and our floor (the fastest a shard ticks). */
export const MAX_SYNC_PERIOD_SECONDS = 3600;
export const MIN_SYNC_PERIOD_SECONDS = 5;

export { formatFieldError };
export type { FieldError, FieldErrorType };

/** Accepted as upstream's API server accepts it, but it will not work as written: said before it is stored. */
export interface FieldWarning {
  field: string;
  message: string;
}

export type ValidationResult =
  | { valid: true; hpa: HorizontalPodAutoscaler; errors: []; warnings: FieldWarning[] }
  | { valid: false; errors: FieldError[]; warnings: FieldWarning[] };

/** "Warning: spec.metrics[0].resource.name: ...", as kubectl prints an API server's warnings. */
export function formatFieldWarning(w: FieldWarning): string {
  return `${w.field}: ${w.message}`;
}

type Obj = Record<string, unknown>;
/** A field present with the wrong JSON type: already reported, skip the rules that need it. */
const BAD = Symbol('bad');
type Read<T> = T | undefined | typeof BAD;

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];
// The field of MetricSpec that goes with each type, in upstream's order of validation.
const SOURCE_FIELDS: [field: string, type: string][] = [
  ['object', 'Object'],
  ['external', 'External'],
  ['pods', 'Pods'],
  ['resource', 'Resource'],
  ['containerResource', 'ContainerResource'],
];

/** Validates an object as decoded from YAML/JSON; on success returns it typed (not defaulted). */
export function validateHPA(input: unknown, gates?: Partial<FeatureGates>): ValidationResult {
  const v = new Validator({ ...DEFAULT_FEATURE_GATES, ...gates });
  const root = FieldPath.root('');
  if (!isObject(input)) return { valid: false, errors: [typeInvalid(root, input, 'must be an object')], warnings: [] };
  const hpa = cloneWithoutNulls(input) as Obj;
  v.typeMeta(hpa);
  v.objectMeta(v.obj(hpa.metadata, root.child('metadata')), root.child('metadata'));
  v.spec(hpa, root.child('spec'));
  if (v.errors.length > 0) return { valid: false, errors: v.errors, warnings: v.warnings };
  hpa.apiVersion = 'autoscaling/v2';
  hpa.kind = 'HorizontalPodAutoscaler';
  return { valid: true, hpa: hpa as unknown as HorizontalPodAutoscaler, errors: [], warnings: v.warnings };
}

class Validator {
  readonly errors: FieldError[] = [];
  readonly warnings: FieldWarning[] = [];

  /** spec.maxReplicas when it reads as an integer: a metric's fallback count may not exceed it. */
  private maxReplicas: number | undefined;

  constructor(private readonly gates: FeatureGates) {}

  private add(...errs: FieldError[]): void {
    this.errors.push(...errs);
  }

  private warn(field: FieldPath, message: string): void {
    this.warnings.push({ field: String(field), message });
  }

  // ---- JSON shape ----

  obj(value: unknown, path: FieldPath): Read<Obj> {
    if (value === undefined || value === null) return undefined;
    if (isObject(value)) return value;
    this.add(typeInvalid(path, value, 'must be an object'));
    return BAD;
  }

  private list(value: unknown, path: FieldPath): Read<unknown[]> {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    this.add(typeInvalid(path, value, 'must be a list'));
    return BAD;
  }

  /**
   * A list of objects, each entry validated by `each`. A null entry (YAML "- " or "[null, ...]") or a hole
   * is one error at its index: nothing downstream ever sees it.
   */
  private objects(value: unknown, path: FieldPath, what: string, each: (entry: Obj, path: FieldPath) => void): Read<unknown[]> {
    const list = this.list(value, path);
    if (list === undefined || list === BAD) return list;
    // An index loop, not forEach: forEach skips holes.
    for (let i = 0; i < list.length; i++) {
      const entry = list[i];
      if (entry === null || entry === undefined) {
        this.add(required(path.index(i), `an empty entry: write ${what}, or remove the entry`));
        continue;
      }
      const o = this.obj(entry, path.index(i));
      if (o !== undefined && o !== BAD) each(o, path.index(i));
    }
    return list;
  }

  private str(value: unknown, path: FieldPath): Read<string> {
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    this.add(typeInvalid(path, value, 'must be a string'));
    return BAD;
  }

  /** Replica counts, seconds and percentages are int32 upstream; anything else fails decoding. */
  private int32(value: unknown, path: FieldPath): Read<number> {
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return value;
    this.add(typeInvalid(path, value, 'must be a 32-bit integer'));
    return BAD;
  }

  private stringMap(value: unknown, path: FieldPath): Read<Record<string, string>> {
    const o = this.obj(value, path);
    if (o === undefined || o === BAD) return o;
    let ok = true;
    for (const [k, val] of Object.entries(o)) {
      if (typeof val !== 'string') {
        this.add(typeInvalid(path.key(k), val, 'must be a string'));
        ok = false;
      }
    }
    return ok ? (o as Record<string, string>) : BAD;
  }

  /** A quantity string (or a JSON number, which upstream also accepts); numbers are stored back as strings. */
  private quantity(parent: Obj, key: string, path: FieldPath): Read<Quantity> {
    let value = parent[key];
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isFinite(value)) {
      value = String(value);
      parent[key] = value;
    }
    if (typeof value !== 'string') {
      this.add(typeInvalid(path, value, 'must be a quantity string such as "100m"'));
      return BAD;
    }
    try {
      return parseQuantity(value);
    } catch (e) {
      if (!(e instanceof QuantityError)) throw e;
      this.add(invalid(path, value, e.message));
      return BAD;
    }
  }

  /** Strict decoding (kubectl's default): a field autoscaling/v2 does not have is an error, not silently dropped. */
  private knownFields(o: Obj, path: FieldPath, fields: readonly string[]): void {
    for (const k of Object.keys(o)) if (!fields.includes(k)) this.add(forbidden(path.child(k), 'unknown field'));
  }

  // ---- the object ----

  typeMeta(hpa: Obj): void {
    const root = FieldPath.root('');
    const apiVersion = this.str(hpa.apiVersion, root.child('apiVersion'));
    if (typeof apiVersion === 'string' && apiVersion !== 'autoscaling/v2') this.add(notSupported(root.child('apiVersion'), apiVersion, ['autoscaling/v2']));
    const kind = this.str(hpa.kind, root.child('kind'));
    if (typeof kind === 'string' && kind !== 'HorizontalPodAutoscaler') this.add(notSupported(root.child('kind'), kind, ['HorizontalPodAutoscaler']));
  }

  /** ValidateObjectMeta with ValidateHorizontalPodAutoscalerName (a DNS subdomain). The namespace may be
   * left out: our documents default it, where upstream takes it from the request path. */
  objectMeta(meta: Read<Obj>, path: FieldPath): void {
    if (meta === BAD) return;
    const m = meta ?? {};
    const name = this.str(m.name, path.child('name'));
    if (name === undefined || name === '') this.add(required(path.child('name'), 'name or generateName is required'));
    else if (name !== BAD) this.add(...isDNS1123Subdomain(name).map((msg) => invalid(path.child('name'), name, msg)));
    const ns = this.str(m.namespace, path.child('namespace'));
    if (typeof ns === 'string' && ns !== '') this.add(...isDNS1123Label(ns).map((msg) => invalid(path.child('namespace'), ns, msg)));
    const generation = m.generation;
    if (generation !== undefined) {
      if (typeof generation !== 'number' || !Number.isSafeInteger(generation)) this.add(typeInvalid(path.child('generation'), generation, 'must be an integer'));
      else if (generation < 0) this.add(invalid(path.child('generation'), generation, 'must be greater than or equal to 0'));
    }
    this.labels(m.labels, path.child('labels'), 'error');
    const annotations = this.stringMap(m.annotations, path.child('annotations'));
    if (annotations !== undefined && annotations !== BAD) {
      let size = 0;
      for (const [k, val] of Object.entries(annotations)) {
        // Annotation keys are qualified names, case-insensitively.
        this.add(...isQualifiedName(k.toLowerCase()).map((msg) => invalid(path.child('annotations'), k, msg)));
        size += k.length + val.length;
      }
      if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) this.add(tooLong(path.child('annotations'), TOTAL_ANNOTATION_SIZE_LIMIT_B));
    }
  }

  /** metav1 ValidateLabels: every problem is at the map's path, as upstream; `as` 'warning' for a metric selector's. */
  private labels(value: unknown, path: FieldPath, as: 'error' | 'warning'): void {
    const labels = this.stringMap(value, path);
    if (labels === undefined || labels === BAD) return;
    const report = as === 'error' ? (e: FieldError) => this.add(e) : (e: FieldError) => this.selectorWarning(e);
    for (const [k, val] of Object.entries(labels)) {
      for (const msg of isQualifiedName(k)) report(invalid(path, k, msg));
      for (const msg of isValidLabelValue(val)) report(invalid(path, val, msg));
    }
  }

  /** Upstream's API server does not validate metric selectors; its controller fails the metric at run time. */
  private selectorWarning(e: FieldError): void {
    const { field: _field, ...rest } = e;
    this.warnings.push({
      field: e.field,
      message: `${formatFieldError({ ...rest, field: '' })}: accepted, as upstream accepts it, but the sync cannot read this metric (ScalingActive False) until it is fixed`,
    });
  }

  spec(hpa: Obj, path: FieldPath): void {
    const spec = this.obj(hpa.spec, path);
    if (spec === BAD) return;
    const s = spec ?? {};
    this.knownFields(s, path, ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'behavior', 'selectionStrategy', 'syncPeriodSeconds', 'minReplicaSchedules', 'predictive']);

    // MinReplicasLowerBound: 0 with HPAScaleToZero, else 1.
    const lowerBound = this.gates.HPAScaleToZero ? 0 : 1;
    const minReplicas = this.int32(s.minReplicas, path.child('minReplicas'));
    if (typeof minReplicas === 'number' && minReplicas < lowerBound) {
      this.add(invalid(path.child('minReplicas'), minReplicas, `must be greater than or equal to ${lowerBound}`));
    }
    const maxRead = this.int32(s.maxReplicas, path.child('maxReplicas'));
    if (maxRead !== BAD) {
      const maxReplicas = maxRead ?? 0; // Go's zero value when absent
      if (maxReplicas < 1) this.add(invalid(path.child('maxReplicas'), maxReplicas, 'must be greater than 0'));
      if (typeof minReplicas === 'number' && maxReplicas < minReplicas) {
        this.add(invalid(path.child('maxReplicas'), maxReplicas, 'must be greater than or equal to `minReplicas`'));
      }
    }

    const refPath = path.child('scaleTargetRef');
    const ref = this.obj(s.scaleTargetRef, refPath);
    // Strategy (create): an empty API group is allowed only for ReplicationController, the one
    // scalable kind of the core v1 API.
    if (ref !== BAD) this.crossVersionObjectReference(ref ?? {}, refPath, (ref ?? {}).kind === 'ReplicationController');

    this.maxReplicas = typeof maxRead === 'number' ? maxRead : undefined;
    this.metrics(s.metrics, path.child('metrics'), minReplicas);
    this.str(s.selectionStrategy, path.child('selectionStrategy'));
    // KEP-6003 (HPAConfigurableSyncPeriod, proposed): greater than 0, at most 3600; our floor is the fastest tick, 5 s.
    const syncPath = path.child('syncPeriodSeconds');
    const sync = this.int32(s.syncPeriodSeconds, syncPath);
    if (typeof sync === 'number') {
      if (sync <= 0) this.add(invalid(syncPath, sync, 'must be greater than 0'));
      else if (sync > MAX_SYNC_PERIOD_SECONDS) this.add(invalid(syncPath, sync, `must be less than or equal to ${MAX_SYNC_PERIOD_SECONDS}`));
      else if (sync < MIN_SYNC_PERIOD_SECONDS) this.add(invalid(syncPath, sync, `must be at least ${MIN_SYNC_PERIOD_SECONDS}: serverless-hpa ticks at most every ${MIN_SYNC_PERIOD_SECONDS} s`));
    }

    // Ours: scheduled minimums (lib/hpa/schedules.ts).
    if (s.minReplicaSchedules !== undefined) this.add(...validateSchedules(s.minReplicaSchedules, path.child('minReplicaSchedules'), maxRead));
    // Ours: predictive minimums (lib/hpa/predictive.ts).
    if (s.predictive !== undefined) this.add(...validatePredictive(s.predictive, path.child('predictive')));

    const behaviorPath = path.child('behavior');
    const behavior = this.obj(s.behavior, behaviorPath);
    if (behavior !== undefined && behavior !== BAD) {
      this.knownFields(behavior, behaviorPath, ['scaleUp', 'scaleDown']);
      for (const dir of ['scaleUp', 'scaleDown']) {
        const rules = this.obj(behavior[dir], behaviorPath.child(dir));
        if (rules === undefined || rules === BAD) continue;
        // dropDisabledFields: without HPAConfigurableTolerance the API server drops tolerance before validating.
        if (!this.gates.HPAConfigurableTolerance) delete rules.tolerance;
        this.scalingRules(rules, behaviorPath.child(dir));
      }
    }
  }

  /** ValidateCrossVersionObjectReference with ValidateAPIVersion (AllowInvalidAPIVersion false). */
  private crossVersionObjectReference(ref: Obj, path: FieldPath, allowEmptyAPIGroup: boolean): void {
    this.knownFields(ref, path, ['kind', 'name', 'apiVersion']);
    for (const field of ['kind', 'name']) {
      const value = this.str(ref[field], path.child(field));
      if (value === undefined || value === '') this.add(required(path.child(field), ''));
      else if (value !== BAD) this.add(...isValidPathSegmentName(value).map((msg) => invalid(path.child(field), value, msg)));
    }
    const apiVersion = this.str(ref.apiVersion, path.child('apiVersion'));
    if (apiVersion === BAD) return;
    const gv = parseGroupVersion(apiVersion ?? '');
    if ('error' in gv) this.add(invalid(path.child('apiVersion'), apiVersion ?? '', gv.error));
    else if (!allowEmptyAPIGroup && gv.group === '') this.add(invalid(path.child('apiVersion'), apiVersion ?? '', 'apiVersion must specify API group'));
  }

  private metrics(value: unknown, path: FieldPath, minReplicas: Read<number>): void {
    let scalesToZero = false;
    const metrics = this.objects(value, path, 'a metric (type and its source)', (metric, p) => {
      this.metricSpec(metric, p);
      if (metric.type === 'Object' || metric.type === 'External') scalesToZero = true;
    });
    if (metrics === BAD) return;
    // An absent or empty list defaults to cpu utilization, which cannot scale to zero either.
    if (minReplicas === 0 && !scalesToZero) {
      this.add(forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'));
    }
  }

  private metricSpec(spec: Obj, path: FieldPath): void {
    this.knownFields(spec, path, ['type', ...SOURCE_FIELDS.map(([f]) => f)]);
    const typeRead = this.str(spec.type, path.child('type'));
    const type = typeRead === BAD ? undefined : (typeRead ?? '');
    if (type === '') this.add(required(path.child('type'), 'must specify a metric source type'));
    // Upstream reports an unknown type twice (set check, then the switch's default); we keep one.
    if (type !== undefined && !METRIC_SOURCE_TYPES.includes(type)) this.add(notSupported(path.child('type'), type, METRIC_SOURCE_TYPES));

    const present: string[] = [];
    for (const [field] of SOURCE_FIELDS) {
      const source = this.obj(spec[field], path.child(field));
      if (source === undefined) continue;
      present.push(field);
      // Only the first source present is validated.
      if (present.length === 1 && source !== BAD) this.metricSource(field, this.activation(field, source, path.child(field)), path.child(field));
    }
    const expected = SOURCE_FIELDS.find(([, t]) => t === type)?.[0];
    if (expected !== undefined && !present.includes(expected)) {
      this.add(required(path.child(expected), 'must populate information for the given metric source'));
    }
    if (present.length !== 1) {
      for (const field of present) if (field !== expected) this.add(forbidden(path.child(field), 'must populate the given metric source only'));
    }
  }

  private metricSource(field: string, src: Obj, path: FieldPath): void {
    const targetPath = path.child('target');
    this.metricFallback(src, path.child('fallback'));
    switch (field) {
      case 'object': {
        this.knownFields(src, path, ['describedObject', 'metric', 'target', 'fallback']);
        const described = this.obj(src.describedObject, path.child('describedObject'));
        // Object metrics may name a core kind with an empty group (ObjectMetricsValidationOptions).
        if (described !== BAD) this.crossVersionObjectReference(described ?? {}, path.child('describedObject'), true);
        this.metricIdentifier(src.metric, path.child('metric'));
        const t = this.metricTarget(src.target, targetPath);
        if (t && t.value === undefined && t.averageValue === undefined) {
          this.add(required(targetPath.child('averageValue'), `must set either a target value or averageValue${fix(t.type, 'Object')}`));
        }
        return;
      }
      case 'external': {
        this.knownFields(src, path, ['metric', 'target', 'fallback']);
        this.metricIdentifier(src.metric, path.child('metric'));
        const t = this.metricTarget(src.target, targetPath);
        if (t && t.value === undefined && t.averageValue === undefined) {
          this.add(required(targetPath.child('averageValue'), `must set either a target value for metric or a per-pod target${fix(t.type, 'External')}`));
        }
        if (t && t.value !== undefined && t.averageValue !== undefined) {
          this.add(forbidden(targetPath.child('value'), 'may not set both a target value for metric and a per-pod target'));
        }
        return;
      }
      case 'pods': {
        this.knownFields(src, path, ['metric', 'target', 'fallback']);
        this.metricIdentifier(src.metric, path.child('metric'));
        const t = this.metricTarget(src.target, targetPath);
        if (t && t.averageValue === undefined) this.add(required(targetPath.child('averageValue'), `must specify a positive target averageValue${fix(t.type, 'Pods')}`));
        return;
      }
      default: {
        // resource and containerResource
        const container = field === 'containerResource';
        this.knownFields(src, path, container ? ['name', 'container', 'target', 'fallback'] : ['name', 'target', 'fallback']);
        const name = this.str(src.name, path.child('name'));
        if (name === undefined || name === '') this.add(required(path.child('name'), 'must specify a resource name'));
        // Upstream checks the resource name only for ContainerResource metrics.
        else if (container && name !== BAD) this.add(...containerResourceNameErrors(name).map((msg) => invalid(path.child('name'), name, msg)));
        if (typeof name === 'string' && name !== '' && !POD_METRIC_RESOURCES.includes(name) && !(container && containerResourceNameErrors(name).length > 0)) {
          const like = POD_METRIC_RESOURCES.find((r) => name.toLowerCase().startsWith(r.slice(0, 3)));
          this.warn(
            path.child('name'),
            `${JSON.stringify(name)} is not a resource the metrics API (metrics.k8s.io) reports: write ${like ?? 'cpu or memory'}; as written, the sync reports <unknown> for this metric (FailedGetResourceMetric)`,
          );
        }
        if (container) {
          const c = this.str(src.container, path.child('container'));
          if (c === undefined || c === '') this.add(required(path.child('container'), 'must specify a container'));
          else if (c !== BAD) this.add(...isDNS1123Label(c).map((msg) => invalid(path.child('container'), c, msg)));
        }
        const t = this.metricTarget(src.target, targetPath);
        if (t && t.averageUtilization === undefined && t.averageValue === undefined) {
          this.add(required(targetPath.child('averageUtilization'), `must set either a target raw value or a target utilization${fix(t.type, 'Resource')}`));
        }
        if (t && t.averageUtilization !== undefined && t.averageValue !== undefined) {
          this.add(forbidden(targetPath.child('averageValue'), 'may not set both a target raw value and a target utilization'));
        }
      }
    }
  }

  /**
   * KEP-5679 ExternalMetricFallback (ours on the other types): replicas required and > 0,
   * failureDurationSeconds at least 180. Gate off: dropped before validating, as dropDisabledFields does.
   */
  private metricFallback(src: Obj, path: FieldPath): void {
    if (!this.gates.HPAExternalMetricFallback) {
      delete src.fallback;
      return;
    }
    const fallback = this.obj(src.fallback, path);
    if (fallback === undefined || fallback === BAD) return;
    this.knownFields(fallback, path, ['failureDurationSeconds', 'replicas']);
    const replicas = this.int32(fallback.replicas, path.child('replicas'));
    if (replicas === undefined) this.add(required(path.child('replicas'), 'must specify the replica count to use while the metric cannot be read'));
    else if (replicas !== BAD && replicas <= 0) this.add(invalid(path.child('replicas'), replicas, 'must be greater than 0'));
    // Ours: a fallback count above maxReplicas would be clamped to it, never used as written.
    else if (replicas !== BAD && this.maxReplicas !== undefined && this.maxReplicas >= 1 && replicas > this.maxReplicas) {
      this.add(invalid(path.child('replicas'), replicas, `must be less than or equal to spec.maxReplicas (${this.maxReplicas})`));
    }
    const duration = this.int32(fallback.failureDurationSeconds, path.child('failureDurationSeconds'));
    if (typeof duration === 'number' && duration < MIN_FAILURE_DURATION_SECONDS) {
      this.add(invalid(path.child('failureDurationSeconds'), duration, `must be at least ${MIN_FAILURE_DURATION_SECONDS}`));
    }
  }

  /** Ours: `activation` (lib/hpa/activation.ts) on an Object or External source; returns the source without it for the upstream checks. */
  private activation(field: string, src: Obj, path: FieldPath): Obj {
    if (!('activation' in src)) return src;
    const { activation, ...rest } = src;
    const p = path.child('activation');
    if (field !== 'object' && field !== 'external') {
      this.add(forbidden(p, 'an activation threshold applies to Object and External metrics only: the others cannot be read at zero replicas'));
      return rest;
    }
    const a = this.obj(activation, p);
    if (a === undefined || a === BAD) return rest;
    this.knownFields(a, p, ['value']);
    const value = this.quantity(a, 'value', p.child('value'));
    if (value === undefined) this.add(required(p.child('value'), 'must set the value the metric must exceed to scale up from zero, e.g. "5"'));
    else if (value !== BAD && sign(value) < 0) this.add(invalid(p.child('value'), a.value, 'must be zero or more'));
    return rest;
  }

  /** validateMetricTarget; returns the type and which values are set (BAD ones count as set), or undefined when the target is mistyped. */
  private metricTarget(value: unknown, path: FieldPath): TargetFields | undefined {
    const target = this.obj(value, path);
    if (target === BAD) return undefined;
    const t = target ?? {}; // a non-pointer struct upstream: absent means all zero
    this.knownFields(t, path, ['type', 'value', 'averageValue', 'averageUtilization']);
    const type = this.str(t.type, path.child('type'));
    if (type === undefined || type === '') this.add(required(path.child('type'), 'must specify a metric target type'));
    if (type !== BAD && !TARGET_TYPES.includes(type ?? '')) this.add(invalid(path.child('type'), type ?? '', 'must be either Utilization, Value, or AverageValue'));
    const set: TargetFields = { type: typeof type === 'string' ? type : undefined };
    for (const key of ['value', 'averageValue'] as const) {
      const q = this.quantity(t, key, path.child(key));
      if (q === undefined) continue;
      set[key] = true;
      if (q !== BAD && sign(q) !== 1) this.add(invalid(path.child(key), t[key], 'must be positive'));
    }
    const util = this.int32(t.averageUtilization, path.child('averageUtilization'));
    if (util !== undefined) set.averageUtilization = true;
    if (typeof util === 'number' && util < 1) this.add(invalid(path.child('averageUtilization'), util, 'must be greater than 0'));
    // The controller reads the values, never the type: a type that names another value misleads the reader.
    const only = (['value', 'averageValue', 'averageUtilization'] as const).filter((k) => set[k]);
    const named = set.type && TARGET_FIELD[set.type];
    if (only.length === 1 && named && only[0] !== named) {
      const used = Object.entries(TARGET_FIELD).find(([, f]) => f === only[0])![0];
      this.warn(path.child('type'), `${JSON.stringify(set.type)} does not match the ${only[0]} set here: the controller uses ${only[0]}; write type: ${used}`);
    }
    return set;
  }

  private metricIdentifier(value: unknown, path: FieldPath): void {
    const id = this.obj(value, path);
    if (id === BAD) return;
    const m = id ?? {};
    this.knownFields(m, path, ['name', 'selector']);
    const name = this.str(m.name, path.child('name'));
    if (name === undefined || name === '') this.add(required(path.child('name'), 'must specify a metric name'));
    else if (name !== BAD) this.add(...isValidPathSegmentName(name).map((msg) => invalid(path.child('name'), name, msg)));
    // Stricter than upstream, which accepts any selector here and fails at sync time instead.
    this.labelSelector(m.selector, path.child('selector'));
  }

  /** metav1validation.ValidateLabelSelector. */
  private labelSelector(value: unknown, path: FieldPath): void {
    const sel = this.obj(value, path);
    if (sel === undefined || sel === BAD) return;
    this.knownFields(sel, path, ['matchLabels', 'matchExpressions']);
    this.labels(sel.matchLabels, path.child('matchLabels'), 'warning');
    // Shapes and types fail decoding upstream (errors); the rules of ValidateLabelSelector are warnings.
    this.objects(sel.matchExpressions, path.child('matchExpressions'), 'a requirement (key, operator, values)', (r, p) => {
      this.knownFields(r, p, ['key', 'operator', 'values']);
      const values = this.list(r.values, p.child('values'));
      const count = Array.isArray(values) ? values.length : 0;
      const op = this.str(r.operator, p.child('operator'));
      if (op === 'In' || op === 'NotIn') {
        if (count === 0 && values !== BAD) this.selectorWarning(required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (count > 0) this.selectorWarning(forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else if (op !== BAD) {
        this.selectorWarning(invalid(p.child('operator'), op ?? '', 'not a valid selector operator: write In, NotIn, Exists or DoesNotExist'));
      }
      const key = this.str(r.key, p.child('key'));
      if (key !== BAD) for (const msg of isQualifiedName(key ?? '')) this.selectorWarning(invalid(p.child('key'), key ?? '', msg));
      (Array.isArray(values) ? values : []).forEach((val, j) => {
        const s = this.str(val, p.child('values').index(j));
        if (typeof s === 'string') for (const msg of isValidLabelValue(s)) this.selectorWarning(invalid(p.child('values').index(j), s, msg));
      });
    });
  }

  private scalingRules(rules: Obj, path: FieldPath): void {
    this.knownFields(rules, path, ['stabilizationWindowSeconds', 'selectPolicy', 'policies', 'tolerance']);
    const window = this.int32(rules.stabilizationWindowSeconds, path.child('stabilizationWindowSeconds'));
    if (typeof window === 'number' && window < 0) this.add(invalid(path.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
    if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS) {
      this.add(invalid(path.child('stabilizationWindowSeconds'), window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
    }
    const select = this.str(rules.selectPolicy, path.child('selectPolicy'));
    if (typeof select === 'string' && !SELECT_POLICIES.includes(select)) this.add(notSupported(path.child('selectPolicy'), select, SELECT_POLICIES));
    const policiesPath = path.child('policies');
    const policies = this.objects(rules.policies, policiesPath, 'a policy (type, value, periodSeconds)', (p, at) => this.scalingPolicy(p, at));
    // Absent policies are filled in by defaulting before validation; an explicit [] is not.
    if (Array.isArray(policies) && policies.length === 0) this.add(required(policiesPath, 'must specify at least one Policy'));
    const tolerance = this.quantity(rules, 'tolerance', path.child('tolerance'));
    // ValidateNonnegativeQuantity
    if (tolerance !== undefined && tolerance !== BAD && sign(tolerance) < 0) {
      this.add(invalid(path.child('tolerance'), rules.tolerance, 'must be greater than or equal to 0'));
    }
  }

  private scalingPolicy(p: Obj, path: FieldPath): void {
    this.knownFields(p, path, ['type', 'value', 'periodSeconds']);
    const type = this.str(p.type, path.child('type'));
    if (type !== BAD && !POLICY_TYPES.includes(type ?? '')) this.add(notSupported(path.child('type'), type ?? '', POLICY_TYPES));
    const val = this.int32(p.value, path.child('value'));
    if (val !== BAD && (val ?? 0) <= 0) this.add(invalid(path.child('value'), val ?? 0, 'must be greater than zero'));
    const period = this.int32(p.periodSeconds, path.child('periodSeconds'));
    if (period !== BAD && (period ?? 0) <= 0) this.add(invalid(path.child('periodSeconds'), period ?? 0, 'must be greater than zero'));
    if (typeof period === 'number' && period > MAX_PERIOD_SECONDS) {
      this.add(invalid(path.child('periodSeconds'), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  }
}

interface TargetFields {
  type?: string;
  value?: true;
  averageValue?: true;
  averageUtilization?: true;
}

/** The value field each target type names. */
const TARGET_FIELD: Record<string, 'value' | 'averageValue' | 'averageUtilization'> = { Value: 'value', AverageValue: 'averageValue', Utilization: 'averageUtilization' };

/** The resources metrics.k8s.io reports for pods and containers. */
const POD_METRIC_RESOURCES = ['cpu', 'memory'];

/** What a metric source takes: appended to upstream's message when the target's type is one it cannot use. */
const TARGETS_OF: Record<string, string> = {
  Resource: 'type: Utilization with averageUtilization, or type: AverageValue with averageValue',
  Object: 'type: Value with value, or type: AverageValue with averageValue',
  External: 'type: Value with value, or type: AverageValue with averageValue',
  Pods: 'type: AverageValue with averageValue',
};

function fix(type: string | undefined, source: string): string {
  const fits = { Resource: ['Utilization', 'AverageValue'], Object: ['Value', 'AverageValue'], External: ['Value', 'AverageValue'], Pods: ['AverageValue'] }[source] ?? [];
  if (type === undefined || !TARGET_TYPES.includes(type) || fits.includes(type)) return '';
  return ` (a ${source} metric does not take type ${type}: write ${TARGETS_OF[source]})`;
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy in which object fields set to null are absent, as Go decodes them (nil pointers). */
function cloneWithoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cloneWithoutNulls);
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) if (val !== null) out[k] = cloneWithoutNulls(val);
  return out;
}
