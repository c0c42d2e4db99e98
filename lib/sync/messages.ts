// The work queue's messages (docs/architecture.md): a tick of one shard, or an
// evaluation of the autoscalers an event names. Bodies are untrusted JSON: every field
// is checked and a bad one is named.
import { parseShardId } from './shards.js';
import { errorText } from '../shared/error-text.js';

export type EvaluateTarget =
  | { kind: 'hpa'; namespace: string; name: string }
  /** Every autoscaler whose External metric reads this CloudWatchMetric. */
  | { kind: 'cwm'; namespace: string; name: string }
  /**
   * Every autoscaler whose CloudWatchMetric names this alarm (spec.alarmName). evaluatedUntil
   * (ISO 8601): the end of the latest period the alarm evaluated; that metric is read fresh up
   * to it (absent, from an older sender: up to the cycle's time).
   */
  | { kind: 'alarm'; alarmName: string; evaluatedUntil?: string };

export interface TickMessage {
  kind: 'tick';
  shard: string;
  /** The tick's exact time, ISO 8601, whole seconds. */
  tick: string;
  periodSeconds: number;
}

export interface EvaluateMessage {
  kind: 'evaluate';
  shard: string;
  targets: EvaluateTarget[];
  /** What asked for it, for the log: "spec change", "alarm web-cpu-high ALARM", "evaluate-now". */
  reason: string;
  /** When the event happened (ISO 8601): the reaction time is measured from it. */
  at: string;
  /** 1 for the first send; the worker re-sends with attempt + 1 while the shard is busy. */
  attempt: number;
}

export type WorkMessage = TickMessage | EvaluateMessage;

/** Re-sends of an evaluation that keeps finding its shard busy; the next tick covers it after that. */
export const MAX_EVALUATE_ATTEMPTS = 5;

/** Events older than this are not acted on: the next tick has long made them moot. */
export const MAX_EVENT_AGE_MS = 300_000;
/** SQS allows 256 KiB; evaluations name at most this many targets per message. */
export const MAX_TARGETS_PER_MESSAGE = 500;

export class MessageError extends Error {
  override readonly name = 'MessageError';
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Obj, field: string, at = ''): string {
  const v = o[field];
  if (typeof v !== 'string' || v === '') throw new MessageError(`${at}${field}: must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function time(o: Obj, field: string, at = ''): string {
  const v = str(o, field, at);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v) || Number.isNaN(Date.parse(v))) {
    throw new MessageError(`${at}${field}: must be an ISO 8601 UTC time, got ${JSON.stringify(v)}`);
  }
  return v;
}

function int(o: Obj, field: string, min: number, max: number): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new MessageError(`${field}: must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

function target(v: unknown, i: number): EvaluateTarget {
  const at = `targets[${i}].`;
  if (!isObj(v)) throw new MessageError(`targets[${i}]: must be an object`);
  switch (v.kind) {
    case 'hpa':
    case 'cwm':
      return { kind: v.kind, namespace: str(v, 'namespace', at), name: str(v, 'name', at) };
    case 'alarm':
      return { kind: 'alarm', alarmName: str(v, 'alarmName', at), ...(v.evaluatedUntil === undefined ? {} : { evaluatedUntil: time(v, 'evaluatedUntil', at) }) };
    default:
      throw new MessageError(`${at}kind: must be "hpa", "cwm" or "alarm", got ${JSON.stringify(v.kind)}`);
  }
}

/** Parses a message body; throws MessageError naming the first bad field. */
export function parseWorkMessage(body: string): WorkMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    throw new MessageError(`not JSON: ${errorText(e)}`);
  }
  if (!isObj(raw)) throw new MessageError('must be a JSON object');
  const shard = str(raw, 'shard');
  try {
    parseShardId(shard);
  } catch (e) {
    throw new MessageError(`shard: ${errorText(e)}`);
  }
  switch (raw.kind) {
    case 'tick':
      return { kind: 'tick', shard, tick: time(raw, 'tick'), periodSeconds: int(raw, 'periodSeconds', 1, 900) };
    case 'evaluate': {
      if (!Array.isArray(raw.targets) || raw.targets.length === 0 || raw.targets.length > MAX_TARGETS_PER_MESSAGE) {
        throw new MessageError(`targets: must be a list of 1 to ${MAX_TARGETS_PER_MESSAGE} targets`);
      }
      return {
        kind: 'evaluate',
        shard,
        targets: raw.targets.map(target),
        reason: str(raw, 'reason'),
        at: time(raw, 'at'),
        attempt: int(raw, 'attempt', 1, 100),
      };
    }
    default:
      throw new MessageError(`kind: must be "tick" or "evaluate", got ${JSON.stringify(raw.kind)}`);
  }
}
