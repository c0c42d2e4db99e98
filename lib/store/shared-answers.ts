// The metric answers a shard keeps for the whole deployment (lib/sync/ports.ts
// SharedMetricAnswer), as one item in the partition of one of the shard's buckets, so the
// Query that loads the shard returns them. Compact: a few dozen bytes a query, since the item
// is rewritten once a metric period. Decoded strictly: an entry that cannot be trusted is
// dropped, and costs nothing but one more read from CloudWatch.
import type { MetricSample } from '../hpa/types.js';
import type { SharedMetricAnswer } from '../sync/ports.js';
import { decodeLearning, encodeLearning, type DelayLearning } from '../sync/publish-delay.js';

/** The item's sort key in a bucket partition; its attribute `cw` holds the answers. */
export const SHARED_ANSWERS_SK = 'shared#cloudwatch';

/** [end, samples as [value, timestamp in epoch seconds], error, messages, publication delay learning?]: 0 where absent. */
type Entry = [number, [string, number][] | 0, string | 0, string[] | 0] | [number, [string, number][] | 0, string | 0, string[] | 0, Partial<DelayLearning>];

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function encodeSharedAnswers(answers: ReadonlyMap<string, SharedMetricAnswer>): string {
  const out: Record<string, Entry> = {};
  for (const [key, a] of answers) {
    const samples = a.samples?.map((s): [string, number] => [s.value, Math.floor(Date.parse(s.timestamp) / 1000)]);
    const entry: Entry = [a.end, samples ?? 0, a.error ?? 0, a.messages?.length ? a.messages : 0];
    out[key] = a.learn ? [...entry, encodeLearning(a.learn)] : entry;
  }
  return JSON.stringify(out);
}

/** The answers of a stored item; entries of the wrong shape are left out. */
export function decodeSharedAnswers(text: unknown): Map<string, SharedMetricAnswer> {
  const out = new Map<string, SharedMetricAnswer>();
  if (typeof text !== 'string') return out;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return out;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [key, e] of Object.entries(raw as Record<string, unknown>)) {
    const answer = decodeEntry(e);
    if (answer) out.set(key, answer);
  }
  return out;
}

function decodeEntry(e: unknown): SharedMetricAnswer | undefined {
  if (!Array.isArray(e) || (e.length !== 4 && e.length !== 5)) return undefined;
  const [end, samples, error, messages, learn] = e as unknown[];
  if (typeof end !== 'number' || !Number.isInteger(end) || end < 0) return undefined;
  const answer: SharedMetricAnswer = { end };
  if (samples !== 0) {
    if (!Array.isArray(samples)) return undefined;
    const list: MetricSample[] = [];
    for (const s of samples as unknown[]) {
      if (!Array.isArray(s) || typeof s[0] !== 'string' || typeof s[1] !== 'number' || !Number.isFinite(s[1])) return undefined;
      list.push({ value: s[0], timestamp: iso(s[1]) });
    }
    answer.samples = list;
  }
  if (error !== 0) {
    if (typeof error !== 'string') return undefined;
    answer.error = error;
  }
  if ((answer.samples === undefined) === (answer.error === undefined)) return undefined;
  if (messages !== 0) {
    if (!Array.isArray(messages) || !messages.every((m) => typeof m === 'string')) return undefined;
    answer.messages = messages as string[];
  }
  // A learning that cannot be trusted is learned again; the answer itself stands.
  const learning = decodeLearning(learn);
  if (learning) answer.learn = learning;
  return answer;
}
