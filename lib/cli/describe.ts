// The text of `shpa describe`, as `kubectl describe hpa` lays it out, and the events of the decision log.
import { stringify } from 'yaml';
import { activationThreshold, type HorizontalPodAutoscaler, type HPAScalingRules, type ShadowSummary } from '#hpa';
import type { CloudWatchMetric, MetricObjectLists } from '#api';
import type { StoredSpec } from '../store/index.js';
import type { AutoscalerRecord, ClusterSnapshot, DecisionLogEntry } from '#sync/ports';
import { metricSourceText, namespaceMetricObjects } from '#sync';
import { fallbackText } from './fallback-text.js';
import { pauseAndScheduleRows } from './describe-schedules.js';
import { predictiveRows } from './describe-predictive.js';
import { age, describeMetric, table } from './format.js';

/** The From column: the component the sync names as the source of the Kubernetes Events it writes (lib/cluster). */
const EVENT_SOURCE = 'serverless-hpa';

/** kubectl's Age of an event: "5m", or "30s (x4 over 12m)" for one that repeated. */
export function eventAge(e: DecisionLogEntry, now: number): string {
  const last = age(now - Date.parse(e.lastTimestamp));
  return e.count > 1 ? `${last} (x${e.count} over ${age(now - Date.parse(e.firstTimestamp))})` : age(now - Date.parse(e.firstTimestamp));
}

/** The event's message, then what the log adds to it: replicas before → after and the rule that limited the change. */
export function eventMessage(e: DecisionLogEntry): string {
  const change = e.from !== undefined && e.to !== undefined ? `${e.from} → ${e.to}` : undefined;
  const extra = [change, e.limit && `limited by ${e.limit}`].filter(Boolean).join(', ');
  return extra ? `${e.message.trim()} (${extra})` : e.message.trim();
}

/** Oldest first, as kubectl sorts events (by last time seen). */
export function sortedEvents(log: readonly DecisionLogEntry[] | undefined): DecisionLogEntry[] {
  return [...(log ?? [])].sort((a, b) => Date.parse(a.lastTimestamp) - Date.parse(b.lastTimestamp));
}

export type DescribedAutoscaler = Pick<AutoscalerRecord, 'name' | 'namespace' | 'hpa' | 'history' | 'createdAt' | 'log'>;

/** The metric objects of a snapshot, by namespace: where `describe` says each metric is read. */
export type MetricObjects = MetricObjectLists;

/** The text of `shpa describe hpa NAME`; with the cluster's metric objects, each metric's source too. */
export function describe(rec: DescribedAutoscaler, cluster: string, now: Date, objects?: MetricObjects): string {
  const h = rec.hpa;
  const st = h.status;
  const kv: [string, string][] = [
    ['Name:', rec.name],
    ['Namespace:', rec.namespace],
    ['Cluster:', cluster],
    ['Labels:', pairs(h.metadata?.labels)],
    ['Annotations:', pairs(h.metadata?.annotations)],
    ['CreationTimestamp:', new Date(h.metadata?.creationTimestamp ?? rec.createdAt).toUTCString()],
    ['Reference:', `${h.spec?.scaleTargetRef?.kind}/${h.spec?.scaleTargetRef?.name}`],
    ['Metrics:', '( current / target )'],
  ];
  const known = objects && namespaceMetricObjects(objects, rec.namespace);
  // An alarm wakes only CloudWatchMetric readers.
  const alarmObjects = objects && { cloudWatch: new Map(objects.cloudWatchMetrics.filter((o) => (o.metadata.namespace ?? 'default') === rec.namespace).map((o) => [o.metadata.name, o])) };
  for (const [i, m] of (h.spec?.metrics ?? []).entries()) {
    const [label, value] = describeMetric(m, st?.currentMetrics ?? []);
    kv.push([`  ${label}:`, value]);
    const activation = activationThreshold(m);
    if (activation) kv.push(['    activation:', `above ${activation.value} to scale up from zero (no effect above zero)`]);
    // What the sync read is the truth: the metric objects of a Kubernetes-defined autoscaler live in the cluster, not the table.
    const source = st?.metricSources?.[i] ?? (known && metricSourceText(m, rec.namespace, known));
    if (source) kv.push(['    from:', source]);
    const fallback = fallbackText(h.spec.metrics ?? [], i, st?.currentMetrics, now);
    if (fallback) kv.push(['    fallback:', fallback]);
  }
  kv.push(
    ['Min replicas:', String(h.spec?.minReplicas ?? '<unset>')],
    ['Max replicas:', String(h.spec?.maxReplicas)],
    ...pauseAndScheduleRows(h, now),
    ...predictiveRows(h),
    ...wakeRows(h, alarmObjects),
    ['Behavior:', h.spec?.behavior ? behaviorText(h) : '<default>'],
    [`${h.spec?.scaleTargetRef?.kind} pods:`, st ? `${st.currentReplicas} current / ${st.desiredReplicas} desired` : '<unknown>'],
  );
  if (st?.shadow) kv.push(['Shadow:', shadowText(st.shadow, now)]);
  const w = Math.max(...kv.map(([k]) => k.length)) + 1;
  // A multi-line value (labels, annotations) continues in the value column.
  let s = kv.map(([k, v]) => `${k.padEnd(w)}${v.replaceAll('\n', `\n${' '.repeat(w)}`)}`).join('\n') + '\n';
  const conditions = st?.conditions ?? [];
  s += 'Conditions:\n';
  s += conditions.length === 0 ? '  <none>\n' : indent(table(['Type', 'Status', 'Reason', 'Message'], [['----', '------', '------', '-------'], ...conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message ?? ''])]));
  const recs = [...(rec.history?.recommendations ?? [])].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
  s += 'Recommendations (latest time each count was recommended):\n';
  s += recs.length === 0 ? '  <none>\n' : indent(table(['Replicas', 'Age'], recs.map((r) => [String(r.replicas), age(now.getTime() - Date.parse(r.timestamp))])));
  const events = sortedEvents(rec.log);
  // kubectl aligns an empty Events line with the fields above.
  if (events.length === 0) return `${s}${'Events:'.padEnd(w)}<none>\n`;
  const rows = events.map((e) => [e.type, e.reason, eventAge(e, now.getTime()), EVENT_SOURCE, eventMessage(e)]);
  return `${s}Events:\n${indent(table(['Type', 'Reason', 'Age', 'From', 'Message'], [['----', '------', '----', '----', '-------'], ...rows]))}`;
}

/** The text of `shpa describe` for an object with no dedicated view (kubectl's generic describe): metadata, then the spec. */
export function describeObject(obj: StoredSpec, cluster: string): string {
  const m = obj.metadata;
  const kv: [string, string][] = [
    ['Name:', m.name],
    ['Namespace:', m.namespace ?? 'default'],
    ['Cluster:', cluster],
    ['Labels:', pairs(m.labels)],
    ['Annotations:', pairs(m.annotations)],
    ['API Version:', obj.apiVersion],
    ['Kind:', obj.kind],
    ['CreationTimestamp:', m.creationTimestamp ? new Date(m.creationTimestamp).toUTCString() : '<unknown>'],
  ];
  const w = Math.max(...kv.map(([k]) => k.length)) + 1;
  const head = kv.map(([k, v]) => `${k.padEnd(w)}${v.replaceAll('\n', `\n${' '.repeat(w)}`)}`).join('\n');
  return `${head}\nSpec:\n${indent(stringify(obj.spec))}`;
}

/**
 * With minReplicas 0, how long a wake from zero takes once a metric crosses its activation threshold:
 * the wait for the next evaluation, for the metric's next datapoint, then the pods' start (docs/scale-to-zero.md).
 */
function wakeRows(h: HorizontalPodAutoscaler, known: { cloudWatch: Map<string, CloudWatchMetric> } | undefined): [string, string][] {
  if (h.spec?.minReplicas !== 0) return [];
  const sync = h.spec.syncPeriodSeconds ?? 15;
  const objects = (h.spec.metrics ?? []).flatMap((m) => (m.type === 'External' && m.external ? [known?.cloudWatch.get(m.external.metric.name)] : []));
  const periods = objects.flatMap((o) => (o ? o.spec.queries.map((q) => q.period ?? q.metricStat?.period ?? 60) : []));
  const alarm = objects.some((o) => o?.spec.alarmName);
  const period = periods.length > 0 ? Math.max(...periods) : undefined;
  const parts = [
    alarm ? `at once on its CloudWatch alarm (else up to ${sync} s to the next evaluation)` : `up to ${sync} s to the next evaluation`,
    period !== undefined ? `up to ${period} s for the metric's next datapoint (its period)` : "up to the metric's period for its next datapoint",
    "the source's publishing delay (AWS/SQS: 1–3 min)",
    "the pods' start and readiness",
  ];
  return [['Wake from zero:', `after a metric crosses its activation threshold: ${parts.join(' + ')} (docs/scale-to-zero.md, "How long a wake takes")`]];
}

/** The shadow period (lib/sync/shadow.ts): counts, the last comparison, and whether ours has taken over. */
function shadowText(s: ShadowSummary, now: Date): string {
  const ago = (t: string) => age(now.getTime() - Date.parse(t));
  const lines = [`${s.of}: ${s.decisions} decisions compared over ${ago(s.since)}, ${s.agreed} agreed, largest difference ${s.maxDifference}`];
  const l = s.last;
  if (l) {
    const live = l.liveDesiredReplicas !== undefined ? `the live HPA wanted ${l.liveDesiredReplicas} (had ${l.liveCurrentReplicas ?? '?'})` : (l.problem ?? 'nothing to compare');
    lines.push(`last, ${ago(l.time)} ago: would scale to ${l.desiredReplicas}; ${live}`);
  }
  if (s.until) lines.push(`ended ${ago(s.until)} ago: this autoscaler took over (shpa handback to return)`);
  return lines.join('\n');
}

/** One key=value per line, sorted by key, as kubectl prints labels and annotations. */
function pairs(m: Record<string, string> | undefined): string {
  const e = Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return e.length === 0 ? '<none>' : e.map(([k, v]) => `${k}=${v}`).join('\n');
}

function behaviorText(h: HorizontalPodAutoscaler): string {
  const b = h.spec.behavior!;
  const rule = (dir: string, r: HPAScalingRules | undefined) =>
    r ? `${dir}: window ${r.stabilizationWindowSeconds ?? 'default'}s, select ${r.selectPolicy ?? 'Max'}, ${(r.policies ?? []).map((p) => `${p.value} ${p.type} per ${p.periodSeconds}s`).join('; ') || 'no policies'}` : `${dir}: default`;
  return `${rule('scale up', b.scaleUp)}; ${rule('scale down', b.scaleDown)}`;
}

function indent(s: string): string {
  return s.replace(/^(?=.)/gm, '  ');
}
