// Bench-only: the workload model's objects dressed as EKS returns them. The model's pods are
// about 1.5 KB of JSON; a pod of an EKS cluster is about 7 KB, mostly fields the autoscaler
// never reads (managedFields, the service-account volume, IRSA env, probes, the node, the
// other conditions). Parsing them is part of what a cycle costs, so the benchmarks serve them.
// Everything is derived from the object itself: the model's mirror re-copies an object only
// when its JSON changes.
import { WorkloadModel } from '../../lib/local/workload-model.js';
import { hash32 } from './stats.js';

type Obj = Record<string, unknown>;

const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/shop/api:2026.11.3-7f3c9e1`;

const hex = (s: string, len: number) => Array.from({ length: Math.ceil(len / 8) }, (_, i) => hash32(`${s}/${i}`).toString(16).padStart(8, '0')).join('').slice(0, len);

/** A managedFields entry as the API server records it (fieldsV1 of the fields a manager set). */
function managed(manager: string, operation: string, time: string, fieldsV1: Obj, subresource?: string): Obj {
  return { manager, operation, apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1, ...(subresource ? { subresource } : {}) };
}

const keys = (names: string[]): Obj => Object.fromEntries(names.map((n) => [`f:${n}`, {}]));

export function eksPod(pod: Obj): Obj {
  const meta = pod.metadata as Obj;
  const spec = pod.spec as { containers: Obj[] };
  const status = pod.status as Obj & { conditions: Obj[]; containerStatuses?: Obj[] };
  const name = String(meta.name);
  const created = String(meta.creationTimestamp);
  const labels = { ...(meta.labels as Obj), 'app.kubernetes.io/part-of': 'shop', 'app.kubernetes.io/managed-by': 'Helm' };
  const node = `ip-10-0-${hash32(name) % 200}-${hash32(`${name}#`) % 250}.ec2.internal`;
  const token = `kube-api-access-${hex(name, 5)}`;
  const env = [
    { name: 'AWS_STS_REGIONAL_ENDPOINTS', value: 'regional' },
    { name: 'AWS_DEFAULT_REGION', value: REGION },
    { name: 'AWS_REGION', value: REGION },
    { name: 'AWS_ROLE_ARN', value: `arn:aws:iam::${ACCOUNT}:role/shop-api-irsa` },
    { name: 'AWS_WEB_IDENTITY_TOKEN_FILE', value: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token' },
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: 'http://otel-collector.observability.svc.cluster.local:4317' },
    { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
  ];
  const probe = (path: string) => ({ httpGet: { path, port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 5, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  const containers = spec.containers.map((c) => ({
    ...c,
    image: IMAGE,
    ports: [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ],
    env,
    resources: { ...(c.resources as Obj), limits: { memory: '512Mi' } },
    volumeMounts: [
      { name: token, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
      { name: 'aws-iam-token', readOnly: true, mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount' },
    ],
    livenessProbe: probe('/healthz'),
    readinessProbe: probe('/ready'),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
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
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'kubectl.kubernetes.io/restartedAt': '2026-11-02T08:14:51Z' },
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
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'shop-api',
      serviceAccount: 'shop-api',
      nodeName: node,
      securityContext: { fsGroup: 65534 },
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: meta.labels as Obj } },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: meta.labels as Obj } },
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

/** A Deployment as `kubectl apply` and the controller leave it: last-applied annotation and managedFields. */
export function eksDeployment(d: Obj): Obj {
  if (d.kind !== 'Deployment') return d;
  const meta = d.metadata as Obj;
  const spec = d.spec as Obj & { template: { spec: { containers: Obj[] } } };
  const applied = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: meta.name, namespace: meta.namespace, labels: { 'app.kubernetes.io/part-of': 'shop' } }, spec: { selector: spec.selector, template: spec.template } };
  return {
    ...d,
    metadata: {
      ...meta,
      labels: { 'app.kubernetes.io/part-of': 'shop', 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { ...(meta.annotations as Obj), 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(applied)}\n`, 'meta.helm.sh/release-name': 'shop', 'meta.helm.sh/release-namespace': String(meta.namespace) },
      managedFields: [
        managed('kubectl-client-side-apply', 'Update', String(meta.creationTimestamp), { 'f:metadata': { 'f:annotations': keys(['kubectl.kubernetes.io/last-applied-configuration']), 'f:labels': {} }, 'f:spec': keys(['progressDeadlineSeconds', 'revisionHistoryLimit', 'selector', 'strategy', 'template']) }),
        managed('kube-controller-manager', 'Update', String(meta.creationTimestamp), { 'f:metadata': { 'f:annotations': keys(['deployment.kubernetes.io/revision']) }, 'f:status': keys(['availableReplicas', 'conditions', 'observedGeneration', 'readyReplicas', 'replicas', 'updatedReplicas']) }, 'status'),
      ],
    },
  };
}

/** The workload model with its pods and Deployments as EKS serves them. */
export class EksWorkloadModel extends WorkloadModel {
  override podObjects(namespace: string): Record<string, unknown>[] {
    return super.podObjects(namespace).map(eksPod);
  }

  override podViews(namespace?: string): ReturnType<WorkloadModel['podViews']> {
    return super.podViews(namespace).map((v) => ({ ...v, object: () => eksPod(v.object()) }));
  }

  override workloadObjects(namespace?: string): Record<string, unknown>[] {
    return super.workloadObjects(namespace).map(eksDeployment);
  }
}
