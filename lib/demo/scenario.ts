// What the demo runs: the examples, applied through `shpa apply`'s validation and the
// store, and a workload for each autoscaler's target whose usage follows the trace's
// relative load (1 = a normal daytime hour), mapped per example as below.
import { join } from 'node:path';
import type { HorizontalPodAutoscaler } from '#hpa';
import { checkFile } from '../cli/apply.js';
import { expandPaths } from '../cli/manifests.js';
import type { LocalCloudWatch } from '../local/cloudwatch/server.js';
import type { WorkloadModel } from '../local/kubernetes/workload-model.js';
import type { CloudWatchMetric, SQSQueueMetric } from '#api';
import { KIND_CLOUDWATCH, KIND_HPA, type DynamoStore } from '../store/index.js';
import { packageRoot } from './package-root.js';

/** From the package root, not this module: bundled, this module is dist/shpa.js. */
export const EXAMPLES_DIR = join(packageRoot(), 'examples');

const GI = 1024 ** 3;

/** How a workload's pods are sized and what they use in total at relative load l (CPU in cores, memory in bytes). */
export interface UsageProfile {
  requests: Record<string, string>;
  usage(l: number): { cpu: number; memory: number };
}

/** The examples' workloads, by namespace/name; any other target gets DEFAULT_PROFILE. */
export const PROFILES: Record<string, UsageProfile> = {
  'demo/web': { requests: { cpu: '500m', memory: '256Mi' }, usage: (l) => ({ cpu: 2 * l, memory: 0.5 * GI }) },
  'demo/api': { requests: { cpu: '500m', memory: '1Gi' }, usage: (l) => ({ cpu: 3 * l, memory: (2 + l) * GI }) },
  'demo/worker': { requests: { cpu: '250m', memory: '256Mi' }, usage: (l) => ({ cpu: 0.5 * l, memory: 0.5 * GI }) },
};
export const DEFAULT_PROFILE: UsageProfile = { requests: { cpu: '500m', memory: '512Mi' }, usage: (l) => ({ cpu: 2 * l, memory: GI }) };

/**
 * CloudWatch metrics by metric name, or by "metric name/queue name" first: the value at relative load l (an SQS
 * backlog of 300 messages at l = 1; the reports queue, examples/scale-to-zero.yaml, empty below half the usual load).
 */
export const CLOUDWATCH_PROFILES: Record<string, (l: number) => number> = {
  ApproximateNumberOfMessagesVisible: (l) => 300 * l,
  'ApproximateNumberOfMessagesVisible/reports': (l) => Math.max(0, Math.round(200 * (l - 0.5))),
};
const DEFAULT_CLOUDWATCH_PROFILE = (l: number) => 100 * l;

export interface AppliedExamples {
  hpas: HorizontalPodAutoscaler[];
  cloudWatchMetrics: CloudWatchMetric[];
  /** Their queues are made on the local SQS, with a backlog that follows the load (queue-backlog.ts). */
  sqsQueueMetrics: SQSQueueMetric[];
  /** kubectl-style lines: "horizontalpodautoscaler.autoscaling/web created". */
  lines: string[];
}

/** Validates every file first (as `shpa apply` does), then stores each object; an invalid file stops the demo with its errors. */
export async function applyExamples(store: DynamoStore, cluster: string, dir: string, now: Date): Promise<AppliedExamples> {
  const checked = expandPaths([dir]).map((f) => checkFile(f, undefined));
  const errors = checked.flatMap((c) => ('errors' in c ? c.errors : []));
  if (errors.length > 0) throw new Error(`invalid examples:\n${errors.join('\n')}`);
  const out: AppliedExamples = { hpas: [], cloudWatchMetrics: [], sqsQueueMetrics: [], lines: [] };
  for (const c of checked) {
    if (!('objects' in c)) continue;
    for (const { handler, object } of c.objects) {
      const outcome = await store.applySpec(cluster, object, now);
      out.lines.push(`${handler.resource}/${object.metadata.name} ${outcome}`);
      if (object.kind === KIND_HPA) out.hpas.push(object as HorizontalPodAutoscaler);
      else if (object.kind === KIND_CLOUDWATCH) out.cloudWatchMetrics.push(object as CloudWatchMetric);
      else if (object.kind === 'SQSQueueMetric') out.sqsQueueMetrics.push(object as SQSQueueMetric);
    }
  }
  if (out.hpas.length === 0) throw new Error(`no HorizontalPodAutoscaler in ${dir}`);
  return out;
}

export function autoscalerKey(hpa: HorizontalPodAutoscaler): string {
  return `${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`;
}

/** Creates each autoscaler's target at minReplicas (1 for minReplicas 0: deployed, not yet scaled to zero) with its usage following `loadAt`, and a CloudWatch series per metric the CloudWatchMetrics read. */
export function populate(model: WorkloadModel, cloudWatch: LocalCloudWatch, applied: AppliedExamples, loadAt: (ms: number) => number): void {
  for (const hpa of applied.hpas) {
    const ref = hpa.spec.scaleTargetRef;
    const namespace = hpa.metadata.namespace ?? 'default';
    const profile = PROFILES[`${namespace}/${ref.name}`] ?? DEFAULT_PROFILE;
    model.addWorkload({
      kind: ref.kind,
      apiVersion: ref.apiVersion ?? 'apps/v1',
      namespace,
      name: ref.name,
      replicas: Math.max(1, hpa.spec.minReplicas ?? 1),
      selector: { app: ref.name },
      containers: [{ name: 'app', requests: profile.requests }],
      load: (now) => profile.usage(loadAt(now.getTime())),
    });
  }
  for (const cwm of applied.cloudWatchMetrics) {
    for (const q of cwm.spec.queries) {
      if (!q.metricStat) continue;
      const { metric, period } = q.metricStat;
      const queue = metric.dimensions?.find((d) => d.name === 'QueueName')?.value;
      const value = CLOUDWATCH_PROFILES[`${metric.metricName}/${queue}`] ?? CLOUDWATCH_PROFILES[metric.metricName] ?? DEFAULT_CLOUDWATCH_PROFILE;
      // One raw point a minute: the statistic over a period is then what the load was.
      cloudWatch.setSeriesFunction(metric, (s) => value(loadAt(s * 1000)), Math.min(60, period));
    }
  }
}
