// A CloudWatch object's publication delay learning (lib/metrics/publish-delay.ts) as kept with the
// shard's answers (shared-answers.ts): one letter a field, empty lists left out, since the pages are
// rewritten once a metric period. The letters are the stored format: items written by older
// releases read the same.
import type { DelayLearning } from '#sync/ports';

/** The stored learning: d learned delay (s), s settled delays (s), o watched periods [start (epoch s), sample count, first seen (epoch ms)], p probing until (epoch ms), n next probing (epoch ms), u the datapoint used [period start (epoch s), value]. */
export interface StoredLearning {
  d?: number;
  s?: number[];
  o?: [number, number, number][];
  p: number;
  n?: number;
  u?: [number, number];
}

/** What a learned object adds to its kept answer (bytes, encodeLearning; test/store/publish-delay-codec.test.ts checks it). */
export const LEARNED_BYTES = 75;

/** As stored with the shard's answers: empty lists left out. */
export function encodeLearning(l: DelayLearning): StoredLearning {
  return {
    ...(l.learnedDelaySeconds !== undefined ? { d: l.learnedDelaySeconds } : {}),
    ...(l.settledDelaysSeconds.length ? { s: l.settledDelaysSeconds } : {}),
    ...(l.watched.length ? { o: l.watched.map((w): [number, number, number] => [w.periodStart, w.sampleCount, w.firstSeenMs]) } : {}),
    p: l.probingUntilMs,
    ...(l.nextProbingMs !== undefined ? { n: l.nextProbingMs } : {}),
    ...(l.used ? { u: [l.used.periodStart, l.used.value] } : {}),
  };
}

/** A learning as stored, or undefined when it is not one: the object then learns again from scratch. */
export function decodeLearning(v: unknown): DelayLearning | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const { d, s = [], o = [], p, n, u } = v as Record<string, unknown>;
  const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  const secs = (x: unknown): x is number => num(x) && Number.isInteger(x) && x >= 0 && x < 3600;
  if (d !== undefined && !secs(d)) return undefined;
  if (!Array.isArray(s) || !s.every(secs) || !num(p) || (n !== undefined && !num(n))) return undefined;
  if (!Array.isArray(o) || !o.every((e): e is [number, number, number] => Array.isArray(e) && e.length === 3 && e.every(num))) return undefined;
  if (u !== undefined && !(Array.isArray(u) && u.length === 2 && u.every(num))) return undefined;
  return {
    ...(d !== undefined ? { learnedDelaySeconds: d } : {}),
    settledDelaysSeconds: s,
    watched: o.map(([periodStart, sampleCount, firstSeenMs]) => ({ periodStart, sampleCount, firstSeenMs })),
    probingUntilMs: p,
    ...(n !== undefined ? { nextProbingMs: n } : {}),
    ...(u !== undefined ? { used: { periodStart: u[0] as number, value: u[1] as number } } : {}),
  };
}
