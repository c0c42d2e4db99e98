// The cluster port (lib/cluster implements it): one cluster's API as a cycle uses it.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { MetricObjectLists } from '#api';
import type { DecisionLogEntry } from './decision-log.js';
import type { CrossVersionObjectReference, HorizontalPodAutoscalerStatus, ObjectMeta, PodInfo, ScaleInfo } from '#hpa';

/** How to reach a cluster. */
export interface ClusterRecord {
  name: string;
  region: string;
  /** IAM role to assume for clusters in other accounts. */
  roleArn?: string;
  /** API server URL override (skips DescribeCluster); with caData. Local stacks only. */
  endpoint?: string;
  caData?: string;
}

/** A cluster as the functions sync it. */
export interface ClusterConfig extends ClusterRecord {
  /** K: shards the cluster is cut into (1, 2, 4, 8, 16). */
  shards: number;
  /** Namespaces the function may act in; undefined: all. */
  namespaces?: string[];
}

/** An error from the cluster API, with the HTTP status when there was one. */
export class ClusterApiError extends Error {
  override readonly name = 'ClusterApiError';
  constructor(
    message: string,
    readonly statusCode?: number,
    /** True when the request may have reached the server and acted (a timeout, a reset): its outcome is unknown. */
    readonly outcomeUnknown = false,
  ) {
    super(message);
  }
}

/** Our custom resources as a cluster lists them: autoscalers and metric objects of every kind. */
export interface AutoscalerObjects extends MetricObjectLists {
  autoscalers: KubernetesAutoscaler[];
}

/** A ServerlessHorizontalPodAutoscaler as listed: spec unchecked. */
export interface KubernetesAutoscaler {
  metadata: ObjectMeta & { namespace: string; uid: string };
  spec: unknown;
  status?: unknown;
}

/** What the sync writes to a ServerlessHorizontalPodAutoscaler's status subresource. */
export interface KubernetesAutoscalerStatus extends HorizontalPodAutoscalerStatus {
  /** Display only, for the printer columns: "Deployment/web", "cpu: 72%/60%". */
  reference: string;
  targets: string;
}

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** What the live autoscaler (an autoscaling/v2 HPA, or the one a KEDA ScaledObject owns) says in its status. */
export interface LiveHpaStatus {
  desiredReplicas: number;
  currentReplicas: number;
  lastScaleTime?: string;
}

/** Kinds whose scale a LIST of their apps/v1 objects carries (what GET /scale of each returns). */
export type ListableScaleKind = 'Deployment' | 'StatefulSet' | 'ReplicaSet';

/** One cluster's API as a cycle uses it. Implementations retry within their budget. */
export interface ClusterAccess {
  getScale(namespace: string, ref: CrossVersionObjectReference, signal?: AbortSignal): Promise<ScaleInfo>;
  /**
   * The scale of every object of one apps/v1 kind in a namespace, by name, from one paginated LIST: what GET /scale would return for each.
   * An object whose selector does not convert is left out (its GET /scale is a 400, as upstream's): getScale gives its error.
   */
  listScales(namespace: string, kind: ListableScaleKind, signal?: AbortSignal): Promise<Map<string, ScaleInfo>>;
  /** Writes spec.replicas through /scale; with resourceVersion, a change since that read is a 409 conflict. */
  updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number, resourceVersion?: string, signal?: AbortSignal): Promise<void>;
  /** A namespace's pods; with a label selector, those it selects (a shard holding a part of the namespace). */
  listPods(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodInfo[]>;
  /** Our custom resources, in the given namespaces (all when undefined). */
  listAutoscalerObjects(
    namespaces: string[] | undefined,
    signal?: AbortSignal,
  ): Promise<AutoscalerObjects>;
  /** metadata.generation of one autoscaler object, undefined when it no longer exists. */
  autoscalerGeneration(namespace: string, name: string, signal?: AbortSignal): Promise<number | undefined>;
  writeAutoscalerStatus(namespace: string, name: string, status: KubernetesAutoscalerStatus, signal?: AbortSignal): Promise<void>;
  /** Creates or updates (count, lastTimestamp) the Event for one log entry, as client-go's recorder does. */
  recordEvent(involved: ObjectReference, entry: DecisionLogEntry, signal?: AbortSignal): Promise<void>;
  /** The status of an autoscaling/v2 HorizontalPodAutoscaler, undefined when it does not exist (shadowing, lib/sync/shadow.ts). */
  getLiveHpa?(namespace: string, name: string, signal?: AbortSignal): Promise<LiveHpaStatus | undefined>;
}
