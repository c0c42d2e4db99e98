// Live progress lines for the demo: one compact line per autoscaler per sync, and a progress bar.
export interface LiveRow {
  name: string;
  load: number;
  /** e.g. "cpu 92%/60%". */
  metrics: string;
  current: number;
  desired: number;
  /** The limiting reason, "" when none. */
  reason: string;
}

export function liveLine(r: LiveRow, nameWidth: number): string {
  const arrow = r.desired === r.current ? `${r.current}` : `${r.current} → ${r.desired}`;
  return `${r.name.padEnd(nameWidth)}  load ${r.load.toFixed(2).padStart(6)}  ${r.metrics.padEnd(28)}  replicas ${arrow.padEnd(8)}  ${r.reason}`.trimEnd();
}

/** "[██████░░░░░░] 50% 12:00" — plain ASCII when `ascii` (no TTY). */
export function progressBar(done: number, total: number, width: number, label: string, ascii = false): string {
  const frac = total > 0 ? Math.min(1, done / total) : 1;
  const full = Math.round(frac * width);
  const [on, off] = ascii ? ['#', '.'] : ['█', '░'];
  return `[${on.repeat(full)}${off.repeat(width - full)}] ${String(Math.round(frac * 100)).padStart(3)}% ${label}`;
}
