// `shpa demo`: the real functions scaling local workloads through a trace of load on a
// virtual clock. The dispatcher sends each minute's ticks to the local SQS queue, the worker
// runs one cycle per tick as its event source delivers them, and a spec change made during
// the run reaches the worker at once through the stream function. The demo reads what
// happened from the functions' own log lines and from the cluster.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Decision, HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, HpaEvent } from '#hpa';
import type { WorkloadModel } from '../local/kubernetes/workload-model.js';
import { renderHtmlReport } from '../report/html.js';
import type { AutoscalerReport } from '../report/model.js';
import { ReportRecorder } from '../report/recorder.js';
import { renderReplicasChart, renderSummaryTable } from '../report/terminal.js';
import { decisionRows, errorRow, limitingReason, limitText, metricActivationValues, metricsText, metricValues } from '../sim/explain.js';
import type { LiveRow } from './live.js';
import { reportSetup } from '../sim/metric-info.js';
import { valueAt, type Trace } from '../sim/trace.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startLocalFunctions, type LocalFunctions } from '../local/stack/functions.js';
import type { LogLine } from '../local/lambda/telemetry-capture.js';
import { isSyncPeriod } from '#sync/messaging';
import { LiveView } from './live-view.js';
import { startLocalStack, VirtualClock, type PodTimings } from './local-stack.js';
import { applyExamples, autoscalerKey, populate } from './scenario.js';
import { startDemoQueues, type DemoQueues } from './queue-backlog.js';

export const DEMO_CLUSTER = 'demo';
const TABLE = 'shpa';
/** The workloads exist this long before the first tick: their pods are Ready and have metrics. */
const WARM_UP_MS = 10 * 60_000;
/** Judge the pace after this share of the ticks (at least 10): the first ones are slower while the JIT warms up. */
const PACE_SAMPLE = 0.05;
export const DEMO_POD_TIMINGS: PodTimings = { startDelaySeconds: 5, readyDelaySeconds: 25 };

export interface DemoOptions {
  /** The relative load (1 = a normal daytime hour): its first series. */
  trace: Trace;
  /** How the subtitle names the trace. */
  traceName: string;
  /** Virtual seconds between syncs (one handler invocation each). */
  syncPeriodSeconds: number;
  /** Virtual seconds per wall second; Infinity runs as fast as the handler goes. */
  speed: number;
  examplesDir: string;
  /** An existing, writable folder (prepareOutDir) for report.html and decisions.jsonl; undefined: no files. */
  outDir?: string;
  out: NodeJS.WritableStream;
  /** Redraw the live lines in place (a terminal outside CI). */
  tty: boolean;
  color: boolean;
  columns?: number;
  /** Ctrl-C: stop after the current tick, then report what ran. */
  signal?: AbortSignal;
  podTimings?: PodTimings;
}

export interface DemoResult {
  reports: AutoscalerReport[];
  ticks: number;
  /** Ticks planned for the whole trace. */
  plannedTicks: number;
  interrupted: boolean;
  wallMs: number;
  /** Wall milliseconds of each handler invocation. */
  handlerMs: number[];
  /** Handler errors and failed decisions, as text. */
  errors: string[];
  /** The spec change made during the run, and when the worker acted on it (virtual and wall time). */
  specChange?: { at: number; applied: string; evaluatedAt?: number; wallMs: number };
  reportPath?: string;
  logPath?: string;
  /** Said once when the handler cannot keep the requested pace. */
  behindPace?: string;
}

/** The fields of the handler's "decision" line (functions/sync-log.ts) the demo reads. */
interface DecisionLine {
  namespace: string;
  hpa: string;
  outcome: string;
  patched?: boolean;
  currentReplicas?: number;
  desiredReplicas?: number;
  decision?: Decision;
  conditions?: HorizontalPodAutoscalerCondition[];
  events?: HpaEvent[];
  errors?: { stage: string; message: string }[];
}

interface Tracked {
  key: string;
  hpa: HorizontalPodAutoscaler;
  recorder: ReportRecorder;
  lastReason: string;
  lastLimit: string;
  lastReplicas: number;
}

function readyPods(model: WorkloadModel, namespace: string, name: string): number {
  return model.podObjects(namespace).filter((p) => {
    const meta = p.metadata as { labels?: Record<string, string>; deletionTimestamp?: string };
    const conditions = (p.status as { conditions?: { type: string; status: string }[] }).conditions ?? [];
    return meta.labels?.app === name && !meta.deletionTimestamp && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  }).length;
}

function timeLabel(ms: number, multiDay: boolean): string {
  const iso = new Date(ms).toISOString();
  return multiDay ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  if (!isSyncPeriod(o.syncPeriodSeconds)) throw new Error(`--sync-period ${o.syncPeriodSeconds}: must divide 60 (and be at least 5) or be a multiple of 60 up to 900`);
  // Ticks fall on the minute as the dispatcher sends them.
  const start = Math.ceil(o.trace.times[0] / 60_000) * 60_000;
  const span = o.trace.times[o.trace.times.length - 1] - start;
  const periodMs = o.syncPeriodSeconds * 1000;
  const plannedTicks = Math.floor(span / periodMs) + 1;
  const loadAt = (ms: number) => valueAt(o.trace, 0, ms);
  const clock = new VirtualClock(start - WARM_UP_MS);
  const write = (s: string) => o.out.write(s);
  const result: DemoResult = { reports: [], ticks: 0, plannedTicks, interrupted: false, wallMs: 0, handlerMs: [], errors: [] };
  const logLines: LogLine[] = [];
  const wallStart = performance.now();

  const stack = await startLocalStack(clock, o.podTimings ?? DEMO_POD_TIMINGS);
  let fns: LocalFunctions | undefined;
  let queues: DemoQueues | undefined;
  let tracked: Tracked[] = [];
  try {
    fns = await startLocalFunctions({
      clock,
      dynamoEndpoint: stack.dynamoEndpoint,
      // dynalite has no stream: the demo's own writes feed the stream function (demo only).
      stream: 'write-feed',
      cloudWatchEndpoint: stack.cloudWatch.url,
      clusterToken: stack.k8s.token,
      clusters: [{ name: DEMO_CLUSTER, region: LOCAL_REGION, shards: 1, endpoint: stack.k8s.url, caData: stack.k8s.caData }],
      tableName: TABLE,
      periodSeconds: o.syncPeriodSeconds,
      // Every cycle's decision is read back from its line: log them all.
      options: { decisionLogSeconds: 0 },
      workerConcurrency: 1,
    });
    write(`local DynamoDB (dynalite) ${stack.dynamoEndpoint}, Kubernetes API ${stack.k8s.url}, CloudWatch ${stack.cloudWatch.url}, SQS ${fns.sqs.endpoint}\n`);
    write(`cluster/${DEMO_CLUSTER} registered\n`);
    const applied = await applyExamples(fns.admin, DEMO_CLUSTER, o.examplesDir, clock.now());
    write(`${applied.lines.join('\n')}\n`);
    populate(stack.model, stack.cloudWatch, applied, loadAt);
    queues = await startDemoQueues({ endpoint: fns.sqs.endpoint, region: LOCAL_REGION, queueUrl: (n) => fns!.sqs.queueUrl(n) }, LOCAL_CREDENTIALS, applied.sqsQueueMetrics, loadAt);
    // The applies' evaluations (through the stream function), before the first tick.
    await fns.drain();
    const change = plannedSpecChange(applied.hpas, span, periodMs);

    tracked = applied.hpas.map((hpa) => ({
      key: autoscalerKey(hpa),
      hpa,
      recorder: new ReportRecorder(reportSetup(hpa, autoscalerKey(hpa), o.syncPeriodSeconds, { label: 'load (relative: 1 = a typical level)', unit: '' })),
      lastReason: '',
      lastLimit: '',
      lastReplicas: hpa.spec.minReplicas ?? 1,
    }));
    const pace = Number.isFinite(o.speed) ? `${formatSpeed(o.speed)} (${((span / o.speed) / 1000).toFixed(0)} s)` : 'as fast as it goes';
    write(
      `\n${o.traceName}: ${(span / 3_600_000).toFixed(1)} h of load, a tick every ${o.syncPeriodSeconds} s (${plannedTicks} worker cycles, one SQS message each), at ${pace}\n\n`,
    );
    const view = new LiveView(o.out, tracked.map((t) => t.key), { tty: o.tty, columns: o.columns, totalTicks: plannedTicks });
    const multiDay = span > 24 * 3_600_000;
    const loopStart = performance.now();

    for (let i = 0; i < plannedTicks && !o.signal?.aborted; i++) {
      const t = start + i * periodMs;
      clock.t = t;
      const seen = fns.lines.length;
      // The queues' backlog as the load has it now, before the tick reads them.
      await queues.follow(t);
      const t0 = performance.now();
      if (t % 60_000 === 0) await fns.dispatch(new Date(t));
      await fns.drain();
      result.handlerMs.push(performance.now() - t0);
      result.ticks++;
      const notes: string[] = [];
      // A spec change a few seconds after this tick: the stream function asks the worker at once.
      if (change && change.tick === i) notes.push(await applySpecChange(fns, change, clock, result));
      const lines = fns.lines.slice(seen);
      logLines.push(...lines);
      for (const l of lines) if (l.level === 'ERROR' && l.message !== 'decision') notes.push(`${String(l.function)} error: ${String(l.message)} ${JSON.stringify(l.workMessage ?? l.cycle ?? '')}`);
      if (Number.isFinite(o.speed) && i + 1 === Math.min(plannedTicks, Math.max(10, Math.ceil(plannedTicks * PACE_SAMPLE)))) {
        result.behindPace = behindPace(result.handlerMs, (performance.now() - loopStart) / (i + 1), plannedTicks, span / o.speed);
        if (result.behindPace) notes.push(result.behindPace);
      }
      const decisions = new Map<string, DecisionLine>();
      for (const l of lines) {
        if (l.message !== 'decision' || l.cycleStartedAt !== new Date(t).toISOString()) continue;
        const d = l as unknown as DecisionLine;
        decisions.set(`${d.namespace}/${d.hpa}`, d);
      }
      const load = loadAt(t);
      const rows: LiveRow[] = [];
      const changed: boolean[] = [];
      for (const a of tracked) {
        const d = decisions.get(a.key);
        const ref = a.hpa.spec.scaleTargetRef;
        const namespace = a.hpa.metadata.namespace ?? 'default';
        const replicas = stack.model.replicasOf(namespace, ref.kind, ref.name);
        const errors = d?.errors?.map((e) => `${e.stage}: ${e.message}`) ?? [];
        if (!d) errors.push('no decision line this cycle');
        if (errors.length > 0) {
          result.errors.push(...errors.map((e) => `${timeLabel(t, multiDay)} ${a.key}: ${e}`));
          notes.push(...errors.map((e) => `${timeLabel(t, multiDay)}  ${a.key}: ${d?.outcome ?? 'missing'}: ${e}`));
        }
        const reason = limitingReason(d?.conditions);
        const patched = d?.patched === true;
        const queueNote = patched && d?.decision ? sqsRescaleNote(d.decision, d.currentReplicas ?? a.lastReplicas, d.desiredReplicas ?? replicas) : undefined;
        if (queueNote) notes.push(`${timeLabel(t, multiDay)}  ${a.key}: ${queueNote}`);
        const logRows = d?.decision
          ? decisionRows({ time: t, decision: d.decision, events: d.events ?? [], conditions: d.conditions, from: rowFrom(d.decision.currentReplicas, a.lastReplicas), to: replicas }, a.lastLimit)
          : [];
        logRows.push(...errors.map((e) => errorRow(t, replicas, `${d?.outcome ?? 'missing'}: ${e}`)));
        a.recorder.add({
          time: t,
          load,
          replicas,
          desired: d?.desiredReplicas ?? replicas,
          readyPods: readyPods(stack.model, namespace, ref.name),
          metrics: d?.decision ? metricValues(d.decision, a.hpa.spec.metrics?.length ?? 0) : [],
          atZero: d?.decision ? metricActivationValues(d.decision, a.hpa.spec.metrics?.length ?? 0) : [],
          rescaled: patched,
          decisions: logRows,
        });
        rows.push({
          name: a.key,
          load,
          metrics: d?.decision ? metricsText(d.decision) : (d?.outcome ?? '?'),
          current: d?.currentReplicas ?? a.lastReplicas,
          desired: d?.desiredReplicas ?? replicas,
          reason,
        });
        changed.push(patched || reason !== a.lastReason);
        a.lastReason = reason;
        a.lastLimit = limitText(d?.conditions);
        a.lastReplicas = replicas;
      }
      view.tick(i + 1, timeLabel(t, multiDay), rows, changed, notes);
      if (Number.isFinite(o.speed)) {
        const due = loopStart + ((i + 1) * periodMs) / o.speed;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait, undefined, { signal: o.signal }).catch(() => undefined);
      }
    }
    result.interrupted = result.ticks < plannedTicks;
  } finally {
    queues?.close();
    await fns?.close();
    await stack.stop();
  }
  result.wallMs = performance.now() - wallStart;
  result.reports = tracked.map((a) => a.recorder.report());

  write(`\n${result.interrupted ? `interrupted after ${result.ticks} of ${plannedTicks} cycles` : `${result.ticks} cycles`}\n\n`);
  for (const r of result.reports) write(`${renderReplicasChart(r, { color: o.color })}\n`);
  write(renderSummaryTable(result.reports));
  write(`\n${timingLine(result)}\n`);
  if (result.behindPace) write(`${result.behindPace}\n`);
  if (result.specChange) write(`${specChangeLine(result.specChange, periodMs)}\n`);
  if (result.errors.length > 0) write(`${result.errors.length} errors, first: ${result.errors[0]}\n`);
  if (o.outDir) {
    const dir = resolve(o.outDir);
    result.reportPath = join(dir, 'report.html');
    result.logPath = join(dir, 'decisions.jsonl');
    writeFileSync(
      result.reportPath,
      renderHtmlReport({
        title: 'shpa demo',
        subtitle: `the functions on local parts: ${o.traceName}, a tick every ${o.syncPeriodSeconds} s (virtual time), ${result.ticks} cycles`,
        autoscalers: result.reports,
      }),
    );
    writeFileSync(result.logPath, logLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    write(`\nreport: ${result.reportPath}\nthe functions' log (JSON lines, as in CloudWatch Logs): ${result.logPath}\n`);
  }
  return result;
}

/** What a rescale out of or to zero on an SQS queue says: the source as the decision line names it, read live at this tick. */
function sqsRescaleNote(decision: Decision, from: number, to: number): string | undefined {
  const m = decision.metrics.find((x) => x.source?.startsWith('SQSQueueMetric'));
  if (!m || from === to || (from !== 0 && to !== 0)) return undefined;
  const read = m.activation?.value !== undefined ? `${m.activation.value} messages (activation ${m.activation.threshold})` : m.current?.averageValue !== undefined ? `${m.current.averageValue} a replica` : 'no value';
  return `${from} → ${to} on ${m.source}: ${read}, read with GetQueueAttributes at this tick`;
}

function formatSpeed(speed: number): string {
  return speed >= 10 ? `${Math.round(speed)}× real time` : `${speed.toFixed(1)}× real time`;
}

function timingLine(r: DemoResult): string {
  const ms = [...r.handlerMs].sort((a, b) => a - b);
  const mean = ms.reduce((s, x) => s + x, 0) / Math.max(1, ms.length);
  const p95 = ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))] ?? 0;
  return `wall time ${(r.wallMs / 1000).toFixed(1)} s; a tick (dispatch, queue, worker cycle) ${mean.toFixed(1)} ms on average, p95 ${p95.toFixed(1)} ms`;
}

/** The line to say when, at `tickMs` of wall time per tick so far, the run takes over 10% longer than the `plannedMs` asked for; undefined otherwise. */
export function behindPace(handlerMs: number[], tickMs: number, plannedTicks: number, plannedMs: number): string | undefined {
  const expectedMs = tickMs * plannedTicks;
  if (expectedMs <= plannedMs * 1.1) return undefined;
  const mean = handlerMs.reduce((s, x) => s + x, 0) / Math.max(1, handlerMs.length);
  const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000).toFixed(0));
  return `running behind the requested pace: a tick takes ~${Math.round(mean)} ms; this run will take about ${seconds(expectedMs)} s instead of ${seconds(plannedMs)} s`;
}

interface SpecChange {
  /** After this tick (its index). */
  tick: number;
  hpa: HorizontalPodAutoscaler;
  minReplicas: number;
}

/** Near the end of the trace, the first autoscaler's minReplicas raised by one: a change that acts at once (the min clamps). */
function plannedSpecChange(hpas: HorizontalPodAutoscaler[], span: number, periodMs: number): SpecChange | undefined {
  const hpa = hpas[0];
  const min = hpa?.spec.minReplicas ?? 1;
  if (!hpa || min + 1 > hpa.spec.maxReplicas || span < 10 * periodMs) return undefined;
  return { tick: Math.floor((0.9 * span) / periodMs), hpa, minReplicas: min + 1 };
}

/** Applies the change 5 s after the tick (as `shpa apply` would) and drains: the worker evaluates it then, not at the next tick. */
async function applySpecChange(fns: LocalFunctions, change: SpecChange, clock: VirtualClock, result: DemoResult): Promise<string> {
  clock.t += 5_000;
  const at = clock.t;
  const name = `${change.hpa.metadata.namespace ?? 'default'}/${change.hpa.metadata.name}`;
  const applied = `${name}: minReplicas ${change.hpa.spec.minReplicas ?? 1} → ${change.minReplicas}`;
  const seen = fns.lines.length;
  const wall = performance.now();
  await fns.admin.applySpec(DEMO_CLUSTER, { ...change.hpa, spec: { ...change.hpa.spec, minReplicas: change.minReplicas } }, clock.now());
  await fns.drain();
  const wallMs = performance.now() - wall;
  const evaluated = fns.lines.slice(seen).find((l) => l.message === 'decision' && l.trigger === 'evaluate' && `${String(l.namespace)}/${String(l.hpa)}` === name);
  result.specChange = { at, applied, evaluatedAt: evaluated ? Date.parse(String(evaluated.cycleStartedAt)) : undefined, wallMs };
  clock.t -= 5_000;
  return specChangeLine(result.specChange, Number.POSITIVE_INFINITY);
}

function specChangeLine(c: NonNullable<DemoResult['specChange']>, periodMs: number): string {
  const when = new Date(c.at).toISOString().slice(11, 19);
  if (c.evaluatedAt === undefined) return `spec change ${c.applied} at ${when}: not evaluated before the next tick`;
  const next = Number.isFinite(periodMs) ? `; the next tick was ${Math.round((periodMs - 5_000) / 1000)} s away` : '';
  return `spec change ${c.applied} applied at ${when}: evaluated ${Math.round((c.evaluatedAt - c.at) / 1000)} s later (virtual), ${Math.round(c.wallMs)} ms of wall time, through the stream function and the queue${next}`;
}

/**
 * A row's "from": the replicas the decision saw. The count at the previous tick can be stale (a
 * rescale between ticks, or the first tick, when the one before is the count as deployed).
 */
function rowFrom(seen: number | undefined, previous: number): number {
  return seen ?? previous;
}
