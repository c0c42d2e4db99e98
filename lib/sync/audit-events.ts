// Edits of our Kubernetes objects, from the cluster's control-plane audit log as a CloudWatch Logs
// subscription delivers it to the events function (gzip, base64, `awslogs.data`): each successful
// create, update or patch of a ServerlessHorizontalPodAutoscaler or CloudWatchMetric becomes an
// evaluation of what it names, as a spec written with `shpa apply` does (upstream 1.37 reconciles
// an HPA at once on create or spec change, kubernetes/kubernetes#138294). Status writes (ours) and
// failed requests are left out; anything else in the log is ignored.
import { gunzipSync } from 'node:zlib';
import { fromSpecChanges, type Planned, type SpecChange } from './event-sources.js';
import type { ClusterConfig } from './ports/cluster-access.js';
import { errorText } from '../shared/error-text.js';

/** What CloudWatch Logs delivers once decoded (DATA_MESSAGE; a CONTROL_MESSAGE has no events). */
export interface LogsDelivery {
  messageType?: string;
  logGroup?: string;
  logEvents?: { id?: string; timestamp?: number; message?: string }[];
}

/** The evaluations a subscription delivery (`awslogs.data`: base64 of gzip of JSON) asks for. */
export function fromAuditLogData(data: string, clusters: ClusterConfig[]): Planned {
  let delivery: LogsDelivery;
  try {
    delivery = JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as LogsDelivery;
  } catch (e) {
    return { messages: [], ignored: [`a CloudWatch Logs delivery that is not base64 of gzip of JSON: ${errorText(e)}`] };
  }
  return fromAuditLog(delivery, clusters);
}

const RESOURCES: Record<string, SpecChange['kind']> = { serverlesshorizontalpodautoscalers: 'hpa', cloudwatchmetrics: 'cwm' };
const EDITS = new Set(['create', 'update', 'patch']);
/** EKS's control-plane log group: /aws/eks/<cluster>/cluster. */
const EKS_LOG_GROUP = /^\/aws\/eks\/([^/]+)\/cluster$/;

/** The evaluations the audit events of one delivery ask for, and what was left out and why (only what looks like a mistake). */
export function fromAuditLog(delivery: LogsDelivery, clusters: ClusterConfig[]): Planned {
  const group = delivery.logGroup ?? '';
  const cluster = EKS_LOG_GROUP.exec(group)?.[1];
  if (!cluster) return { messages: [], ignored: [`log group ${JSON.stringify(group)} is not an EKS control-plane log group (/aws/eks/CLUSTER/cluster)`] };
  const changes: SpecChange[] = [];
  const ignored: string[] = [];
  for (const e of delivery.logEvents ?? []) {
    const change = editOf(e.message, cluster, e.timestamp ?? 0);
    if (typeof change === 'string') ignored.push(change);
    else if (change) changes.push(change);
  }
  const planned = fromSpecChanges(changes, clusters);
  return { messages: planned.messages, ignored: [...ignored, ...planned.ignored] };
}

/** The edit an audit event records; undefined for events that are not one; a string when it cannot be read. */
function editOf(message: string | undefined, cluster: string, loggedAtMs: number): SpecChange | string | undefined {
  let ev: AuditEvent;
  try {
    ev = JSON.parse(message ?? '') as AuditEvent;
  } catch {
    return `an audit log line of cluster ${cluster} is not JSON`;
  }
  const ref = ev.objectRef;
  const kind = ref?.apiGroup === 'shpa.dev' ? RESOURCES[ref.resource ?? ''] : undefined;
  if (!kind || ev.stage !== 'ResponseComplete' || !EDITS.has(ev.verb ?? '') || ref?.subresource) return undefined;
  const code = ev.responseStatus?.code ?? 0;
  if (code < 200 || code >= 300) return undefined;
  // A create's URL names no object: the name is in the response (audit level RequestResponse) or nowhere.
  const name = ref?.name ?? ev.responseObject?.metadata?.name;
  if (!ref?.namespace || !name) return `audit event ${ev.auditID ?? '?'} (${ev.verb} ${ref?.resource}) names no object: set the audit policy level of shpa.dev to RequestResponse, or wait for the next tick`;
  const at = Date.parse(ev.stageTimestamp ?? '');
  return { cluster, namespace: ref.namespace, name, kind, at: new Date(Number.isNaN(at) ? loggedAtMs : at) };
}

/** The fields of an audit.k8s.io/v1 Event read here. */
interface AuditEvent {
  auditID?: string;
  stage?: string;
  verb?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number };
  responseObject?: { metadata?: { name?: string } };
  stageTimestamp?: string;
}
