// `shpa demo`: the real sync handler scaling local workloads through a trace of load on a
// virtual clock. Each tick sets the clock, invokes the handler once (one sync cycle),
// and reads what happened from the handler's own decision lines and from the cluster.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Decision, HpaEvent } from '../hpa/reconcile.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition } from '../hpa/types.js';
import type { WorkloadModel } from '../local/workload-model.js';
import { renderHtmlReport } from '../report/html.js';
import type { AutoscalerReport } from '../report/model.js';
import { ReportRecorder } from '../report/recorder.js';
import { renderReplicasChart, renderSummaryTable } from '../report/terminal.js';
import { decisionRows, errorRow, limitingReason, limitText, metricsText, metricValues } from '../sim/explain.js';
import type { LiveRow } from './live.js';
import { reportSetup } from '../sim/metric-info.js';
import { valueAt, type Trace } from '../sim/trace.js';
import { createDynamoStore, ensureTable } from '../store/index.js';
import type { ClusterRecord } from '../sync/ports.js';
import { LiveView } from './live-view.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localSyncHandler, type LogLine } from './local-handler.js';
import { startLocalStack, VirtualClock, type PodTimings } from './local-stack.js';
import { applyExamples, autoscalerKey, populate } from './scenario.js';

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
  const start = o.trace.times[0];
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
  let tracked: Tracked[] = [];
  try {
    write(`local DynamoDB (dynalite) ${stack.dynamoEndpoint}, Kubernetes API ${stack.k8s.url}, CloudWatch ${stack.cloudWatch.url}\n`);
    const store = createDynamoStore({ endpoint: stack.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, tableName: TABLE });
    await ensureTable(store.client, TABLE);
    const record: ClusterRecord = { name: DEMO_CLUSTER, region: LOCAL_REGION, endpoint: stack.k8s.url, caData: stack.k8s.caData };
    write(`cluster/${DEMO_CLUSTER} ${await store.putCluster(record, clock.now())}\n`);
    const applied = await applyExamples(store, DEMO_CLUSTER, o.examplesDir, clock.now());
    write(`${applied.lines.join('\n')}\n`);
    populate(stack.model, stack.cloudWatch, applied, loadAt);
    const cluster = await store.getCluster(DEMO_CLUSTER);
    if (!cluster) throw new Error(`cluster ${DEMO_CLUSTER} was not stored`);
    const handler = await localSyncHandler({
      cluster,
      token: stack.k8s.token,
      tableName: TABLE,
      dynamoEndpoint: stack.dynamoEndpoint,
      cloudWatchEndpoint: stack.cloudWatch.url,
      clock,
      syncPeriodSeconds: o.syncPeriodSeconds,
    });

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
      `\n${o.traceName}: ${(span / 3_600_000).toFixed(1)} h of load, a sync every ${o.syncPeriodSeconds} s (${plannedTicks} runs of the sync handler), at ${pace}\n\n`,
    );
    const view = new LiveView(o.out, tracked.map((t) => t.key), { tty: o.tty, columns: o.columns, totalTicks: plannedTicks });
    const multiDay = span > 24 * 3_600_000;
    const loopStart = performance.now();

    for (let i = 0; i < plannedTicks && !o.signal?.aborted; i++) {
      const t = start + i * periodMs;
      clock.t = t;
      const t0 = performance.now();
      const { result: invocation, lines } = await handler.invoke(`demo-${i + 1}`);
      result.handlerMs.push(performance.now() - t0);
      result.ticks++;
      logLines.push(...lines);
      const notes = invocation.errors.map((e) => `sync error (${e.stage}${e.cluster ? ` ${e.cluster}` : ''}): ${e.message}`);
      if (Number.isFinite(o.speed) && i + 1 === Math.min(plannedTicks, Math.max(10, Math.ceil(plannedTicks * PACE_SAMPLE)))) {
        result.behindPace = behindPace(result.handlerMs, (performance.now() - loopStart) / (i + 1), plannedTicks, span / o.speed);
        if (result.behindPace) notes.push(result.behindPace);
      }
      const decisions = new Map<string, DecisionLine>();
      for (const l of lines) {
        if (l.message !== 'decision') continue;
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
        const logRows = d?.decision
          ? decisionRows({ time: t, decision: d.decision, events: d.events ?? [], conditions: d.conditions, from: a.lastReplicas, to: replicas }, a.lastLimit)
          : [];
        logRows.push(...errors.map((e) => errorRow(t, replicas, `${d?.outcome ?? 'missing'}: ${e}`)));
        a.recorder.add({
          time: t,
          load,
          replicas,
          desired: d?.desiredReplicas ?? replicas,
          readyPods: readyPods(stack.model, namespace, ref.name),
          metrics: d?.decision ? metricValues(d.decision, a.hpa.spec.metrics?.length ?? 0) : [],
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
    await stack.stop();
  }
  result.wallMs = performance.now() - wallStart;
  result.reports = tracked.map((a) => a.recorder.report());

  write(`\n${result.interrupted ? `interrupted after ${result.ticks} of ${plannedTicks} syncs` : `${result.ticks} syncs`}\n\n`);
  for (const r of result.reports) write(`${renderReplicasChart(r, { color: o.color })}\n`);
  write(renderSummaryTable(result.reports));
  write(`\n${timingLine(result)}\n`);
  if (result.behindPace) write(`${result.behindPace}\n`);
  if (result.errors.length > 0) write(`${result.errors.length} errors, first: ${result.errors[0]}\n`);
  if (o.outDir) {
    const dir = resolve(o.outDir);
    result.reportPath = join(dir, 'report.html');
    result.logPath = join(dir, 'decisions.jsonl');
    writeFileSync(
      result.reportPath,
      renderHtmlReport({
        title: 'shpa demo',
        subtitle: `the sync handler on local parts: ${o.traceName}, a sync every ${o.syncPeriodSeconds} s (virtual time), ${result.ticks} syncs`,
        autoscalers: result.reports,
      }),
    );
    writeFileSync(result.logPath, logLines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    write(`\nreport: ${result.reportPath}\nhandler log (JSON lines, as in CloudWatch Logs): ${result.logPath}\n`);
  }
  return result;
}

function formatSpeed(speed: number): string {
  return speed >= 10 ? `${Math.round(speed)}× real time` : `${speed.toFixed(1)}× real time`;
}

function timingLine(r: DemoResult): string {
  const ms = [...r.handlerMs].sort((a, b) => a - b);
  const mean = ms.reduce((s, x) => s + x, 0) / Math.max(1, ms.length);
  const p95 = ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))] ?? 0;
  return `wall time ${(r.wallMs / 1000).toFixed(1)} s; sync handler ${mean.toFixed(1)} ms per run on average, p95 ${p95.toFixed(1)} ms`;
}

/** The line to say when, at `tickMs` of wall time per tick so far, the run takes over 10% longer than the `plannedMs` asked for; undefined otherwise. */
export function behindPace(handlerMs: number[], tickMs: number, plannedTicks: number, plannedMs: number): string | undefined {
  const expectedMs = tickMs * plannedTicks;
  if (expectedMs <= plannedMs * 1.1) return undefined;
  const mean = handlerMs.reduce((s, x) => s + x, 0) / Math.max(1, handlerMs.length);
  const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000).toFixed(0));
  return `running behind the requested pace: the sync handler takes ~${Math.round(mean)} ms per run; this run will take about ${seconds(expectedMs)} s instead of ${seconds(plannedMs)} s`;
}
