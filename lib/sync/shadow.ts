// Shadowing: an autoscaler in dry-run beside the live one it is to replace (an autoscaling/v2
// HPA, or the HPA a KEDA ScaledObject owns) compares each of its decisions with the live HPA's
// status.desiredReplicas, and keeps a summary of the shadow period in its status. Once it has
// taken over (out of dry-run), it checks that the live HPA is gone: two controllers writing
// /scale undo each other's changes. docs/migrate.md, "Shadow".
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus, ShadowSummary } from '#hpa';
import type { NewEvent } from './event-log.js';
import { ClusterApiError, type LiveHpaStatus } from './ports/cluster-access.js';

/** The annotation naming the live autoscaler: "HorizontalPodAutoscaler/web" or "ScaledObject/web". */
export const SHADOW_ANNOTATION = 'shpa.dev/shadow-of';

export interface ShadowTarget {
  kind: 'HorizontalPodAutoscaler' | 'ScaledObject';
  name: string;
  /** The HPA whose status is compared: the HPA itself, or KEDA's keda-hpa-<name>. */
  hpaName: string;
  /** "HorizontalPodAutoscaler/web" */
  of: string;
}

/** What one evaluation found: the live HPA's status, or why there is none to compare. */
export interface ShadowComparison {
  of: string;
  hpaName: string;
  desiredReplicas: number;
  live?: LiveHpaStatus;
  problem?: string;
}

/** The line's shadow record: ours against the live HPA. */
export interface ShadowReport {
  of: string;
  desiredReplicas: number;
  liveDesiredReplicas?: number;
  liveCurrentReplicas?: number;
  agrees?: boolean;
  problem?: string;
}

/** TYPE as kubectl reads it (singular, plural, short name, with or without its group); the same rule as infra/admission/annotations.yaml. */
const HPA_TYPE = /^(hpa|horizontalpodautoscalers?)(\.autoscaling)?$/i;
const SCALED_OBJECT_TYPE = /^(so|scaledobjects?)(\.keda\.sh)?$/i;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The annotation read as kubectl reads TYPE/NAME; an error naming the annotation when it does not parse. */
export function parseShadowTarget(value: string): ShadowTarget | { error: string } {
  const m = /^([A-Za-z.]+)\/(.+)$/.exec(value);
  const kind = !m ? undefined : HPA_TYPE.test(m[1]) ? 'HorizontalPodAutoscaler' : SCALED_OBJECT_TYPE.test(m[1]) ? 'ScaledObject' : undefined;
  if (!m || !kind) return { error: `annotation ${SHADOW_ANNOTATION}: "${value}" is not HorizontalPodAutoscaler/NAME or ScaledObject/NAME` };
  const name = m[2];
  if (!DNS_SUBDOMAIN.test(name)) return { error: `annotation ${SHADOW_ANNOTATION}: "${name}" is not a valid object name` };
  // KEDA names the HPA it owns keda-hpa-<ScaledObject name> (unless advanced.horizontalPodAutoscalerConfig.name says otherwise).
  return { kind, name, hpaName: kind === 'ScaledObject' ? `keda-hpa-${name}` : name, of: `${kind}/${name}` };
}

/** The shadow target of an autoscaler, undefined when it has no annotation. */
export function shadowTargetOf(hpa: HorizontalPodAutoscaler): ShadowTarget | { error: string } | undefined {
  const value = hpa.metadata.annotations?.[SHADOW_ANNOTATION];
  return value === undefined ? undefined : parseShadowTarget(value);
}

/** Reads the live HPA; a failure is a value (the decision goes on), in words that echo nothing the server wrote. */
export async function readLive(
  target: ShadowTarget,
  read: ((name: string) => Promise<LiveHpaStatus | undefined>) | undefined,
): Promise<{ live?: LiveHpaStatus; problem?: string }> {
  if (!read) return { problem: 'this cluster adapter cannot read HorizontalPodAutoscalers' };
  try {
    const live = await read(target.hpaName);
    return live ? { live } : { problem: `HorizontalPodAutoscaler ${target.hpaName} not found` };
  } catch (e) {
    const code = e instanceof ClusterApiError && e.statusCode ? ` (HTTP ${e.statusCode})` : '';
    return { problem: `could not read HorizontalPodAutoscaler ${target.hpaName}${code}` };
  }
}

/** The summary after one more decision; a new period when there was none, it named another target, or ours had taken over. */
export function nextSummary(previous: ShadowSummary | undefined, c: ShadowComparison, now: Date): ShadowSummary {
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const fresh = !previous || previous.of !== c.of || previous.until !== undefined;
  const base: ShadowSummary = fresh ? { of: c.of, since: time, decisions: 0, agreed: 0, maxDifference: 0 } : { ...previous };
  const last: NonNullable<ShadowSummary['last']> = { time, desiredReplicas: c.desiredReplicas };
  if (c.live) {
    const difference = Math.abs(c.desiredReplicas - c.live.desiredReplicas);
    base.decisions += 1;
    if (difference === 0) base.agreed += 1;
    base.maxDifference = Math.max(base.maxDifference, difference);
    last.liveDesiredReplicas = c.live.desiredReplicas;
    last.liveCurrentReplicas = c.live.currentReplicas;
  } else if (c.problem) {
    last.problem = c.problem;
  }
  return { ...base, last };
}

/** The event of one comparison: repeated words aggregate while ours and the live HPA keep saying the same. */
export function shadowEvent(c: ShadowComparison): NewEvent {
  if (!c.live) return { type: 'Warning', reason: 'ShadowNotCompared', message: `would scale to ${c.desiredReplicas}; ${c.problem ?? 'no live status'}: nothing to compare with ${c.of}` };
  const d = c.desiredReplicas - c.live.desiredReplicas;
  const verdict = d === 0 ? 'agrees' : `differs by ${d > 0 ? '+' : ''}${d}`;
  return {
    type: 'Normal',
    reason: d === 0 ? 'ShadowAgrees' : 'ShadowDiffers',
    message: `would scale to ${c.desiredReplicas}; ${c.of} (HPA ${c.hpaName}) wants ${c.live.desiredReplicas}, has ${c.live.currentReplicas}: ${verdict}`,
  };
}

export function shadowReport(c: ShadowComparison): ShadowReport {
  return {
    of: c.of,
    desiredReplicas: c.desiredReplicas,
    ...(c.live ? { liveDesiredReplicas: c.live.desiredReplicas, liveCurrentReplicas: c.live.currentReplicas, agrees: c.live.desiredReplicas === c.desiredReplicas } : {}),
    ...(c.problem ? { problem: c.problem } : {}),
  };
}

/**
 * The status with the shadow summary carried over from the last one: ours keeps the record of its
 * shadow period after taking over, marked with when the period ended.
 */
export function carryShadow(status: HorizontalPodAutoscalerStatus, previous: ShadowSummary | undefined, dryRun: boolean, now: Date): HorizontalPodAutoscalerStatus {
  if (status.shadow || !previous) return status;
  const ended = !dryRun && previous.until === undefined ? { ...previous, until: now.toISOString().replace(/\.\d{3}Z$/, 'Z') } : previous;
  return { ...status, shadow: ended };
}

/** Taken over while the live HPA still exists: both controllers write /scale. */
export function twoWritersWarning(target: ShadowTarget): NewEvent {
  return {
    type: 'Warning',
    reason: 'LiveAutoscalerActive',
    message: `${target.of} still has HorizontalPodAutoscaler ${target.hpaName} while this autoscaler writes /scale: both controllers act on the target; run "shpa handback" or remove it ("shpa handover" does both in order)`,
  };
}

/** What one evaluation of a shadowing autoscaler adds: its summary, event, line record and warning. */
export interface ShadowOutcome {
  summary?: ShadowSummary;
  event?: NewEvent;
  report?: ShadowReport;
  warning?: string;
}

/**
 * Dry-run: compares our decision with the live HPA. Taken over: checks the live HPA is gone.
 * An annotation that does not parse is a warning, never a failed decision.
 */
export async function observeShadow(args: {
  hpa: HorizontalPodAutoscaler;
  previous: ShadowSummary | undefined;
  dryRun: boolean;
  desiredReplicas: number;
  now: Date;
  read: ((name: string) => Promise<LiveHpaStatus | undefined>) | undefined;
}): Promise<ShadowOutcome> {
  const target = shadowTargetOf(args.hpa);
  if (!target) return {};
  if ('error' in target) return { warning: target.error };
  const { live, problem } = await readLive(target, args.read);
  if (!args.dryRun) {
    if (!live) return {};
    const event = twoWritersWarning(target);
    return { event, warning: event.message };
  }
  const c: ShadowComparison = { of: target.of, hpaName: target.hpaName, desiredReplicas: args.desiredReplicas, ...(live ? { live } : {}), ...(problem ? { problem } : {}) };
  return { summary: nextSummary(args.previous, c, args.now), event: shadowEvent(c), report: shadowReport(c) };
}
