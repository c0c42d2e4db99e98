// What every KEDA trigger conversion takes and gives (lib/import/keda-triggers.ts and the
// per-type files beside it): the trigger's place and metadata in, the pieces and what was
// said about them out.
import type { CloudWatchMetric, PrometheusMetric, SQSQueueMetric } from '#api';
import type { MetricSpec, MinReplicaSchedule } from '#hpa';
import type { FindAuthentication, Obj } from './result.js';

export interface TriggerOutcome {
  metric?: MetricSpec;
  object?: CloudWatchMetric | PrometheusMetric | SQSQueueMetric;
  schedule?: MinReplicaSchedule;
  mapped: string[];
  unmapped: string[];
  /** The trigger's authenticationRef was read by the conversion itself (the generic role mapping is skipped). */
  authenticated?: true;
}

export interface TriggerContext {
  /** "triggers[0] (aws-sqs-queue)" */
  at: string;
  index: number;
  objectName: string;
  namespace: string;
  md: Obj;
  metricType?: string;
  /** The trigger's authenticationRef, as written. */
  authenticationRef?: unknown;
  findAuthentication?: FindAuthentication;
  /** `shpa import --sqs-account`: the account of queues named by a bare name and read with KEDA's own identity. */
  sqsAccountId?: string;
}

/** An External metric read from our object `name`: AverageValue unless the trigger's metricType is Value, as KEDA's. */
export const externalMetric = (name: string, metricType: string | undefined, value: string): MetricSpec => ({
  type: 'External',
  external: { metric: { name }, target: metricType === 'Value' ? { type: 'Value', value } : { type: 'AverageValue', averageValue: value } },
});
