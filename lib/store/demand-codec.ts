// The demand history of spec.predictive (lib/hpa/forecast.ts) as one attribute of the state item:
// "bucketSeconds:firstBucket:" then, base64, the raw-deflated LEB128 varints of the buckets (0: none
// recorded, else 1 + the zigzag change from the last recorded value: a noisy load's steps are small). 14 days of 5-minute buckets (4,032) of small counts are about 4 KB
// before deflate, and a recurring load deflates to a few hundred bytes (docs/predictive.md).
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { DemandHistory } from '#hpa';
import { FUTURE_TOLERANCE_MS, MAX_PLAUSIBLE_REPLICAS } from './state-codec.js';

/** 14 days of 1-minute buckets: more is not ours. */
const MAX_BUCKETS = 14 * 1440 + 1;
const MAX_PACKED_BYTES = MAX_BUCKETS * 3;

export function encodeDemand(h: DemandHistory): string {
  const bytes: number[] = [];
  let last = 0;
  for (const v of h.values) {
    let n = 0;
    if (v !== null) {
      const d = v - last;
      n = 1 + (d >= 0 ? 2 * d : -2 * d - 1);
      last = v;
    }
    while (n >= 0x80) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
  }
  return `${h.bucketSeconds}:${h.firstBucket}:${deflateRawSync(Uint8Array.from(bytes)).toString('base64')}`;
}

/** The stored demand, or what is wrong with it (the caller starts afresh: a lost demand is learned again). */
export function decodeDemand(raw: unknown, nowMs: number): { demand: DemandHistory } | { problem: string } {
  if (typeof raw !== 'string') return { problem: 'dem is not a string' };
  const m = /^([0-9]{1,5}):([0-9]{1,12}):([A-Za-z0-9+/=]*)$/.exec(raw);
  if (!m) return { problem: 'dem is not "bucketSeconds:firstBucket:data"' };
  const bucketSeconds = Number(m[1]);
  const firstBucket = Number(m[2]);
  if (bucketSeconds < 60 || bucketSeconds > 3600) return { problem: `dem bucket of ${bucketSeconds} s is not from 60 to 3600 s` };
  if (firstBucket * bucketSeconds * 1000 > nowMs + FUTURE_TOLERANCE_MS) return { problem: 'dem starts in the future' };
  let packed: Buffer;
  try {
    packed = inflateRawSync(Buffer.from(m[3], 'base64'), { maxOutputLength: MAX_PACKED_BYTES });
  } catch {
    return { problem: 'dem data does not inflate (or is too long)' };
  }
  const values: (number | null)[] = [];
  let last = 0;
  let n = 0;
  let shift = 0;
  for (const byte of packed) {
    n += (byte & 0x7f) * 2 ** shift;
    if (byte & 0x80) {
      shift += 7;
      if (shift > 21) return { problem: 'dem holds a value too large' };
      continue;
    }
    if (n === 0) values.push(null);
    else {
      const z = n - 1;
      last += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      if (last < 0 || last > MAX_PLAUSIBLE_REPLICAS) return { problem: `dem holds ${last} replicas, not a replica count` };
      values.push(last);
    }
    n = 0;
    shift = 0;
  }
  if (shift !== 0) return { problem: 'dem data ends inside a value' };
  if (values.length > MAX_BUCKETS) return { problem: `dem holds ${values.length} buckets, more than 14 days` };
  if ((firstBucket + values.length - 1) * bucketSeconds * 1000 > nowMs + FUTURE_TOLERANCE_MS) return { problem: 'dem ends in the future' };
  return { demand: { bucketSeconds, firstBucket, values } };
}
