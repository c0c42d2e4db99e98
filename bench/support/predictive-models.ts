// Which forecast model predictive minimums use, chosen by measurement (issue 32, docs/predictive.md):
// `npm run bench -- predictive -- --models`. Each model gives a floor (the largest forecast over the
// scheduling buffer); a small replay of a reactive autoscaler (15 s loop, metrics 30 s behind,
// scale-up doubling or +4 pods a loop, 300 s downscale stabilization, pods ready 120 s after they are
// created) runs with and without it. It is not the product's path (the bench's default run is, through
// the simulator); it compares forecasts on equal terms. MSTL (seasonal-trend decomposition with ETS,
// from grafana's augurs, `@bsull/augurs`) is the well-kept library candidate; it is refitted every
// 6 hours on 14 days, as AWS predictive scaling refreshes its forecast.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { initSync, MSTL } from '@bsull/augurs/mstl';
import { assessForecast, DEFAULT_FORECAST_SETTINGS, type DemandHistory, forecastBucket, recordDemand } from '#hpa';
import { type LoadTrace as Trace, TRACE_START as START, TRACE_STEP_SECONDS as STEP } from './predictive-traces.js';

const BUCKET = 300;
const MINUTE_STEPS = 60 / STEP;
const MIN_REPLICAS = 2;
const MAX_REPLICAS = 200;
const POD_START_S = 120;
const METRIC_LAG_S = 30;
const STABILIZATION_S = 300;
const { schedulingBufferSeconds: BUFFER_S, minHistorySeconds: MIN_HISTORY_S, historySeconds: HISTORY_S } = DEFAULT_FORECAST_SETTINGS;

/** The folder of an installed package, from the file its export `entry` resolves to (`entryFile` under it). */
function packageDir(entry: string, entryFile: string): string {
  const resolved = createRequire(import.meta.url).resolve(entry);
  return resolved.slice(0, resolved.length - entryFile.length);
}

/** A model: the forecast of each bucket, from the demand history recorded before `now`. */
interface Model {
  name: string;
  forecast(h: DemandHistory, bucket: number, nowBucket: number): number | undefined;
}

function perDay(): number {
  return 86_400 / BUCKET;
}

const seasonalNaive = (days: number, name: string): Model => ({
  name,
  forecast: (h, b) => {
    const i = b - days * perDay() - h.firstBucket;
    return i >= 0 ? (h.values[i] ?? undefined) : undefined;
  },
});

const profileMean: Model = {
  name: 'mean of 7 days',
  forecast: (h, b) => {
    const xs: number[] = [];
    for (let k = 1; k <= 7; k++) {
      const v = h.values[b - k * perDay() - h.firstBucket];
      if (v !== null && v !== undefined) xs.push(v);
    }
    return xs.length >= 2 ? xs.reduce((a, x) => a + x, 0) / xs.length : undefined;
  },
};

/** Ours, with its pattern check refreshed every 6 hours as the product keeps it; `gated: false` shows the model alone. */
function ours(gated: boolean): Model {
  let assessedAt = -Infinity;
  let worthActing = true;
  return {
    name: gated ? 'ours (recurring floor, pattern check)' : 'ours without the pattern check',
    forecast(h, b, nowBucket) {
      if (gated && nowBucket - assessedAt >= (6 * 3600) / BUCKET) {
        assessedAt = nowBucket;
        worthActing = assessForecast(h, new Date(nowBucket * BUCKET * 1000)).worthActing;
      }
      return worthActing ? forecastBucket(h, b) : undefined;
    },
  };
}

function mstl(): Model {
  let fittedAt = -Infinity;
  let fitted: { from: number; point: number[] } | undefined;
  let fitMs = 0;
  let fits = 0;
  const model: Model & { cost(): string } = {
    name: 'MSTL+ETS (augurs)',
    forecast(h, b, nowBucket) {
      if (nowBucket - fittedAt >= (6 * 3600) / BUCKET) {
        fittedAt = nowBucket;
        const keep = HISTORY_S / BUCKET;
        const y: number[] = [];
        let last = 0;
        for (let i = Math.max(0, h.values.length - keep); i < h.values.length; i++) y.push((last = h.values[i] ?? last));
        fitted = undefined;
        if (y.length >= 2 * perDay()) {
          const t0 = performance.now();
          const m = MSTL.ets(y.length >= 2 * 7 * perDay() ? [perDay(), 7 * perDay()] : [perDay()]);
          m.fit(y);
          fitted = { from: h.firstBucket + h.values.length, point: m.predict(7 * 3600 / BUCKET).point };
          m.free();
          fitMs += performance.now() - t0;
          fits++;
        }
      }
      const v = fitted?.point[b - fitted.from];
      return v === undefined ? undefined : Math.max(0, v);
    },
    cost: () => `${fits} fits, ${(fitMs / Math.max(1, fits)).toFixed(0)} ms a fit`,
  };
  return model;
}

interface Outcome {
  underReplicaMinutes: number;
  replicaMinutes: number;
  absError: number;
  signedError: number;
  covered: number;
}

/** One replay of `trace` with `model`'s floor (none: reactive only). */
function replay(trace: Trace, model: Model | undefined): Outcome {
  const d = trace.demand;
  let history: DemandHistory | undefined;
  const pods: number[] = []; // ready time of each pod
  for (let i = 0; i < MIN_REPLICAS; i++) pods.push(0);
  const recs: number[] = [];
  const out: Outcome = { underReplicaMinutes: 0, replicaMinutes: 0, absError: 0, signedError: 0, covered: 0 };
  let floorBucket = -1;
  let floor = 0;
  const lagSteps = METRIC_LAG_S / STEP;
  for (let i = 0; i < d.length; i++) {
    const t = i * STEP;
    const now = new Date(START + t * 1000);
    const observed = Math.ceil(d[Math.max(0, i - lagSteps)]!);
    const rec = Math.min(MAX_REPLICAS, Math.max(MIN_REPLICAS, observed));
    history = recordDemand(history, now, rec, HISTORY_S, BUCKET);
    const bucket = Math.floor(t / BUCKET) + START / 1000 / BUCKET;
    if (model && bucket !== floorBucket) {
      floorBucket = bucket;
      floor = 0;
      if (t >= MIN_HISTORY_S) {
        const last = Math.floor((t + BUFFER_S) / BUCKET) + START / 1000 / BUCKET;
        for (let b = bucket; b <= last; b++) floor = Math.max(floor, Math.ceil(model.forecast(history, b, bucket) ?? 0));
        const f = model.forecast(history, bucket, bucket);
        if (f !== undefined) {
          const actual = Math.ceil(d[i]!);
          out.absError += Math.abs(f - actual);
          out.signedError += f - actual;
          out.covered++;
        }
      }
    }
    // Upstream's rules, simplified: stabilized recommendation, then the scale-up limit.
    recs.push(Math.max(rec, Math.min(MAX_REPLICAS, floor)));
    const windowSteps = STABILIZATION_S / STEP;
    const desiredRaw = recs[recs.length - 1]!;
    const stabilized = Math.max(desiredRaw, Math.min(pods.length, Math.max(...recs.slice(-windowSteps))));
    const current = pods.length;
    const desired = Math.min(stabilized, Math.max(2 * current, current + 4));
    while (pods.length < desired) pods.push(t + POD_START_S);
    while (pods.length > desired) pods.pop();
    if (recs.length > windowSteps) recs.shift();
    const ready = pods.filter((r) => r <= t).length;
    const need = Math.min(MAX_REPLICAS, Math.max(MIN_REPLICAS, Math.ceil(d[i]!)));
    out.underReplicaMinutes += Math.max(0, need - ready) / MINUTE_STEPS;
    out.replicaMinutes += pods.length / MINUTE_STEPS;
  }
  return out;
}

function pct(a: number, b: number): string {
  return `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)} %`;
}

/** Prints, per trace, each model's outcome against the reactive autoscaler alone. */
export function compareModels(traces: Trace[]): void {
  initSync({ module: readFileSync(join(packageDir('@bsull/augurs/mstl', 'mstl.js'), 'mstl_bg.wasm')) });
  // Models keep state (last fit, last check): a fresh set for each trace.
  const modelsFor = (): Model[] => [seasonalNaive(1, 'seasonal naive, 1 day'), seasonalNaive(7, 'seasonal naive, 7 days'), profileMean, mstl(), ours(false), ours(true)];
  const mstlCost: string[] = [];
  console.log(`forecast models: ${STEP} s loop, metrics ${METRIC_LAG_S} s behind, pods ready ${POD_START_S} s after creation, buffer ${BUFFER_S} s, acting after ${MIN_HISTORY_S / 3600} h`);
  for (const trace of traces) {
    const base = replay(trace, undefined);
    console.log(`\n${trace.name}: ${trace.note}`);
    console.log(`| model | under-provisioned replica-min | vs reactive | replica-min | vs reactive | forecast MAE | mean bias |`);
    console.log(`|---|---|---|---|---|---|---|`);
    console.log(`| reactive only | ${base.underReplicaMinutes.toFixed(0)} | | ${base.replicaMinutes.toFixed(0)} | | | |`);
    for (const m of modelsFor()) {
      const o = replay(trace, m);
      if ('cost' in m) mstlCost.push(`${trace.name}: ${(m as Model & { cost(): string }).cost()}`);
      console.log(
        `| ${m.name} | ${o.underReplicaMinutes.toFixed(0)} | ${pct(o.underReplicaMinutes, base.underReplicaMinutes)} | ${o.replicaMinutes.toFixed(0)} | ${pct(o.replicaMinutes, base.replicaMinutes)} | ${(o.absError / Math.max(1, o.covered)).toFixed(2)} | ${(o.signedError / Math.max(1, o.covered)).toFixed(2)} |`,
      );
    }
  }
  console.log(`\nMSTL fits (CPU on this machine): ${mstlCost.join('; ')}`);
}
