// The demo's day of traffic, as a relative load (1 = a normal daytime hour): quiet night,
// morning rise, a lunchtime spike, a slow afternoon decline, evening fall. Each example maps it to its metric.
import type { Trace } from '../sim/trace.js';

const HOUR = 3600_000;

/** Relative load at `h` hours after midnight. */
export function dayLoad(h: number): number {
  if (h < 6) return 0.3;
  if (h < 9) return 0.3 + ((h - 6) / 3) * 0.7; // morning rise
  if (h < 12) return 1;
  if (h < 12.5) return 4; // the spike
  if (h < 16) return 4 - ((h - 12.5) / 3.5) * 3; // slow decline back to 1
  if (h < 22) return 1 - ((h - 16) / 6) * 0.7;
  return 0.3;
}

/** One day from `start` (midnight), one point per `stepSeconds`, series "load". */
export function demoTrace(start: Date, stepSeconds = 60): Trace {
  const times: number[] = [];
  const values: number[] = [];
  for (let t = 0; t <= 24 * HOUR; t += stepSeconds * 1000) {
    times.push(start.getTime() + t);
    values.push(dayLoad(t / HOUR));
  }
  return { series: ['load'], times, values: [values] };
}

/**
 * A trace file's first series as a relative load: divided by its median, so any unit
 * (cores, messages, requests) gives a typical level of 1 and only the shape matters.
 * The median rather than the first value: a trace may start in a spike or a lull. NaN (no value) stays NaN.
 */
export function relativeLoad(trace: Trace): { trace: Trace; median: number } {
  const values = trace.values[0];
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  if (!(median > 0)) throw new Error(`its median value is ${median}: a load needs a positive median to scale by`);
  return { trace: { series: [trace.series[0]], times: trace.times, values: [values.map((v) => v / median)] }, median };
}
