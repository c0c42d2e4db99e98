#!/usr/bin/env node
// Kubernetes RBAC for serverless-hpa: what the worker does in a cluster, nothing more, in
// the namespaces it may act in. Prints the manifests to apply in each cluster:
//
//   node infra/rbac.cjs | kubectl apply -f -                        # every namespace (= infra/rbac.yaml)
//   node infra/rbac.cjs --namespaces web,jobs | kubectl apply -f -  # only these (the cluster's allowlist)
//   node infra/rbac.cjs --scale example.com/workers ...             # and the scale subresource of a custom kind
//
// The EKS access entry (the stack's, or infra/cross-account-cluster-access.yaml) maps the
// worker's role to the group shpa:autoscaler, bound here to the ClusterRole shpa-autoscaler:
// by one ClusterRoleBinding (all namespaces), or by one RoleBinding per allowlisted namespace,
// so that a spec naming another namespace (kube-system/coredns) is refused by the API server
// as well as by the function. No aggregation: nothing else can extend the role.
'use strict';

const { Document, isScalar, visit } = require('yaml');

const GROUP = 'shpa:autoscaler';
const ROLE = 'shpa-autoscaler';
const LABELS = { 'app.kubernetes.io/name': 'serverless-hpa' };
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SCALE_RESOURCE = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

/** The ClusterRole's rules, each with why the worker needs it (a comment in the YAML). */
const RULES = [
  ['the scale subresource of the built-in scalable kinds: read, and merge-patch spec.replicas', { apiGroups: ['apps'], resources: ['deployments/scale', 'statefulsets/scale', 'replicasets/scale'], verbs: ['get', 'patch'] }],
  [null, { apiGroups: [''], resources: ['replicationcontrollers/scale'], verbs: ['get', 'patch'] }],
  [
    'Deployments, StatefulSets and ReplicaSets, listed: one list per namespace and kind gives the scale of each, instead of one GET /scale per autoscaler (kept for other kinds, and as the fallback)',
    { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'replicasets'], verbs: ['list'] },
  ],
  [
    'the pods of a target, by its selector, for Resource metrics (readiness, start time, phase): one list per namespace per cycle',
    { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  ],
  ['pod resource usage (metrics-server): one PodMetrics list per namespace per cycle', { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['list'] }],
  ['Pods and Object metrics: GET namespaces/<ns>/<resource>/<name>/<metric>', { apiGroups: ['custom.metrics.k8s.io'], resources: ['*'], verbs: ['get'] }],
  ['External metrics: GET namespaces/<ns>/<metric> is a list request', { apiGroups: ['external.metrics.k8s.io'], resources: ['*'], verbs: ['list'] }],
  [
    'autoscalers defined as Kubernetes objects (infra/crds/): one list per shard per cycle; a get of one before acting on it (its spec unchanged)',
    { apiGroups: ['shpa.dev'], resources: ['serverlesshorizontalpodautoscalers', 'cloudwatchmetrics', 'prometheusmetrics', 'sqsqueuemetrics'], verbs: ['get', 'list'] },
  ],
  [null, { apiGroups: ['shpa.dev'], resources: ['serverlesshorizontalpodautoscalers/status'], verbs: ['patch'] }],
  ['events on those objects, as the HPA controller records them', { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }],
  ['the live HPA an autoscaler shadows (shpa.dev/shadow-of, docs/migrate.md): its status, read', { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['get'] }],
];

/** The manifests, as objects. namespaces: the allowlist (empty: every namespace); scaleResources: "group/resource" of custom scalable kinds. */
function rbacManifests({ namespaces = [], scaleResources = [] } = {}) {
  for (const ns of namespaces) if (!NAMESPACE.test(ns)) throw new Error(`--namespaces: not a namespace name: ${JSON.stringify(ns)}`);
  if (new Set(namespaces).size !== namespaces.length) throw new Error('--namespaces: a namespace is listed twice');
  const custom = scaleResources.map((r) => {
    const m = SCALE_RESOURCE.exec(r);
    if (!m) throw new Error(`--scale: expected group/resource (plural, lower case), e.g. example.com/workers, got ${JSON.stringify(r)}`);
    return { apiGroups: [m[1]], resources: [`${m[3]}/scale`], verbs: ['get', 'patch'] };
  });
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: ROLE, labels: LABELS }, rules: [...RULES.map(([, rule]) => rule), ...custom] };
  const binding = (kind, metadata) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { ...metadata, labels: LABELS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: GROUP }],
  });
  if (namespaces.length === 0) return [role, binding('ClusterRoleBinding', { name: ROLE })];
  return [role, ...namespaces.map((namespace) => binding('RoleBinding', { name: ROLE, namespace }))];
}

function rbacYaml(options = {}) {
  const scope = options.namespaces?.length ? `namespaces ${options.namespaces.join(', ')}` : 'every namespace';
  const header = `# serverless-hpa RBAC for ${scope}: generated by infra/rbac.cjs (docs/deploy.md, "Cluster access").\n`;
  const docs = rbacManifests(options).map((m) => {
    const doc = new Document(m);
    // lists of names on one line: [get, patch]
    visit(doc, { Seq: (_k, node) => void (node.items.every(isScalar) && (node.flow = true)) });
    if (m.kind === 'ClusterRole') {
      const rules = doc.get('rules');
      RULES.forEach(([why], i) => why && (rules.items[i].commentBefore = ` ${why}`));
    }
    return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  });
  return header + docs.join('---\n');
}

function parseArgs(argv) {
  const out = { namespaces: [], scaleResources: [] };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--namespaces') out.namespaces.push(...value().split(',').map((s) => s.trim()).filter(Boolean));
    else if (flag === '--scale') out.scaleResources.push(value());
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}: usage: node infra/rbac.cjs [--namespaces a,b] [--scale group/resource]...`);
  }
  return out;
}

if (require.main === module) {
  try {
    process.stdout.write(rbacYaml(parseArgs(process.argv.slice(2))));
  } catch (e) {
    process.stderr.write(`infra/rbac.cjs: ${e.message}\n`);
    process.exit(1);
  }
}

module.exports = { GROUP, ROLE, RULES, rbacManifests, rbacYaml, parseArgs };
