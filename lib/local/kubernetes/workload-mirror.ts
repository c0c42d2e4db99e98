// The workload model's objects as stored API objects: Deployments, StatefulSets,
// ReplicaSets, Pods and Namespaces get per-object resourceVersions and watch
// events from the server's ObjectStore. The model is pure and moves with its
// clock, so the mirror copies what changed whenever it is read (or, while
// watches are open, on a timer) — and does nothing while the model has neither
// changed nor reached its next pod transition.
import { fromLabelSelector, type LabelSelector, selectorToString } from '#hpa';
import type { K8sObject, ObjectStore } from './object-store.js';
import { newUid, timestamp } from './object-meta.js';
import type { ResourceSpec, Subresource } from './rest.js';
import { builtInConvertors } from './table.js';
import type { ResourceType, WorkloadModel } from './workload-model.js';

const DEFAULT_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** /scale of a scalable kind, as discovery lists it. */
export const scaleSubresource: Subresource = { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };

type Obj = Record<string, unknown>;
const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Obj)[k] : undefined), o);
const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

function metaFields(o: K8sObject, namespaced: boolean): Record<string, string> {
  return namespaced ? { 'metadata.name': o.metadata.name, 'metadata.namespace': o.metadata.namespace ?? '' } : { 'metadata.name': o.metadata.name };
}

interface Mirrored {
  group: string;
  resource: string;
  kind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories?: string[];
  scale?: boolean;
  /** fieldSelector labels beyond metadata.name/namespace (the kind's field label conversion) */
  fields?: (o: K8sObject) => Record<string, string>;
}

const mirrored: Mirrored[] = [
  { group: 'apps', resource: 'deployments', kind: 'Deployment', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], scale: true },
  { group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], scale: true },
  {
    group: 'apps',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    singular: 'replicaset',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    scale: true,
    fields: (o) => ({ 'status.replicas': text(get(o, 'status', 'replicas') ?? 0) }),
  },
  {
    group: '',
    resource: 'pods',
    kind: 'Pod',
    singular: 'pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    fields: (o) => ({
      'spec.nodeName': text(get(o, 'spec', 'nodeName')),
      'spec.restartPolicy': text(get(o, 'spec', 'restartPolicy')),
      'spec.schedulerName': text(get(o, 'spec', 'schedulerName')),
      'spec.serviceAccountName': text(get(o, 'spec', 'serviceAccountName')),
      'spec.hostNetwork': text(get(o, 'spec', 'hostNetwork') ?? false),
      'status.phase': text(get(o, 'status', 'phase')),
      'status.podIP': text(get(o, 'status', 'podIP')),
      'status.nominatedNodeName': text(get(o, 'status', 'nominatedNodeName')),
    }),
  },
  { group: '', resource: 'namespaces', kind: 'Namespace', singular: 'namespace', namespaced: false, shortNames: ['ns'], fields: (o) => ({ 'status.phase': text(get(o, 'status', 'phase')) }) },
];

const keyOf = (group: string, resource: string) => `${group}/${resource}`;
const PODS = keyOf('', 'pods');
const NAMESPACES = keyOf('', 'namespaces');
const APPS_RESOURCES: Record<string, string> = { Deployment: 'deployments', StatefulSet: 'statefulsets', ReplicaSet: 'replicasets' };

/** What the mirror last copied of one part (pods, or apps objects) of a namespace. */
interface PartCopy {
  revision: number;
  /** the model's clock at the copy, and the next pod transition after it */
  at: number;
  nextChange: number;
  /** the model's count of pods gone at the copy */
  gone: number;
  /** each copied object, by store key and name, with its stamp: what changes with it */
  copied: Map<string, Copied>;
}

interface Copied {
  key: string;
  name: string;
  stamp: string | number;
}

type Part = 'pods' | 'apps';

export class WorkloadMirror {
  readonly specs: ResourceSpec[];
  private readonly copies = new Map<string, PartCopy>();
  private readonly namespaceObjects = new Map<string, { ms: number; uid: string; copied: boolean }>();

  constructor(
    private readonly model: WorkloadModel,
    private readonly store: ObjectStore,
  ) {
    const started = model.clock.now().getTime();
    for (const ns of DEFAULT_NAMESPACES) this.namespaceObjects.set(ns, { ms: started, uid: newUid(), copied: false });
    this.specs = mirrored.map((m) => this.spec(m));
  }

  private spec(m: Mirrored): ResourceSpec {
    const fields = m.fields;
    const sample = fields?.({ metadata: { name: '' } }) ?? {};
    const namespaces = m.resource === 'namespaces';
    return {
      group: m.group,
      version: 'v1',
      resource: m.resource,
      kind: m.kind,
      listKind: `${m.kind}List`,
      singular: m.singular,
      namespaced: m.namespaced,
      shortNames: m.shortNames,
      categories: m.categories,
      key: keyOf(m.group, m.resource),
      verbs: ['get', 'list', 'watch'],
      subresources: m.scale ? [scaleSubresource] : [],
      selectableFields: new Set([...Object.keys(metaFields({ metadata: { name: '' } }, m.namespaced)), ...Object.keys(sample)]),
      fieldsOf: (o) => ({ ...metaFields(o, m.namespaced), ...fields?.(o) }),
      table: builtInConvertors[keyOf(m.group, m.resource)],
      refresh: (namespace) => {
        if (namespaces) this.syncNamespaceObjects();
        else if (namespace) this.syncPart(namespace, m.group === 'apps' ? 'apps' : 'pods');
        else this.sync();
      },
    };
  }

  isMirrored(key: string): boolean {
    return this.specs.some((s) => s.key === key);
  }

  /** A namespace used by stored objects exists from then on (we create namespaces implicitly). */
  touchNamespace(namespace: string): void {
    if (!namespace || this.namespaceObjects.has(namespace)) return;
    this.namespaceObjects.set(namespace, { ms: this.model.clock.now().getTime(), uid: newUid(), copied: false });
    this.syncNamespaceObjects();
  }

  /**
   * The autoscaling/v1 Scale of a mirrored apps/v1 object (a Deployment's ReplicaSet too), made
   * from the object as kube-apiserver's scaleFromDeployment and its twins make it
   * (pkg/registry/apps/{deployment,statefulset,replicaset}/storage/storage.go, release-1.35), so
   * a LIST of the objects and GET /scale of each agree. Throws the SelectorError of a selector
   * that does not convert; undefined for kinds not mirrored, null when there is no such object.
   */
  scaleOf(type: ResourceType, namespace: string, name: string): Record<string, unknown> | null | undefined {
    const resource = type.group === 'apps' ? APPS_RESOURCES[type.kind] : undefined;
    if (!resource) return undefined;
    this.syncPart(namespace, 'apps');
    const o = this.store.get(keyOf('apps', resource), namespace, name);
    if (!o) return null;
    const selector = selectorToString(fromLabelSelector(get(o, 'spec', 'selector') as LabelSelector | undefined));
    const { uid, resourceVersion, creationTimestamp } = o.metadata;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
      // autoscaling/v1 omits a zero spec.replicas and an empty selector (omitempty)
      spec: get(o, 'spec', 'replicas') ? { replicas: get(o, 'spec', 'replicas') } : {},
      status: { replicas: get(o, 'status', 'replicas') ?? 0, ...(selector ? { selector } : {}) },
    };
  }

  /** Copies a namespace (after a write to its workloads: new pods are seen Pending, as the controllers create them). */
  written(namespace: string): void {
    this.syncPart(namespace, 'apps');
    this.syncPart(namespace, 'pods');
  }

  /** Copies what changed in every namespace. */
  sync(): void {
    this.syncNamespaceObjects();
    for (const ns of this.model.namespaces()) this.written(ns.name);
  }

  private syncNamespaceObjects(): void {
    for (const ns of this.model.namespaces()) if (!this.namespaceObjects.has(ns.name)) this.namespaceObjects.set(ns.name, { ms: ns.createdMs, uid: newUid(), copied: false });
    for (const [name, n] of this.namespaceObjects) {
      if (n.copied) continue;
      n.copied = true;
      this.store.put(NAMESPACES, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, uid: n.uid, creationTimestamp: timestamp(new Date(n.ms)), labels: { 'kubernetes.io/metadata.name': name } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    }
  }

  /**
   * Copies what changed in one part of a namespace: nothing unless the model
   * changed a workload there or the clock reached a pod's next transition.
   */
  private syncPart(namespace: string, part: Part): void {
    const now = this.model.clock.now().getTime();
    const revision = this.model.revisionOf(namespace);
    const gone = this.model.podsGoneCount();
    const id = `${namespace}/${part}`;
    const last = this.copies.get(id);
    const sameTime = last !== undefined && now < last.nextChange && now >= last.at && gone === last.gone;
    if (sameTime && last.revision === revision) return;
    // No pod changed with time and none left: only workloads changed since the copy (a /scale write) need a look,
    // so a write costs what it touches, not the namespace (kube-apiserver's watch cache serves O(change) too).
    const since = sameTime ? last.revision : -1;
    const copied = last?.copied ?? new Map<string, Copied>();
    const seen = new Set<string>();
    const copy = (key: string, name: string, stamp: string | number, object: () => unknown) => {
      const objectId = `${key}/${name}`;
      seen.add(objectId);
      if (copied.get(objectId)?.stamp === stamp) return;
      copied.set(objectId, { key, name, stamp });
      this.store.put(key, object() as K8sObject);
    };
    if (part === 'pods') for (const p of this.model.podViews(namespace, since)) copy(PODS, p.name, p.state, p.object);
    else for (const o of this.model.workloadViews(namespace, since)) copy(keyOf('apps', APPS_RESOURCES[o.kind]), o.name, o.stamp, o.object);
    if (since < 0) {
      for (const [objectId, c] of copied) {
        if (seen.has(objectId)) continue;
        copied.delete(objectId);
        this.store.delete(c.key, namespace, c.name);
      }
    }
    const nextChange = since < 0 ? this.model.nextChangeMs(namespace) : Math.min(last?.nextChange ?? Infinity, this.model.nextChangeMs(namespace, since));
    this.copies.set(id, { revision, at: since < 0 ? now : (last?.at ?? now), nextChange, gone, copied });
  }
}
