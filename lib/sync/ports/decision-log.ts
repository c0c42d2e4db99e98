// An entry of an autoscaler's recent events (lib/sync/event-log.ts keeps the log): a value type of the
// store port (kept in the state) and of the cluster port (written as Kubernetes Events).

export interface DecisionLogEntry {
  type: 'Normal' | 'Warning';
  /** Upstream's reason: SuccessfulRescale, FailedGetScale, FailedGetResourceMetric, ... or ours (InvalidSpec, HistoryReset). */
  reason: string;
  /** Upstream's words, e.g. "New size: 4; reason: cpu resource utilization (percentage of request) above target". */
  message: string;
  /** First and last time it happened (ISO 8601), and how many times. */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  /** For rescales: replicas before and after. */
  from?: number;
  to?: number;
  /** The rule that limited the decision, when one did (e.g. "ScaleUpLimit", "max replicas"). */
  limit?: string;
}
