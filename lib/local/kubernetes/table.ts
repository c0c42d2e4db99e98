// meta.k8s.io/v1 Tables, as kube-apiserver converts objects when kubectl asks
// for `as=Table`: built-in kinds with the columns of pkg/printers/internalversion
// (always "wide": kubectl hides priority > 0), custom resources with their CRD's
// additionalPrinterColumns (apiextensions tableconvertor), anything else with
// Name and Created At (rest.NewDefaultTableConvertor).
import { fromLabelSelector, type LabelSelector, selectorToString } from '#hpa';
import { compileJsonPath, evaluate, JsonPathError, printValue } from './jsonpath.js';
import type { K8sObject } from './object-store.js';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableConvertor {
  columns: ColumnDefinition[];
  cells(o: K8sObject, now: Date): unknown[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface CustomColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const NAME_DOC = 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

function col(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

const nameColumn = col('Name', 'string', NAME_DOC, 0, 'name');

/** apimachinery duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(seconds / 3600);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.trunc(hours / 24) % 365;
    return d === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${d}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** printers' translateTimestampSince: "<unknown>" for a zero time. */
export function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || !timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const int = (v: unknown): number => (typeof v === 'number' ? Math.trunc(v) : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function containerCells(template: unknown): [string, string] {
  const containers = arr(obj(obj(template).spec).containers).map(obj);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

function selectorCell(selector: unknown): string {
  try {
    return selectorToString(fromLabelSelector(selector as LabelSelector));
  } catch {
    return '<invalid>';
  }
}

const CONTAINERS_DOC = 'Names of each container in the template.';
const IMAGES_DOC = 'Images referenced by each container in the template.';

const deployments: TableConvertor = {
  columns: [
    nameColumn,
    col('Ready', 'string', 'Number of the pod with ready state'),
    col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    col('Age', 'string', AGE_DOC),
    col('Containers', 'string', CONTAINERS_DOC, 1),
    col('Images', 'string', IMAGES_DOC, 1),
    col('Selector', 'string', 'Label selector for pods.', 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return [
      o.metadata.name,
      `${int(status.readyReplicas)}/${int(spec.replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      since(o.metadata.creationTimestamp, now),
      ...containerCells(spec.template),
      selectorCell(spec.selector),
    ];
  },
};

const replicaSets: TableConvertor = {
  columns: [
    nameColumn,
    col('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    col('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    col('Age', 'string', AGE_DOC),
    col('Containers', 'string', CONTAINERS_DOC, 1),
    col('Images', 'string', IMAGES_DOC, 1),
    col('Selector', 'string', 'Selector is a label query over pods that should match the replica count.', 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return [
      o.metadata.name,
      int(spec.replicas),
      int(status.replicas),
      int(status.readyReplicas),
      since(o.metadata.creationTimestamp, now),
      ...containerCells(spec.template),
      selectorCell(spec.selector),
    ];
  },
};

const statefulSets: TableConvertor = {
  columns: [nameColumn, col('Ready', 'string', 'Number of the pod with ready state'), col('Age', 'string', AGE_DOC), col('Containers', 'string', CONTAINERS_DOC, 1), col('Images', 'string', IMAGES_DOC, 1)],
  cells(o, now) {
    const spec = obj(o.spec);
    return [o.metadata.name, `${int(obj(o.status).readyReplicas)}/${int(spec.replicas)}`, since(o.metadata.creationTimestamp, now), ...containerCells(spec.template)];
  },
};

/** printPod, for pods without init containers. */
const pods: TableConvertor = {
  columns: [
    nameColumn,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    col('Age', 'string', AGE_DOC),
    col('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
    col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    let reason = str(status.reason) || str(status.phase);
    let ready = 0;
    let restarts = 0;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses).map(obj);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      const state = obj(c.state);
      restarts += int(c.restartCount);
      const waiting = obj(state.waiting);
      const terminated = state.terminated === undefined ? undefined : obj(state.terminated);
      if (str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated && str(terminated.reason)) reason = str(terminated.reason);
      else if (terminated) reason = int(terminated.signal) ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      else if (c.ready === true && state.running !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = arr(status.conditions).some((c) => obj(c).type === 'Ready' && obj(c).status === 'True') ? 'Running' : 'NotReady';
    const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
    if (o.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
    else if (o.metadata.deletionTimestamp && !terminal) reason = 'Terminating';
    const podIP = str(obj(arr(status.podIPs)[0]).ip);
    return [
      o.metadata.name,
      `${ready}/${arr(spec.containers).length}`,
      reason,
      String(restarts),
      since(o.metadata.creationTimestamp, now),
      podIP || '<none>',
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      '<none>',
    ];
  },
};

const namespaces: TableConvertor = {
  columns: [nameColumn, col('Status', 'string', 'The status of the namespace'), col('Age', 'string', AGE_DOC)],
  cells: (o, now) => [o.metadata.name, str(obj(o.status).phase), since(o.metadata.creationTimestamp, now)],
};

/** printEvent. */
const events: TableConvertor = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col('Object', 'string', 'The object that this event is about.'),
    col('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
    col('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    col('Count', 'string', 'The number of times this event has occurred.', 1),
    col('Name', 'string', NAME_DOC, 1, 'name'),
  ],
  cells(o, now) {
    const involved = obj(o.involvedObject);
    const source = obj(o.source);
    let first = since(o.firstTimestamp, now);
    if (!o.firstTimestamp) first = since(o.eventTime, now);
    let last = o.lastTimestamp ? since(o.lastTimestamp, now) : first;
    let count = int(o.count);
    const series = o.series === undefined || o.series === null ? undefined : obj(o.series);
    if (series) {
      last = since(series.lastObservedTime, now);
      count = int(series.count);
    } else if (count === 0) count = 1;
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
    const component = str(source.component) || str(o.reportingComponent);
    const instance = str(source.host) || str(o.reportingInstance);
    return [
      last,
      str(o.type),
      str(o.reason),
      target,
      str(involved.fieldPath),
      instance ? `${component}, ${instance}` : component,
      str(o.message).trim(),
      first,
      count,
      o.metadata.name,
    ];
  },
};

/** Tables of the built-in kinds, by `group/resource`. */
export const builtInConvertors: Record<string, TableConvertor> = {
  'apps/deployments': deployments,
  'apps/replicasets': replicaSets,
  'apps/statefulsets': statefulSets,
  '/pods': pods,
  '/namespaces': namespaces,
  '/events': events,
};

export const defaultConvertor: TableConvertor = {
  columns: [nameColumn, col('Created At', 'date', AGE_DOC)],
  cells: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? null],
};

/** apiextensions tableconvertor.cellForJSONValue. */
function cellForJsonValue(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, now);
    default:
      return null;
  }
}

/** A CRD version's printer columns (none: an Age column, as v1 CRDs default them). */
export function customResourceConvertor(columns: readonly CustomColumn[] | undefined): TableConvertor {
  const defs = columns?.length ? columns : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  const paths = defs.map((c) => {
    try {
      return compileJsonPath(c.jsonPath);
    } catch (e) {
      if (e instanceof JsonPathError) return undefined; // upstream: the column prints nothing
      throw e;
    }
  });
  return {
    columns: [
      nameColumn,
      ...defs.map((c) => col(c.name, c.type, c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, c.priority ?? 0, c.format ?? '')),
    ],
    cells(o, now) {
      return [
        o.metadata.name,
        ...defs.map((c, i) => {
          const path = paths[i];
          const found = path ? evaluate(o, path) : [];
          if (found.length === 0) return null;
          return c.type === 'string' ? printValue(found[0]) : cellForJsonValue(c.type, found[0], now);
        }),
      ];
    },
  };
}

export interface TableOptions {
  includeObject: IncludeObject;
  noHeaders?: boolean;
  /** meta.k8s.io version asked for: v1 or v1beta1 */
  version?: string;
}

function rowObject(o: K8sObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export function toTable(
  conv: TableConvertor,
  objects: readonly K8sObject[],
  listMeta: Record<string, unknown>,
  opts: TableOptions,
  now: Date,
): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version ?? 'v1'}`,
    metadata: listMeta,
    columnDefinitions: opts.noHeaders ? null : conv.columns,
    rows: objects.map((o) => {
      const object = rowObject(o, opts.includeObject);
      return { cells: conv.cells(o, now), ...(object ? { object } : {}) };
    }),
  };
}
