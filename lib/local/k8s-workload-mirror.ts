// The workload model's objects as stored API objects: Deployments, StatefulSets,
// ReplicaSets, Pods and Namespaces get per-object resourceVersions and watch
// events from the server's ObjectStore. The model is pure and moves with its
// clock, so the mirror copies what changed whenever it is read (or, while
// watches are open, on a timer) — and does nothing while the model has neither
// changed nor reached its next pod transition.
import type { K8sObject, ObjectStore } from './k8s-object-store.js';
import { newUid, timestamp } from './k8s-object-meta.js';
import type { ResourceSpec, Subresource } from './k8s-rest.js';
import { builtInConvertors } from './k8s-table.js';
import type { ResourceType, WorkloadModel } from './workload-model.js';

const DEFAULT_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

const scaleSubresource: Subresource = { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };

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

export class WorkloadMirror {
  readonly specs: ResourceSpec[];
  /** what was last copied, by store key + namespace + name: a pod's state, an object's JSON */
  private readonly copied = new Map<string, { key: string; namespace: string; name: string; stamp: string }>();
  private readonly namespaceCreated = new Map<string, { ms: number; uid: string }>();
  private revision = Number.NaN;
  private nextChange = 0;
  private lastSync = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly model: WorkloadModel,
    private readonly store: ObjectStore,
  ) {
    const started = model.clock.now().getTime();
    for (const ns of DEFAULT_NAMESPACES) this.namespaceCreated.set(ns, { ms: started, uid: newUid() });
    this.specs = mirrored.map((m) => this.spec(m));
  }

  private spec(m: Mirrored): ResourceSpec {
    const fields = m.fields;
    const sample = fields?.({ metadata: { name: '' } }) ?? {};
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
      refresh: () => this.sync(),
    };
  }

  isMirrored(key: string): boolean {
    return this.specs.some((s) => s.key === key);
  }

  /** A namespace used by stored objects exists from then on (no 404 for it, as we create it implicitly). */
  touchNamespace(namespace: string): void {
    if (!namespace || this.namespaceCreated.has(namespace)) return;
    this.namespaceCreated.set(namespace, { ms: this.model.clock.now().getTime(), uid: newUid() });
    this.copyNamespace(namespace);
  }

  /** The resourceVersion a workload's /scale shares with its object; undefined for kinds not mirrored. */
  resourceVersionOf(type: ResourceType, namespace: string, name: string): string | undefined {
    const resource = type.group === 'apps' ? APPS_RESOURCES[type.kind] : undefined;
    if (!resource) return undefined;
    this.sync();
    return this.store.get(keyOf('apps', resource), namespace, name)?.metadata.resourceVersion;
  }

  private copy(key: string, o: K8sObject, stamp: string, seen: Set<string>): void {
    const namespace = o.metadata.namespace ?? '';
    const id = `${key}/${namespace}/${o.metadata.name}`;
    seen.add(id);
    if (this.copied.get(id)?.stamp === stamp) return;
    this.copied.set(id, { key, namespace, name: o.metadata.name, stamp });
    this.store.put(key, o);
  }

  private copyNamespace(name: string, seen = new Set<string>()): void {
    const created = this.namespaceCreated.get(name)!;
    const o: K8sObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, uid: created.uid, creationTimestamp: timestamp(new Date(created.ms)), labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
    this.copy(NAMESPACES, o, created.uid, seen);
  }

  /** Copies what changed in the model since the last call. */
  sync(): void {
    const now = this.model.clock.now().getTime();
    if (this.model.revision === this.revision && now < this.nextChange && now >= this.lastSync) return;
    const seen = new Set<string>();
    for (const p of this.model.podViews()) {
      const id = `${PODS}/${p.namespace}/${p.name}`;
      seen.add(id);
      if (this.copied.get(id)?.stamp === p.state) continue;
      this.copy(PODS, p.object() as unknown as K8sObject, p.state, seen);
    }
    for (const o of this.model.workloadObjects() as unknown as K8sObject[]) {
      this.copy(keyOf('apps', APPS_RESOURCES[String(o.kind)]), o, JSON.stringify(o), seen);
    }
    for (const ns of this.model.namespaces()) if (!this.namespaceCreated.has(ns.name)) this.namespaceCreated.set(ns.name, { ms: ns.createdMs, uid: newUid() });
    for (const ns of this.namespaceCreated.keys()) this.copyNamespace(ns, seen);
    for (const [id, c] of this.copied) {
      if (seen.has(id)) continue;
      this.copied.delete(id);
      this.store.delete(c.key, c.namespace, c.name);
    }
    this.revision = this.model.revision;
    this.nextChange = this.model.nextChangeMs();
    this.lastSync = now;
  }
}
