// Bench-only: the workload model's objects dressed as EKS returns them. The model's pods are
// about 1.5 KB of JSON; a pod of an EKS cluster is about 7 KB, mostly fields the autoscaler
// never reads (managedFields, the service-account volume, IRSA env, probes, the node, the
// other conditions). Its Deployments, StatefulSets and ReplicaSets carry the same pod template,
// the last-applied annotation with their whole spec, and managedFields (about 7 KB a
// Deployment). Parsing them is part of what a cycle costs, so the benchmarks serve them.
// Everything is derived from the object itself, so the model's mirror dresses an object only
// when the model says it changed (its view's stamp).
import { WorkloadModel, type WorkloadView } from '../../lib/local/kubernetes/workload-model.js';
import { hash32 } from './stats.js';

type Obj = Record<string, unknown>;

const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/shop/api:2026.11.3-7f3c9e1`;
/** What the Helm chart puts on every object and pod. */
const CHART_LABELS = { 'app.kubernetes.io/part-of': 'shop', 'app.kubernetes.io/managed-by': 'Helm' };
const POD_ANNOTATIONS = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'kubectl.kubernetes.io/restartedAt': '2026-11-02T08:14:51Z' };
/** The env the chart declares; the EKS pod identity webhook adds IRSA's to each pod. */
const APP_ENV = [
  { name: 'LOG_LEVEL', value: 'info' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability.svc.cluster.local:4317' },
  { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
];
const IRSA_ENV = [
  { name: 'AWS_STS_REGIONAL_ENDPOINTS', value: 'regional' },
  { name: 'AWS_DEFAULT_REGION', value: REGION },
  { name: 'AWS_REGION', value: REGION },
  { name: 'AWS_ROLE_ARN', value: `arn:aws:iam::${ACCOUNT}:role/shop-api-irsa` },
  { name: 'AWS_WEB_IDENTITY_TOKEN_FILE', value: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token' },
];

const hex = (s: string, len: number) => Array.from({ length: Math.ceil(len / 8) }, (_, i) => hash32(`${s}/${i}`).toString(16).padStart(8, '0')).join('').slice(0, len);

/** A managedFields entry as the API server records it (fieldsV1 of the fields a manager set). */
function managed(manager: string, operation: string, time: string, fieldsV1: Obj, subresource?: string, apiVersion = 'v1'): Obj {
  return { manager, operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1, ...(subresource ? { subresource } : {}) };
}

const keys = (names: string[]): Obj => Object.fromEntries(names.map((n) => [`f:${n}`, {}]));
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The key a list item has in fieldsV1 (k:{...}): what the list's merge key is in the API's schema. */
function listKey(item: Obj): Obj {
  if ('containerPort' in item) return { containerPort: item.containerPort, protocol: item.protocol ?? 'TCP' };
  for (const k of ['name', 'type', 'topologyKey', 'key', 'ip']) if (k in item) return { [k]: item[k] };
  return item;
}

/** fieldsV1 of everything a value sets: maps by field, lists of objects by their merge key, other lists whole. */
function fieldsOf(v: unknown): Obj {
  if (Array.isArray(v)) return v.every(isObj) ? Object.fromEntries(v.map((item) => [`k:${JSON.stringify(listKey(item))}`, { '.': {}, ...fieldsOf(item) }])) : {};
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [`f:${k}`, isObj(x) && Object.keys(x).length > 0 ? { '.': {}, ...fieldsOf(x) } : fieldsOf(x)]));
  return {};
}

const probe = (path: string) => ({ httpGet: { path, port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 5, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });

/** A container as the chart declares it, with the API server's defaults. */
function appContainer(c: Obj): Obj {
  return {
    ...c,
    image: IMAGE,
    ports: [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    env: APP_ENV,
    resources: { ...(c.resources as Obj), limits: { memory: '512Mi' } },
    livenessProbe: probe('/healthz'),
    readinessProbe: probe('/ready'),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
  };
}

/** The pod spec the chart declares (a pod template's, and the start of each pod's), with the API server's defaults. */
function appPodSpec(containers: Obj[], spread: Obj): Obj {
  return {
    containers: containers.map(appContainer),
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'shop-api',
    serviceAccount: 'shop-api',
    securityContext: { fsGroup: 65534 },
    schedulerName: 'default-scheduler',
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: spread } },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: spread } },
    ],
  };
}

export function eksPod(pod: Obj): Obj {
  const meta = pod.metadata as Obj;
  const spec = pod.spec as { containers: Obj[] };
  const status = pod.status as Obj & { conditions: Obj[]; containerStatuses?: Obj[] };
  const name = String(meta.name);
  const created = String(meta.creationTimestamp);
  const labels = { ...(meta.labels as Obj), ...CHART_LABELS };
  const node = `ip-10-0-${hash32(name) % 200}-${hash32(`${name}#`) % 250}.ec2.internal`;
  const token = `kube-api-access-${hex(name, 5)}`;
  const app = appPodSpec(spec.containers, meta.labels as Obj);
  const containers = (app.containers as Obj[]).map((c) => ({
    ...c,
    env: [...IRSA_ENV, ...APP_ENV],
    volumeMounts: [
      { name: token, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
      { name: 'aws-iam-token', readOnly: true, mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount' },
    ],
  }));
  const conditionFields = Object.fromEntries(
    ['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready'].map((t) => [`k:{"type":"${t}"}`, { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} }]),
  );
  const ready = status.conditions.find((c) => c.type === 'Ready') ?? { status: 'False', lastTransitionTime: created };
  return {
    ...pod,
    metadata: {
      ...meta,
      generateName: name.slice(0, name.lastIndexOf('-') + 1),
      labels,
      annotations: POD_ANNOTATIONS,
      managedFields: [
        managed('kube-controller-manager', 'Update', created, {
          'f:metadata': { 'f:annotations': keys(['kubectl.kubernetes.io/restartedAt', 'prometheus.io/port', 'prometheus.io/scrape']), 'f:generateName': {}, 'f:labels': keys(Object.keys(labels)), 'f:ownerReferences': {} },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': keys(['env', 'image', 'imagePullPolicy', 'livenessProbe', 'name', 'ports', 'readinessProbe', 'resources', 'securityContext', 'terminationMessagePath', 'terminationMessagePolicy']) }, 'f:dnsPolicy': {}, 'f:enableServiceLinks': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:serviceAccount': {}, 'f:serviceAccountName': {}, 'f:terminationGracePeriodSeconds': {} },
        }),
        managed('kubelet', 'Update', String(ready.lastTransitionTime), { 'f:status': { 'f:conditions': conditionFields, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:hostIPs': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': {}, 'f:startTime': {} } }, 'status'),
      ],
    },
    spec: {
      ...spec,
      ...app,
      volumes: [
        { name: 'aws-iam-token', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { audience: 'sts.amazonaws.com', expirationSeconds: 86400, path: 'token' } }] } },
        {
          name: token,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
      containers,
      nodeName: node,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      ...status,
      conditions: [
        { type: 'PodReadyToStartContainers', status: status.phase === 'Running' ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: ready.lastTransitionTime },
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: created },
        ...status.conditions.map((c) => ({ lastProbeTime: null, ...c })),
        { type: 'ContainersReady', status: ready.status, lastProbeTime: null, lastTransitionTime: ready.lastTransitionTime },
      ],
      hostIP: `10.0.${hash32(node) % 200}.${hash32(`${node}#`) % 250}`,
      hostIPs: [{ ip: `10.0.${hash32(node) % 200}.${hash32(`${node}#`) % 250}` }],
      containerStatuses: (status.containerStatuses ?? []).map((c) => ({
        ...c,
        image: IMAGE,
        imageID: `${IMAGE.split(':')[0]}@sha256:${hex(IMAGE, 64)}`,
        volumeMounts: [
          { name: token, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' },
          { name: 'aws-iam-token', mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' },
        ],
      })),
    },
  };
}

/** A pod template as the chart declares it. */
function eksTemplate(template: Obj): Obj {
  const meta = template.metadata as Obj;
  const spec = template.spec as { containers: Obj[] };
  return { metadata: { labels: { ...(meta.labels as Obj), ...CHART_LABELS }, annotations: POD_ANNOTATIONS }, spec: appPodSpec(spec.containers, meta.labels as Obj) };
}

/** What a StatefulSet of the chart adds: a volume per pod. */
const STATEFUL = {
  volumeClaimTemplates: [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp3', resources: { requests: { storage: '20Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    },
  ],
  persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
};

/**
 * A Deployment, StatefulSet or ReplicaSet as EKS serves it: applied with `kubectl apply` by the
 * chart (last-applied annotation with its whole spec but the replicas an autoscaler owns) or,
 * for a Deployment's ReplicaSet, made by the controller; the pod template dressed as the pods
 * are; managedFields of each manager, the scale's once it has been scaled.
 */
export function eksWorkload(o: Obj): Obj {
  const kind = String(o.kind);
  if (kind !== 'Deployment' && kind !== 'StatefulSet' && kind !== 'ReplicaSet') return o;
  const meta = o.metadata as Obj;
  const created = String(meta.creationTimestamp);
  const { replicas, ...declared } = { ...(o.spec as Obj & { template: Obj }) };
  const spec: Obj = { ...declared, template: eksTemplate(declared.template as Obj), ...(kind === 'StatefulSet' ? STATEFUL : {}) };
  const status = (o.status ?? {}) as Obj;
  const statusFields = managed('kube-controller-manager', 'Update', created, { 'f:status': fieldsOf(status) }, 'status', 'apps/v1');
  const owner = (meta.ownerReferences as Obj[] | undefined)?.[0];
  if (owner) {
    const labels = { ...(meta.labels as Obj), ...CHART_LABELS };
    const metadata = { ...meta, labels };
    const byController = { 'f:metadata': { 'f:annotations': { '.': {}, ...keys(Object.keys(meta.annotations as Obj)) }, 'f:labels': { '.': {}, ...keys(Object.keys(labels)) }, 'f:ownerReferences': fieldsOf(meta.ownerReferences) }, 'f:spec': fieldsOf({ replicas, ...spec }) };
    return { ...o, metadata: { ...metadata, managedFields: [managed('kube-controller-manager', 'Update', created, byController, undefined, 'apps/v1'), statusFields] }, spec: { replicas, ...spec } };
  }
  const labels = { ...CHART_LABELS, 'app.kubernetes.io/name': String(meta.name), 'helm.sh/chart': 'shop-api-4.2.0' };
  const release = { 'meta.helm.sh/release-name': 'shop', 'meta.helm.sh/release-namespace': String(meta.namespace) };
  const applied = { apiVersion: 'apps/v1', kind, metadata: { annotations: release, labels, name: meta.name, namespace: meta.namespace }, spec };
  const annotations = { ...(meta.annotations as Obj), 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(applied)}\n`, ...release };
  const managedFields = [
    managed(
      'kubectl-client-side-apply',
      'Update',
      created,
      { 'f:metadata': { 'f:annotations': { '.': {}, ...keys(['kubectl.kubernetes.io/last-applied-configuration', ...Object.keys(release)]) }, 'f:labels': { '.': {}, ...keys(Object.keys(labels)) } }, 'f:spec': fieldsOf(spec) },
      undefined,
      'apps/v1',
    ),
    ...(kind === 'Deployment' ? [managed('kube-controller-manager', 'Update', created, { 'f:metadata': { 'f:annotations': keys(['deployment.kubernetes.io/revision']) } }, undefined, 'apps/v1')] : []),
    statusFields,
    // a write of /scale since it was applied (generation counts spec changes)
    ...(Number(meta.generation) > 1 ? [managed('serverless-hpa', 'Update', created, { 'f:spec': { 'f:replicas': {} } }, 'scale', 'apps/v1')] : []),
  ];
  return { ...o, metadata: { ...meta, labels, annotations, managedFields }, spec: { replicas, ...spec } };
}

/** The workload model with its pods, Deployments, StatefulSets and ReplicaSets as EKS serves them. */
export class EksWorkloadModel extends WorkloadModel {
  override podObjects(namespace: string): Record<string, unknown>[] {
    return super.podObjects(namespace).map(eksPod);
  }

  // `since` passed on: without it every /scale write copied the whole namespace (the API server the bottleneck measured).
  override podViews(namespace?: string, since?: number): ReturnType<WorkloadModel['podViews']> {
    return super.podViews(namespace, since).map((v) => ({ ...v, object: () => eksPod(v.object()) }));
  }

  override workloadObjects(namespace?: string): Record<string, unknown>[] {
    return super.workloadObjects(namespace).map(eksWorkload);
  }

  override workloadViews(namespace?: string, since?: number): WorkloadView[] {
    return super.workloadViews(namespace, since).map((v) => ({ ...v, object: () => eksWorkload(v.object()) }));
  }
}
