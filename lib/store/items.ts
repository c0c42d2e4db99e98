// The table's item layout (docs/store.md): one partition per cluster holds its
// specs, their state items and a cycle marker, so one Query loads a cycle's input.
import type { HorizontalPodAutoscalerStatus } from '../hpa/types.js';
import type { CompactState, EventPair, RecPair } from './history.js';

export const KIND_HPA = 'HorizontalPodAutoscaler';
export const KIND_CLOUDWATCH = 'CloudWatchMetric';
export type SpecKind = typeof KIND_HPA | typeof KIND_CLOUDWATCH;

const SPEC_PREFIX: Record<SpecKind, string> = { [KIND_HPA]: 'hpa', [KIND_CLOUDWATCH]: 'cwm' };
const STATE_PREFIX = 'st';
export const CYCLE_SK = 'cycle';
export const CLUSTERS_PK = 'clusters';
export const LEASES_PK = 'lease';

export const clusterPk = (cluster: string): string => `c#${cluster}`;
// Namespaces and names are DNS labels/subdomains: they cannot contain '#'.
export const specSk = (kind: SpecKind, namespace: string, name: string): string => `${SPEC_PREFIX[kind]}#${namespace}#${name}`;
export const stateSk = (namespace: string, name: string): string => `${STATE_PREFIX}#${namespace}#${name}`;

export type ItemKey = { pk: string; sk: string };

/** A spec as stored: the validated, defaulted object as JSON, with its own version. */
export interface SpecItem extends ItemKey {
  kind: SpecKind;
  doc: string;
  v: number;
  ct: string;
  ut: string;
}

/** An autoscaler's state, written by the sync; small so a write costs one unit. */
export interface StateItem extends ItemKey {
  /** uid of the spec this state belongs to: a re-created autoscaler starts afresh. */
  uid: string;
  v: number;
  st: string;
  rec?: string;
  open: boolean;
  off: number;
  up?: string;
  dn?: string;
  mt: number;
  ut: string;
}

export function parseSk(sk: string): { prefix: string; namespace: string; name: string } | undefined {
  const parts = sk.split('#');
  return parts.length === 3 ? { prefix: parts[0], namespace: parts[1], name: parts[2] } : undefined;
}

export function kindOfPrefix(prefix: string): SpecKind | 'state' | undefined {
  if (prefix === STATE_PREFIX) return 'state';
  return (Object.keys(SPEC_PREFIX) as SpecKind[]).find((k) => SPEC_PREFIX[k] === prefix);
}

export function encodeState(key: ItemKey, uid: string, v: number, s: CompactState, now: Date): StateItem {
  const item: StateItem = {
    ...key,
    uid,
    v,
    st: JSON.stringify(s.status ?? {}),
    open: s.open,
    off: s.offsetMs,
    mt: s.metricsAtMs,
    ut: now.toISOString(),
  };
  if (s.rec !== null) item.rec = JSON.stringify(s.rec);
  if (s.up.length > 0) item.up = JSON.stringify(s.up);
  if (s.down.length > 0) item.dn = JSON.stringify(s.down);
  return item;
}

/** Throws on an item this version cannot read (reported as a broken record). */
export function decodeState(item: Record<string, unknown>): CompactState & { uid: string; v: number; ut: string } {
  const num = (x: unknown, f: string): number => {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`state attribute ${f} is not a number`);
    return x;
  };
  const pairs = <T extends RecPair | EventPair>(x: unknown, f: string): T[] => {
    if (x === undefined) return [];
    const v: unknown = JSON.parse(String(x));
    if (!Array.isArray(v) || !v.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number'))) {
      throw new Error(`state attribute ${f} is not a list of pairs`);
    }
    return v as T[];
  };
  const status = JSON.parse(String(item.st)) as HorizontalPodAutoscalerStatus;
  if (typeof status !== 'object' || status === null) throw new Error('state attribute st is not an object');
  return {
    uid: String(item.uid),
    v: num(item.v, 'v'),
    ut: String(item.ut ?? ''),
    status: 'desiredReplicas' in status ? status : undefined,
    rec: item.rec === undefined ? null : pairs<RecPair>(item.rec, 'rec'),
    open: item.open === true,
    offsetMs: typeof item.off === 'number' ? item.off : 0,
    up: pairs<EventPair>(item.up, 'up'),
    down: pairs<EventPair>(item.dn, 'dn'),
    metricsAtMs: typeof item.mt === 'number' ? item.mt : 0,
  };
}
