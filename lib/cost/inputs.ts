// What the cost model does not derive from the code's structure: figures measured by
// `npm run bench -- scale` (bench/scale.bench.ts prints them in this shape), and the few
// assumptions about AWS's side that cannot be measured locally, each with its reason.

export interface Measured {
  /** Where and when these were measured. */
  source: string;
  /** Worker CPU (ms of one core) of a steady tick's shard cycle: fixed + per autoscaler. */
  cycleCpuFixedMs: number;
  cycleCpuPerAutoscalerMs: number;
  /** Kubernetes API calls per autoscaler per tick (GET /scale each, pods and pod metrics per namespace, the CR lists). */
  k8sCallsPerAutoscaler: number;
  /** DynamoDB read units of a shard's load, per autoscaler (its spec, state and CloudWatchMetric items, strongly consistent). */
  loadReadUnitsPerAutoscaler: number;
  /** Write units of one state write. */
  stateWriteUnits: number;
  /** A rescale, beyond a steady evaluation: worker CPU, write units (its tentative state; the next cycle's status), read units (the spec check), decision lines. */
  rescaleCpuMs: number;
  rescaleWriteUnits: number;
  rescaleReadUnits: number;
  rescaleDecisionLines: number;
  /** Bytes written to CloudWatch Logs: a cycle summary line, a decision line, the EMF document of a cycle (with errors, or detailed metrics), the dispatcher's line. */
  cycleLineBytes: number;
  decisionLineBytes: number;
  emfBytesPerCycle: number;
  dispatchLineBytes: number;
  /** Bytes of one query's answer in the item a shard keeps its CloudWatch answers in (lib/store/shared-answers.ts). */
  sharedAnswerBytes: number;
}

export const MEASURED: Measured = {
  source: 'bench/scale.bench.ts, 2026-11-26, 2-core x86_64, Node 20: 1, 1,000 and 10,000 autoscalers, 2 pods each (7 KB as EKS returns them)',
  cycleCpuFixedMs: 25.7,
  cycleCpuPerAutoscalerMs: 0.641,
  k8sCallsPerAutoscaler: 0.158,
  loadReadUnitsPerAutoscaler: 0.577,
  stateWriteUnits: 2.05,
  rescaleCpuMs: 12.62,
  rescaleWriteUnits: 6.99,
  rescaleReadUnits: 2.52,
  rescaleDecisionLines: 3.32,
  cycleLineBytes: 1002,
  decisionLineBytes: 1803,
  // No cycle of this run had errors, so no EMF document: the size of one from the 2026-11-24 run.
  emfBytesPerCycle: 199,
  dispatchLineBytes: 534,
  sharedAnswerBytes: 60,
};

export const ASSUMED = {
  /** Lambda's SQS pollers on an idle queue: five long polls of 20 s (docs: services-sqs-scaling; the two-poller saving is off when maximumConcurrency is set, as serverless.yml does). */
  sqsIdleReceivesPerMinute: 5 * (60 / 20),
  /** The worker's SQS event sources (serverless.yml): the work queue (ticks) only; evaluations are the evaluator's asynchronous invocations. */
  sqsEventSources: 1,
  /** Lambda's own START, END and REPORT lines per invocation, about 290 bytes together (at logLevel INFO the deploy leaves them out). */
  platformLogBytesPerInvocation: 290,
  /** CloudWatch Logs archives compressed: about 15 % of the bytes ingested. */
  logCompression: 0.15,
  /** One round trip from the worker to DynamoDB, EKS or CloudWatch in the same region (ms). */
  roundTripMs: 10,
  /** Round trips a cycle makes one after the other: receive, lease, bucket index, bucket queries, CloudWatch, state write, patch, release. */
  sequentialRoundTrips: 8,
  /** Kubernetes calls in flight at once (SHPA_CONCURRENCY's default). */
  concurrency: 32,
  /** The dispatcher, stream and events functions: 256 MB, about 100 ms an invocation (the stream's and events' Invoke calls included). */
  smallFunction: { memoryMb: 256, durationMs: 100 },
  /** Lambda gives one full vCPU at 1,769 MB, in proportion below; the worker uses one thread. */
  mbPerVcpu: 1769,
  /** CloudWatch metrics are 60 s metrics: one new datapoint a minute. */
  metricPeriodSeconds: 60,
  /** The stack's alarms (infra/alarms.cjs): seven with param monitoring full, on one metric each. */
  alarmMetrics: 7,
  /** With param monitoring true: worker-missing-cycles, worker-errors, dead-letters, failed-events. */
  essentialAlarmMetrics: 4,
};
