// The load traces of issue 32's measurement (`npm run bench -- predictive`), in replicas asked for,
// one value per 15 s step from Monday Jan 1, 2001 (UTC): synthetic daily + weekly load with noise, a
// holiday and a one-off spike; a random walk with nothing to learn; and a real public trace, US domestic
// flight departures of January 2001 (`flights-3m.parquet`, shipped by the `vega-datasets` npm package).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export const TRACE_STEP_SECONDS = 15;
export const TRACE_START = Date.UTC(2001, 0, 1); // a Monday

/** Demand in replicas, one value per 15 s step from TRACE_START. */
export interface LoadTrace {
  name: string;
  note: string;
  demand: Float64Array;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function synthetic(days: number, name: string, note: string, f: (day: number, hour: number, r: () => number) => number): LoadTrace {
  const r = rng(42);
  const demand = new Float64Array((days * 86_400) / TRACE_STEP_SECONDS);
  for (let i = 0; i < demand.length; i++) {
    const t = i * TRACE_STEP_SECONDS;
    demand[i] = Math.max(0, f(Math.floor(t / 86_400), (t % 86_400) / 3600, r));
  }
  return { name, demand, note };
}

/** Office hours with a morning ramp, a batch at 02:00, quiet weekends, a holiday (day 17) and a one-off spike (day 19). */
export function seasonalTrace(days: number): LoadTrace {
  return synthetic(days, 'daily+weekly', 'office hours, 02:00 batch, weekends at 35 %, a holiday on day 17, a one-off spike on day 19', (day, hour, r) => {
    const weekend = day % 7 >= 5 || day === 17;
    const office = hour < 7 ? 0 : hour < 9 ? (hour - 7) / 2 : hour < 17 ? 1 : hour < 20 ? (20 - hour) / 3 : 0;
    let load = 4 + 36 * office * (weekend ? 0.35 : 1);
    if (hour >= 2 && hour < 2.5) load += 20;
    if (day === 19 && hour >= 14 && hour < 14.75) load += 60;
    return load * (0.9 + 0.2 * r());
  });
}

/** A bounded random walk around 15 replicas: no seasonality, nothing to learn. */
export function randomWalkTrace(days: number): LoadTrace {
  let level = 15;
  return synthetic(days, 'no seasonality', 'a bounded random walk around 15 replicas', (_d, _h, r) => {
    level = Math.min(40, Math.max(3, level + (r() - 0.5) * 0.6));
    return level;
  });
}

/** Departures per 5 minutes from Jan 1, 2001, one replica per 2 departures in a 5-minute bucket. */
export async function flightsTrace(days: number): Promise<LoadTrace> {
  const BUCKET = 300;
  const resolved = createRequire(import.meta.url).resolve('vega-datasets');
  const path = join(resolved.slice(0, resolved.length - 'build/index.js'.length), 'data/flights-3m.parquet');
  const rows = (await parquetReadObjects({ file: await asyncBufferFromFile(path), columns: ['date'], compressors })) as { date: Date }[];
  const perBucket = new Float64Array((days * 86_400) / BUCKET);
  for (const { date } of rows) {
    const b = Math.floor((date.getTime() - TRACE_START) / 1000 / BUCKET);
    if (b >= 0 && b < perBucket.length) perBucket[b] += 1;
  }
  const demand = new Float64Array((days * 86_400) / TRACE_STEP_SECONDS);
  for (let i = 0; i < demand.length; i++) demand[i] = perBucket[Math.floor((i * TRACE_STEP_SECONDS) / BUCKET)] / 2;
  return { name: 'flights (real)', demand, note: `vega-datasets flights-3m.parquet, ${rows.length.toLocaleString('en')} departures; Jan 1 and Jan 15 are holidays` };
}
