// The metric answers a shard keeps for the whole deployment (lib/sync/ports.ts
// SharedMetricAnswer), with their publication delay learning (publish-delay-codec.ts), as pages of at most
// SHARED_PAGE_BYTES in the partition of one of the shard's buckets, so the Query that loads the
// shard returns them and no item grows with the shard (DynamoDB refuses items over 400 KB).
// Compact: a few dozen bytes a query, since the pages are rewritten once a metric period.
// Decoded strictly: an entry that cannot be trusted is dropped, and costs nothing but one more
// read from CloudWatch.
import type { MetricSample } from '#hpa';
import type { SharedMetricAnswer } from '#sync/ports';
import { decodeLearning, encodeLearning, type StoredLearning } from './publish-delay-codec.js';

/** The sort key (and, of the pages, its prefix) in a bucket partition; the attribute `cw` holds the answers. A bare one is an older release's single item. */
export const SHARED_ANSWERS_SK = 'shared#cloudwatch';
/** A page's answers at most: a quarter of DynamoDB's item limit, whatever the shard holds. */
export const SHARED_PAGE_BYTES = 100_000;

/** The sort key of a page: the part of the bucket the shard holds (lib/sync/shards.ts partOf) and the page number. */
export function sharedPageSk(part: { part: number; parts: number }, page: number): string {
  return `${SHARED_ANSWERS_SK}#${part.parts > 1 ? `${part.part}of${part.parts}` : 'all'}#${page}`;
}

/** The owner tag and page number of a page's sort key; undefined for the older single item and anything else. */
export function parseSharedPageSk(sk: string): { owner: string; page: number } | undefined {
  const m = /^shared#cloudwatch#([a-z0-9]+)#(\d+)$/.exec(sk);
  return m ? { owner: m[1], page: Number(m[2]) } : undefined;
}

/** The answers as pages of at most `maxBytes` each (an answer larger than that on a page of its own). */
export function encodeSharedPages(answers: ReadonlyMap<string, SharedMetricAnswer>, maxBytes = SHARED_PAGE_BYTES): string[] {
  const pages: string[] = [];
  let entries: string[] = [];
  let bytes = 2;
  for (const [key, a] of answers) {
    const entry = `${JSON.stringify(key)}:${JSON.stringify(encodeEntry(a))}`;
    const size = Buffer.byteLength(entry) + 1;
    if (entries.length > 0 && bytes + size > maxBytes) {
      pages.push(`{${entries.join(',')}}`);
      entries = [];
      bytes = 2;
    }
    entries.push(entry);
    bytes += size;
  }
  if (entries.length > 0 || pages.length === 0) pages.push(`{${entries.join(',')}}`);
  return pages;
}

/** [end, samples as [value, timestamp in epoch seconds], error, messages, publication delay learning?]: 0 where absent. */
type Entry = [number, [string, number][] | 0, string | 0, string[] | 0] | [number, [string, number][] | 0, string | 0, string[] | 0, StoredLearning];

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function encodeSharedAnswers(answers: ReadonlyMap<string, SharedMetricAnswer>): string {
  const out: Record<string, Entry> = {};
  for (const [key, a] of answers) out[key] = encodeEntry(a);
  return JSON.stringify(out);
}

function encodeEntry(a: SharedMetricAnswer): Entry {
  const samples = a.samples?.map((s): [string, number] => [s.value, Math.floor(Date.parse(s.timestamp) / 1000)]);
  const entry: Entry = [a.end, samples ?? 0, a.error ?? 0, a.messages?.length ? a.messages : 0];
  return a.learn ? [...entry, encodeLearning(a.learn)] : entry;
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
