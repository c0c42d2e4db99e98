// An autoscaler's state item, encoded compactly and decoded strictly. A state written by
// another tool, a hand edit or an older version may hold anything: every field is checked
// (types, ranges, times not from the future). An entry of the history that cannot be trusted
// (a scale event or recommendation of the wrong shape) is dropped and its part named, the
// valid ones kept; a state that cannot be trusted at all is not used. Either way the caller
// holds the directions concerned still for their periods (lib/sync/history-holds.ts): a lost
// history never loosens a limit.
import type { HorizontalPodAutoscalerStatus } from '#hpa';
import type { DecisionLogEntry, PendingScale, UntrustedHistory } from '#sync/ports';
import { demandMark, type CompactState, type EventPair, type RecPair } from './history.js';
import type { ItemKey } from './items.js';
import { decodeDemand, encodeDemand } from './demand-codec.js';
import { errorText } from '../shared/error-text.js';

/**
 * No workload has more replicas than a cluster has pods, and Kubernetes is tested to
 * 150,000 pods per cluster (its scalability thresholds): a larger count is corruption.
 */
export const MAX_PLAUSIBLE_REPLICAS = 200_000;
/**
 * Recommendations are upstream's prenormalized ones (int32, like its timestampedRecommendation),
 * not replica counts: a huge metric value makes one of up to int32's maximum, and it must be read back.
 */
export const MAX_RECOMMENDATION = 2_147_483_647;
/** Times later than now by more than this are clock skew or corruption. */
export const FUTURE_TOLERANCE_MS = 120_000;

export interface StateFields extends CompactState {
  uid: string;
  /** The spec version this state was computed from. */
  specVersion?: string;
  /** A scale recorded but not yet confirmed on the target (see lib/sync/pending.ts). */
  pending?: PendingScale;
  log: DecisionLogEntry[];
  /** The target's pod selector when last read. */
  selector?: string;
  /** "cluster" when the autoscaler is a Kubernetes object (no spec item in the table). */
  source?: 'cluster';
}

export interface StateItem extends ItemKey {
  uid: string;
  v: number;
  sv?: string;
  st: string;
  rec?: string;
  open: boolean;
  off: number;
  up?: string;
  dn?: string;
  mt: number;
  ut: string;
  pend?: string;
  log?: string;
  sel?: string;
  src?: 'cluster';
  /** Holds: {"u": until ms, "d": until ms}. */
  hold?: string;
  /** spec.predictive's demand history (lib/store/demand-codec.ts). */
  dem?: string;
}

export function encodeState(key: ItemKey, v: number, s: StateFields, now: Date): StateItem {
  const item: StateItem = {
    ...key,
    uid: s.uid,
    v,
    st: JSON.stringify(s.status ?? {}),
    open: s.open,
    off: s.offsetMs,
    mt: s.metricsAtMs,
    ut: now.toISOString(),
  };
  if (s.specVersion !== undefined) item.sv = s.specVersion;
  if (s.rec !== null) item.rec = JSON.stringify(s.rec);
  if (s.up.length > 0) item.up = JSON.stringify(s.up);
  if (s.down.length > 0) item.dn = JSON.stringify(s.down);
  if (s.pending) item.pend = JSON.stringify(s.pending);
  if (s.log.length > 0) item.log = JSON.stringify(s.log);
  if (s.selector !== undefined) item.sel = s.selector;
  if (s.source) item.src = s.source;
  if (s.holds && (s.holds.up !== undefined || s.holds.down !== undefined)) item.hold = JSON.stringify({ u: s.holds.up, d: s.holds.down });
  if (s.demand) item.dem = encodeDemand(s.demand);
  return item;
}

/** A state item as read: trusted fields, or why it cannot be trusted. */
export interface DecodedState {
  /** The version to write against: the stored attribute as it is (a corrupt one included). */
  rawVersion: unknown;
  /** A positive integer, or 0 when the stored one is not. */
  version: number;
  uid?: string;
  updatedAt?: string;
  source?: 'cluster';
  /** Set when the state could be trusted, but for the history entries `untrusted` names (dropped). */
  state?: StateFields & { updatedAt: string; untrusted?: UntrustedHistory };
  /** What is wrong, naming the attribute, when it could not. */
  problem?: string;
  /** Parts that survive a problem elsewhere (the status and the event log are not history). */
  salvage: { status?: HorizontalPodAutoscalerStatus; log: DecisionLogEntry[] };
}

class Invalid extends Error {}

const fail = (what: string): never => {
  throw new Invalid(what);
};

function json(item: Record<string, unknown>, attr: string): unknown {
  const raw = item[attr];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') fail(`${attr} is not a string`);
  try {
    return JSON.parse(raw as string);
  } catch {
    return fail(`${attr} is not JSON`);
  }
}

function int(x: unknown, what: string, min: number, max: number): number {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) fail(`${what} must be an integer from ${min} to ${max}, got ${JSON.stringify(x)}`);
  return x as number;
}

function time(x: unknown, what: string, nowMs: number): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) fail(`${what} is not a time, got ${JSON.stringify(x)}`);
  if ((x as number) > nowMs + FUTURE_TOLERANCE_MS) fail(`${what} ${new Date(x as number).toISOString()} is in the future`);
  return x as number;
}

function isoTime(x: unknown, what: string, nowMs: number): string {
  if (typeof x !== 'string' || Number.isNaN(Date.parse(x))) fail(`${what} is not a time, got ${JSON.stringify(x)}`);
  time(Date.parse(x as string), what, nowMs);
  return x as string;
}

function list(x: unknown, what: string): unknown[] {
  if (!Array.isArray(x)) fail(`${what} is not a list`);
  return x as unknown[];
}

function obj(x: unknown, what: string): Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) fail(`${what} is not an object`);
  return x as Record<string, unknown>;
}

function optString(o: Record<string, unknown>, f: string, what: string): void {
  if (o[f] !== undefined && typeof o[f] !== 'string') fail(`${what}.${f} is not a string`);
}

function recPairs(x: unknown, what: string, nowMs: number): RecPair[] {
  return list(x, what).map((p, i) => {
    const pair = list(p, `${what}[${i}]`);
    if (pair.length !== 2) fail(`${what}[${i}] is not a [replicas, time] pair`);
    return [int(pair[0], `${what}[${i}] replicas`, 0, MAX_RECOMMENDATION), time(pair[1], `${what}[${i}] time`, nowMs)];
  });
}

function eventPairs(x: unknown, what: string, nowMs: number): EventPair[] {
  if (x === undefined) return [];
  return list(x, what).map((p, i) => {
    const pair = list(p, `${what}[${i}]`);
    if (pair.length !== 2) fail(`${what}[${i}] is not a [time, change] pair`);
    return [time(pair[0], `${what}[${i}] time`, nowMs), int(pair[1], `${what}[${i}] change`, 0, MAX_PLAUSIBLE_REPLICAS)];
  });
}

/** The valid entries of a history list, and what was wrong with the others (or with the list). */
function lenient<T>(item: Record<string, unknown>, attr: string, decode: (x: unknown) => T[]): { entries: T[]; problem?: string } {
  let raw: unknown;
  try {
    raw = json(item, attr);
  } catch (e) {
    return { entries: [], problem: errorText(e) };
  }
  if (raw === undefined) return { entries: [] };
  if (!Array.isArray(raw)) return { entries: [], problem: `${attr} is not a list` };
  const entries: T[] = [];
  const problems: string[] = [];
  raw.forEach((x, i) => {
    try {
      entries.push(...decode([x]));
    } catch (e) {
      if (!(e instanceof Invalid)) throw e;
      problems.push(e.message.replace(`${attr}[0]`, `${attr}[${i}]`));
    }
  });
  return problems.length > 0 ? { entries, problem: problems.join('; ') } : { entries };
}

function holds(x: unknown, nowMs: number): { up?: number; down?: number } | undefined {
  if (x === undefined) return undefined;
  const o = obj(x, 'hold');
  // A hold may lie ahead by up to the longest policy period (30 min) plus a window (1 h).
  const until = (v: unknown, what: string) => (v === undefined ? undefined : time(v, what, nowMs + 5_400_000));
  const up = until(o.u, 'hold.u');
  const down = until(o.d, 'hold.d');
  return { ...(up !== undefined ? { up } : {}), ...(down !== undefined ? { down } : {}) };
}

function status(x: unknown, nowMs: number): HorizontalPodAutoscalerStatus | undefined {
  const st = obj(x, 'st');
  if (Object.keys(st).length === 0) return undefined;
  int(st.currentReplicas, 'st.currentReplicas', 0, MAX_PLAUSIBLE_REPLICAS);
  int(st.desiredReplicas, 'st.desiredReplicas', 0, MAX_PLAUSIBLE_REPLICAS);
  if (st.observedGeneration !== undefined) int(st.observedGeneration, 'st.observedGeneration', 0, Number.MAX_SAFE_INTEGER);
  if (st.lastScaleTime !== undefined) isoTime(st.lastScaleTime, 'st.lastScaleTime', nowMs);
  if (st.conditions !== undefined) {
    list(st.conditions, 'st.conditions').forEach((c, i) => {
      const cond = obj(c, `st.conditions[${i}]`);
      if (typeof cond.type !== 'string' || typeof cond.status !== 'string') fail(`st.conditions[${i}] needs a type and a status`);
      for (const f of ['reason', 'message', 'lastTransitionTime']) optString(cond, f, `st.conditions[${i}]`);
    });
  }
  if (st.currentMetrics !== undefined) list(st.currentMetrics, 'st.currentMetrics').forEach((m, i) => obj(m, `st.currentMetrics[${i}]`));
  return st as unknown as HorizontalPodAutoscalerStatus;
}

function eventLog(x: unknown, nowMs: number): DecisionLogEntry[] {
  if (x === undefined) return [];
  return list(x, 'log').map((e, i) => {
    const entry = obj(e, `log[${i}]`);
    const what = `log[${i}]`;
    if (entry.type !== 'Normal' && entry.type !== 'Warning') fail(`${what}.type must be Normal or Warning`);
    if (typeof entry.reason !== 'string' || typeof entry.message !== 'string') fail(`${what} needs a reason and a message`);
    isoTime(entry.firstTimestamp, `${what}.firstTimestamp`, nowMs);
    isoTime(entry.lastTimestamp, `${what}.lastTimestamp`, nowMs);
    int(entry.count, `${what}.count`, 1, Number.MAX_SAFE_INTEGER);
    for (const f of ['from', 'to']) if (entry[f] !== undefined) int(entry[f], `${what}.${f}`, 0, MAX_PLAUSIBLE_REPLICAS);
    optString(entry, 'limit', what);
    return entry as unknown as DecisionLogEntry;
  });
}

function pending(x: unknown, nowMs: number): PendingScale | undefined {
  if (x === undefined) return undefined;
  const p = obj(x, 'pend');
  int(p.to, 'pend.to', 0, MAX_PLAUSIBLE_REPLICAS);
  int(p.from, 'pend.from', 0, MAX_PLAUSIBLE_REPLICAS);
  isoTime(p.at, 'pend.at', nowMs);
  optString(p, 'resourceVersion', 'pend');
  optString(p, 'previousScaleTime', 'pend');
  return p as unknown as PendingScale;
}

function guard<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Decodes a state item read at `nowMs`; never throws. */
export function decodeState(item: Record<string, unknown>, nowMs: number): DecodedState {
  const rawVersion = item.v;
  const version = typeof rawVersion === 'number' && Number.isInteger(rawVersion) && rawVersion > 0 ? rawVersion : 0;
  const uid = typeof item.uid === 'string' ? item.uid : undefined;
  const source = item.src === 'cluster' ? 'cluster' : undefined;
  const updatedAt = typeof item.ut === 'string' ? item.ut : undefined;
  const salvage = {
    status: guard(() => status(json(item, 'st') ?? {}, nowMs)),
    log: guard(() => eventLog(json(item, 'log'), nowMs)) ?? [],
  };
  try {
    if (version === 0) fail(`v must be a positive integer, got ${JSON.stringify(rawVersion)}`);
    if (uid === undefined) fail('uid is not a string');
    if (item.sv !== undefined && typeof item.sv !== 'string') fail('sv is not a string');
    if (item.sel !== undefined && typeof item.sel !== 'string') fail('sel is not a string');
    if (typeof item.open !== 'boolean') fail('open is not a boolean');
    const off = item.off ?? 0;
    if (typeof off !== 'number' || !Number.isFinite(off) || Math.abs(off) > 3_600_000) fail('off is not an offset of at most an hour');
    const mt = item.mt ?? 0;
    const recs = lenient(item, 'rec', (x) => recPairs(x, 'rec', nowMs));
    const ups = lenient(item, 'up', (x) => eventPairs(x, 'up', nowMs));
    const downs = lenient(item, 'dn', (x) => eventPairs(x, 'dn', nowMs));
    const untrusted: UntrustedHistory = {
      ...(ups.problem ? { up: ups.problem } : {}),
      ...(downs.problem ? { down: downs.problem } : {}),
      ...(recs.problem ? { recommendations: recs.problem } : {}),
    };
    // No valid recommendation left of a list that had some: none recorded yet, as upstream seeds it.
    const rec = item.rec === undefined || (recs.entries.length === 0 && recs.problem) ? null : recs.entries;
    const hold = holds(json(item, 'hold'), nowMs);
    const state: StateFields & { updatedAt: string } = {
      uid: uid as string,
      ...(typeof item.sv === 'string' ? { specVersion: item.sv } : {}),
      ...(typeof item.sel === 'string' ? { selector: item.sel } : {}),
      status: status(json(item, 'st') ?? {}, nowMs),
      rec,
      open: item.open as boolean,
      offsetMs: off as number,
      up: ups.entries,
      down: downs.entries,
      metricsAtMs: time(mt, 'mt', nowMs),
      log: eventLog(json(item, 'log'), nowMs),
      updatedAt: isoTime(item.ut, 'ut', nowMs),
      ...(source ? { source } : {}),
      ...(hold ? { holds: hold } : {}),
      ...(Object.keys(untrusted).length > 0 ? { untrusted } : {}),
    };
    const p = pending(json(item, 'pend'), nowMs);
    if (p) state.pending = p;
    // A demand that cannot be read is dropped and learned again: it is no limit's memory, so nothing is held.
    const dem = item.dem === undefined ? undefined : decodeDemand(item.dem, nowMs);
    if (dem && 'demand' in dem) {
      state.demand = dem.demand;
      state.demandMark = demandMark(dem.demand);
    }
    return { rawVersion, version, uid, updatedAt, source, state, salvage };
  } catch (e) {
    if (!(e instanceof Invalid)) throw e;
    return { rawVersion, version, uid, updatedAt, source, problem: e.message, salvage };
  }
}
