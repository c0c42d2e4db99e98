// kubectl-like rendering: aligned tables, short ages, HPA targets.
import { columnWidths, formatRow } from './output.js';

/** Columns separated by three spaces, as kubectl prints them. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = columnWidths(all);
  return all.map((r) => formatRow(r, widths)).join('\n') + '\n';
}

/** kubectl's AGE (apimachinery duration.HumanDuration): 45s, 5m3s, 42m, 5h3m, 20h, 3d4h, 12d, 2y45d, 9y. */
export function age(ms: number): string {
  // Upstream tolerates up to 2 s of clock skew as "now"; more, or no time at all, is invalid.
  if (!(ms > -2000)) return '<invalid>';
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const y = Math.floor(d / 365);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (y < 2) return `${d}d`;
  if (y < 8 && d % 365 !== 0) return `${y}y${d % 365}d`;
  return `${y}y`;
}

export { describeMetric, formatMetric, formatTargets } from '#hpa';
