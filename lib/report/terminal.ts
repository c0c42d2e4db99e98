// Terminal output: an asciichart of replicas over time and a summary table.
import asciichart from 'asciichart';
import type { AutoscalerReport } from './model.js';

/** Every n-th sample so a series fits in `width` columns (keeping each bucket's max, so spikes show). */
function fit(values: number[], width: number): number[] {
  if (values.length <= width) return values;
  const out: number[] = [];
  const per = values.length / width;
  for (let i = 0; i < width; i++) {
    const bucket = values.slice(Math.floor(i * per), Math.max(Math.floor((i + 1) * per), Math.floor(i * per) + 1));
    out.push(Math.max(...bucket));
  }
  return out;
}

export interface ChartOptions {
  /** Columns for the plot itself. */
  width?: number;
  height?: number;
  /** ANSI colors: only on a TTY outside CI. */
  color?: boolean;
}

/**
 * Replicas (and desired replicas, where they differ) over time; with spec.predictive, the predictive
 * minimum too (minReplicas where it does not act), drawn first so replicas show over it.
 */
export function renderReplicasChart(a: AutoscalerReport, opts: ChartOptions = {}): string {
  if (a.times.length === 0) return `${a.name}: no samples\n`;
  const width = opts.width ?? 72;
  const replicas = fit(a.replicas, width);
  const desired = fit(a.desired, width);
  const forecast = a.forecast ? fit(a.forecast.map((f) => f ?? a.minReplicas), width) : [];
  const max = Math.max(...replicas, ...desired, ...forecast);
  const min = Math.min(...replicas, ...desired, ...forecast);
  const height = opts.height ?? Math.min(12, Math.max(4, max - min));
  // Replicas drawn last, over desired: desired shows only where it differs.
  const series = a.forecast ? [forecast, desired, replicas] : [desired, replicas];
  const colors = a.forecast ? [asciichart.magenta, asciichart.yellow, asciichart.blue] : [asciichart.yellow, asciichart.blue];
  const chart = asciichart.plot(series, {
    height,
    min,
    max: max === min ? min + 1 : max,
    colors: opts.color ? colors : undefined,
    format: (x: number) => x.toFixed(0).padStart(5),
  });
  const span = (a.times[a.times.length - 1] - a.times[0]) / 60_000;
  const predictive = a.forecast ? (opts.color ? `  ${asciichart.magenta}── predictive minimum${asciichart.reset}` : ', predictive minimum') : '';
  const legend = opts.color
    ? `${asciichart.blue}── replicas${asciichart.reset}  ${asciichart.yellow}── desired${asciichart.reset}${predictive}`
    : `replicas, desired${predictive} (overlaid)`;
  return `${a.name}: ${legend}  over ${span.toFixed(0)} min, MINPODS ${a.minReplicas}, MAXPODS ${a.maxReplicas}\n${chart}\n`;
}

/** 45s, 12m, 3h05m: how long, at the resolution a summary needs. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.round(seconds / 60);
  return m < 60 ? `${m}m` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * One row per autoscaler: the figures to compare behaviors by. LOWEST/HIGHEST are the replicas seen
 * during the run; MINPODS/MAXPODS the spec's bounds, and AT MINPODS/AT MAXPODS the time spent on them.
 */
export function renderSummaryTable(reports: AutoscalerReport[]): string {
  const head = ['AUTOSCALER', 'LOWEST', 'HIGHEST', 'MINPODS', 'MAXPODS', 'AT MINPODS', 'AT MAXPODS', 'SCALE EVENTS', 'ABOVE TARGET', 'POD-HOURS'];
  const rows = reports.map((r) => {
    const s = r.summary;
    return [
      r.name,
      String(s.lowestReplicas),
      String(s.highestReplicas),
      String(r.minReplicas),
      String(r.maxReplicas),
      duration(s.secondsAtMin),
      duration(s.secondsAtMax),
      String(s.scaleEvents),
      duration(s.secondsAboveTarget),
      s.podHours.toFixed(s.podHours < 10 ? 2 : 1),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('   ').trimEnd()).join('\n') + '\n';
}
