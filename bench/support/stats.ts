// Bench-only: small statistics and table helpers shared by the benchmarks.

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export const fixed = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/** Counts process warnings by name, keeping the first message, instead of printing each (e.g. the product's MaxListenersExceededWarning). */
export function countWarnings(): Map<string, { count: number; first: string }> {
  const seen = new Map<string, { count: number; first: string }>();
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    const s = seen.get(w.name) ?? { count: 0, first: w.message.slice(0, 160) };
    s.count++;
    seen.set(w.name, s);
  });
  return seen;
}

/** FNV-1a, then murmur3's finalizer: similar strings get unrelated 32-bit values. */
export function hash32(s: string): number {
  let h = 2166136261;
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
