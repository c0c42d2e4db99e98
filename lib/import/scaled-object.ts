// A KEDA ScaledObject (keda.sh/v1alpha1) as an autoscaling/v2 HPA and its metric objects, read
// as a pipeline of named stages: target and replicas, annotations, advanced, triggers, scale to
// zero, cooldownPeriod, pollingInterval, cron windows, fallback. Each stage says what it did.
import {
  type HorizontalPodAutoscaler,
  type HPAScalingRules,
  type MetricSpec,
  MIN_REPLICA_SCHEDULES_ANNOTATION,
  type MinReplicaSchedule,
  PAUSE_ANNOTATION,
  PAUSE_SCALE_DOWN_ANNOTATION,
  PAUSE_SCALE_UP_ANNOTATION,
} from '#hpa';
import { MAX_SYNC_PERIOD_SECONDS, MIN_SYNC_PERIOD_SECONDS } from '#hpa/api';
import { withKedaFallback } from './keda-fallback.js';
import { convertTrigger } from './keda-triggers.js';
import { isObj, str, type ImportContext, type ImportMetadata, type ImportResult, type Obj } from './result.js';

type Behavior = NonNullable<HorizontalPodAutoscaler['spec']['behavior']>;

/** KEDA's defaults: cooldownPeriod 300 s, maxReplicaCount 100. */
const KEDA_COOLDOWN_SECONDS = 300;
const KEDA_MAX_REPLICAS = 100;
/** upstream's ValidateHPAScalingRules: a stabilization window of at most one hour. */
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** KEDA's keys whose effect ours has no equivalent for, with what happens instead. */
const UNMAPPED_KEYS: Record<string, string> = {
  idleReplicaCount: 'ours has no idle replica count: with minReplicas 0 and an External metric it goes to zero when every metric asks for none',
  initialCooldownPeriod: 'ours has no initial cooldown: a new autoscaler acts from its first evaluation',
};

export function fromScaledObject(doc: Obj, metadata: ImportMetadata, context: ImportContext = {}): ImportResult {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const out: ImportResult = { source: `ScaledObject ${metadata.namespace}/${metadata.name}`, objects: [], mapped: [], unmapped: [], noEffect: [], live: `ScaledObject/${metadata.name}` };
  for (const [k, why] of Object.entries(UNMAPPED_KEYS)) if (spec[k] !== undefined) out.unmapped.push(`${k}: ${why}`);
  const annotations = pauseAnnotations(isObj(doc.metadata) && isObj(doc.metadata.annotations) ? doc.metadata.annotations : {}, out);
  const configured = advancedBehavior(spec, out);
  const triggers = convertTriggers(spec, metadata, out, context);
  const minReplicas = scaleToZero(spec, triggers.metrics, out);
  const maxReplicas = typeof spec.maxReplicaCount === 'number' ? spec.maxReplicaCount : KEDA_MAX_REPLICAS;
  if (minReplicas > 0 && triggers.metrics.some((m) => m.external?.activation !== undefined)) {
    out.noEffect.push(`activation thresholds: they act only at zero replicas (in KEDA too), and minReplicas is ${minReplicas}`);
  }
  const behavior = cooldownBehavior(spec, configured, minReplicas, out);
  const syncPeriodSeconds = pollingSyncPeriod(spec, out);
  const schedules = effectiveSchedules(triggers.schedules, minReplicas, maxReplicas, out);
  if (triggers.metrics.length === 0) {
    out.unmapped.push('no metric mapped: the HorizontalPodAutoscaler would have none (upstream then reads cpu at 80%); it is left out');
    return out;
  }
  const fallback = withKedaFallback(spec, triggers.metrics);
  out.mapped.push(...fallback.mapped);
  out.unmapped.push(...fallback.unmapped);
  if (schedules.length > 0) annotations[MIN_REPLICA_SCHEDULES_ANNOTATION] = JSON.stringify(schedules);
  const ref = isObj(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  if (ref.envSourceContainerName !== undefined) out.unmapped.push('scaleTargetRef.envSourceContainerName: ours reads no environment of the target');
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: Object.keys(annotations).length > 0 ? { ...metadata, annotations } : metadata,
    spec: {
      scaleTargetRef: { apiVersion: str(ref.apiVersion) ?? 'apps/v1', kind: str(ref.kind) ?? 'Deployment', name: str(ref.name) ?? '' },
      minReplicas,
      maxReplicas,
      metrics: fallback.metrics,
      ...(behavior ? { behavior } : {}),
      ...(syncPeriodSeconds !== undefined ? { syncPeriodSeconds } : {}),
    },
  };
  out.objects.push(hpa);
  return out;
}

/** KEDA's pause annotations as ours: paused-scale-in → scale down, paused-scale-out → scale up, paused → both (still recommending). */
function pauseAnnotations(annotations: Obj, out: ImportResult): Record<string, string> {
  const ours: Record<string, string> = {};
  const pairs: [keda: string, shpa: string][] = [
    ['autoscaling.keda.sh/paused', PAUSE_ANNOTATION],
    ['autoscaling.keda.sh/paused-scale-in', PAUSE_SCALE_DOWN_ANNOTATION],
    ['autoscaling.keda.sh/paused-scale-out', PAUSE_SCALE_UP_ANNOTATION],
  ];
  for (const [keda, shpa] of pairs) {
    const value = str(annotations[keda]);
    if (value === undefined) continue;
    ours[shpa] = value;
    out.mapped.push(`annotation ${keda} → ${shpa} (ours keeps evaluating and says what it would do)`);
  }
  if (annotations['autoscaling.keda.sh/paused-replicas'] !== undefined) {
    out.unmapped.push('annotation autoscaling.keda.sh/paused-replicas: ours pauses at the current count (shpa.dev/pause), never at a given one');
  }
  return ours;
}

function advancedBehavior(spec: Obj, out: ImportResult): Behavior | undefined {
  const advanced = isObj(spec.advanced) ? spec.advanced : {};
  const hpaConfig = isObj(advanced.horizontalPodAutoscalerConfig) ? advanced.horizontalPodAutoscalerConfig : {};
  if (advanced.scalingModifiers !== undefined) out.unmapped.push('advanced.scalingModifiers: ours has no formula over metrics (the largest proposal wins, as upstream)');
  if (advanced.restoreToOriginalReplicaCount !== undefined) out.unmapped.push('advanced.restoreToOriginalReplicaCount: ours leaves the replicas as they are when the autoscaler is deleted');
  if (hpaConfig.name !== undefined) out.unmapped.push('advanced.horizontalPodAutoscalerConfig.name: ours keeps the ScaledObject\'s name');
  if (!isObj(hpaConfig.behavior)) return undefined;
  out.mapped.push('advanced.horizontalPodAutoscalerConfig.behavior → spec.behavior');
  return hpaConfig.behavior as Behavior;
}

function convertTriggers(spec: Obj, metadata: ImportMetadata, out: ImportResult, context: ImportContext): { metrics: MetricSpec[]; schedules: MinReplicaSchedule[] } {
  const metrics: MetricSpec[] = [];
  const schedules: MinReplicaSchedule[] = [];
  const triggers = Array.isArray(spec.triggers) ? spec.triggers : [];
  triggers.forEach((t: unknown, i: number) => {
    const r = convertTrigger(t, i, metadata, context);
    if (r.object) out.objects.push(r.object);
    if (r.metric) metrics.push(r.metric);
    if (r.schedule) schedules.push(r.schedule);
    out.mapped.push(...r.mapped);
    out.unmapped.push(...r.unmapped);
  });
  return { metrics, schedules };
}

/** minReplicaCount (KEDA's default 0): ours scales to zero with an External metric (HPAScaleToZero), else keeps 1. */
function scaleToZero(spec: Obj, metrics: MetricSpec[], out: ImportResult): number {
  const min = typeof spec.minReplicaCount === 'number' ? spec.minReplicaCount : 0;
  if (min >= 1) return min;
  const said = spec.minReplicaCount === undefined ? "minReplicaCount unset (KEDA's default 0)" : `minReplicaCount ${min}`;
  if (metrics.some((m) => m.type === 'External')) {
    out.mapped.push(`${said} → minReplicas 0: scaled to zero on its External metrics (docs/scale-to-zero.md)`);
    return 0;
  }
  if (metrics.length > 0) out.unmapped.push(`${said}, scale to zero: ours scales to zero only with an External or Object metric; minReplicas 1`);
  return 1;
}

/**
 * cooldownPeriod (KEDA: how long after the last active trigger before going to zero) as the
 * scale-down stabilization window: ours goes to zero once no proposal in the window asked for a
 * replica. One window serves every scale-down, so a window set in the behavior wins.
 */
function cooldownBehavior(spec: Obj, configured: Behavior | undefined, minReplicas: number, out: ImportResult): Behavior | undefined {
  const cooldown = typeof spec.cooldownPeriod === 'number' ? spec.cooldownPeriod : undefined;
  if (minReplicas > 0) {
    if (cooldown !== undefined) out.noEffect.push(`cooldownPeriod ${cooldown}: KEDA waits it only before going to zero, and minReplicas is ${minReplicas}`);
    return configured;
  }
  const window = configured?.scaleDown?.stabilizationWindowSeconds;
  const wanted = cooldown ?? KEDA_COOLDOWN_SECONDS;
  if (window !== undefined) {
    if (window !== wanted) {
      out.unmapped.push(
        `cooldownPeriod ${wanted}${cooldown === undefined ? " (KEDA's default)" : ''}: ours has one stabilization window for every scale-down, zero included; behavior.scaleDown.stabilizationWindowSeconds ${window} is kept, so going to zero waits ${window} s after the last metric above zero`,
      );
    }
    return configured;
  }
  // Upstream's default window is KEDA's default cooldown (300 s): nothing to write.
  if (cooldown === undefined || cooldown === KEDA_COOLDOWN_SECONDS) {
    if (cooldown !== undefined) out.mapped.push(`cooldownPeriod ${cooldown} → the default scale-down stabilization window (300 s): going to zero waits 300 s after the last metric above zero`);
    return configured;
  }
  const seconds = Math.min(Math.max(0, Math.trunc(cooldown)), MAX_STABILIZATION_WINDOW_SECONDS);
  const clamped = seconds !== cooldown ? ` (clamped: a window is 0 to ${MAX_STABILIZATION_WINDOW_SECONDS} s)` : '';
  out.mapped.push(
    `cooldownPeriod ${cooldown} → behavior.scaleDown.stabilizationWindowSeconds ${seconds}${clamped}: going to zero waits ${seconds} s after the last metric above zero; the window also holds every other scale-down (KEDA's HPA: 300 s between 1 and N)`,
  );
  const scaleDown: HPAScalingRules = { ...configured?.scaleDown, stabilizationWindowSeconds: seconds };
  return { ...configured, scaleDown };
}

/** pollingInterval as spec.syncPeriodSeconds, within its bounds (lib/hpa/api/validation.ts). */
function pollingSyncPeriod(spec: Obj, out: ImportResult): number | undefined {
  const polling = spec.pollingInterval;
  if (polling === undefined) return undefined;
  if (typeof polling !== 'number' || !Number.isFinite(polling)) {
    out.unmapped.push(`pollingInterval ${JSON.stringify(polling)}: not a number of seconds`);
    return undefined;
  }
  const seconds = Math.min(Math.max(Math.round(polling), MIN_SYNC_PERIOD_SECONDS), MAX_SYNC_PERIOD_SECONDS);
  const clamped =
    seconds !== polling ? ` (clamped: ours evaluates ${seconds < polling ? `at least every ${MAX_SYNC_PERIOD_SECONDS} s` : `at most every ${MIN_SYNC_PERIOD_SECONDS} s`})` : '';
  out.mapped.push(`pollingInterval ${polling} → spec.syncPeriodSeconds ${seconds}${clamped}: ours evaluates every ${seconds} s, also between 1 and N replicas (KEDA's HPA: every 15 s there)`);
  return seconds;
}

/** Cron windows that raise the minimum; one not above minReplicas would change nothing and is left out, said. */
function effectiveSchedules(schedules: MinReplicaSchedule[], minReplicas: number, maxReplicas: number, out: ImportResult): MinReplicaSchedule[] {
  const kept: MinReplicaSchedule[] = [];
  for (const s of schedules) {
    if (s.minReplicas > maxReplicas) {
      out.mapped.push(`scheduled minimum ${s.name}: desiredReplicas ${s.minReplicas} capped at maxReplicas ${maxReplicas}, as KEDA caps it`);
      kept.push({ ...s, minReplicas: maxReplicas });
    } else if (Number.isInteger(s.minReplicas) && s.minReplicas <= minReplicas) {
      out.noEffect.push(`scheduled minimum ${s.name}: desiredReplicas ${s.minReplicas} is not above minReplicas ${minReplicas}, so the window would change nothing; left out`);
    } else kept.push(s);
  }
  return kept;
}
