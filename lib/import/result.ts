// What one imported document gives: the objects, and what the user reads about them.
import type { CloudWatchMetric, PrometheusMetric, SQSQueueMetric } from '#api';
import type { HorizontalPodAutoscaler } from '#hpa';

export type ImportedObject = HorizontalPodAutoscaler | CloudWatchMetric | PrometheusMetric | SQSQueueMetric;

export interface ImportResult {
  /** What the source was: "ScaledObject demo/worker". */
  source: string;
  objects: ImportedObject[];
  /** "triggers[0] (aws-sqs-queue) → CloudWatchMetric demo/worker-0". */
  mapped: string[];
  /** What ours cannot express, each with why: "triggers[2] (kafka): …". */
  unmapped: string[];
  /** Mapped, but it would change nothing, each with why: "triggers[1] (cron): its minimum 1 is minReplicas". */
  noEffect: string[];
  /** Our own objects, carried along as written (nothing is added to them, the dry-run annotation neither). */
  asWritten?: true;
  /** The live autoscaler the source is, as shpa.dev/shadow-of names it: what the dry-run autoscaler shadows. */
  live?: string;
}

/** A document import does not convert, and why: never a failure. */
export interface SkippedDocument {
  skipped: string;
  why: string;
}

export interface ImportMetadata {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/**
 * What a KEDA (Cluster)TriggerAuthentication says about the identity a trigger reads with: its
 * podIdentity, and where each other parameter comes from, by name only (never a value: the
 * values live in Secrets, the environment or a vault, which import does not read).
 */
export interface KedaAuthentication {
  /** podIdentity.provider: aws, aws-eks, none, … */
  provider?: string;
  /** podIdentity.roleArn. */
  roleArn?: string;
  /** podIdentity.identityOwner: keda (KEDA's default) or workload. */
  identityOwner?: string;
  /** podIdentity.externalID is set. */
  externalId?: boolean;
  /** Parameters from secretTargetRef, env, configMapTargetRef and the vaults: "awsRoleArn" → "Secret test-secrets key AWS_ROLE_ARN". */
  parameters: Record<string, string>;
}

/** The TriggerAuthentication (namespace given) or ClusterTriggerAuthentication (namespace '') a trigger names, if the input has it. */
export type FindAuthentication = (kind: string, namespace: string, name: string) => KedaAuthentication | undefined;

/** What import is told beside the documents. */
export interface ImportContext {
  findAuthentication?: FindAuthentication;
  /** The AWS account of SQS queues KEDA names by a bare name and reads with its own identity (`shpa import --sqs-account`). */
  sqsAccountId?: string;
}
