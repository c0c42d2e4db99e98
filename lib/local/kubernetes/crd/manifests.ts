// The CustomResourceDefinitions of our kinds, built from the schema modules: scripts/gen-crds.ts
// writes them to infra/crds/, the local API server and the tests use them as objects.
import { hpaSpecSchema, hpaStatusSchema, type JSONSchemaProps } from '#hpa/api';
import { METRIC_KINDS, type MetricKind } from '#api';

export const SHPA_GROUP = 'shpa.dev';
const SHPA_VERSION = 'v1';

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** An apiextensions.k8s.io/v1 CustomResourceDefinition with one version. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources?: { status?: Record<string, never> };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
}

function crd(
  names: CustomResourceDefinition['spec']['names'],
  description: string,
  properties: Record<string, JSONSchemaProps>,
  extra: { status?: boolean; columns?: PrinterColumn[] } = {},
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${SHPA_GROUP}` },
    spec: {
      group: SHPA_GROUP,
      names,
      scope: 'Namespaced',
      versions: [
        {
          name: SHPA_VERSION,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description,
              properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, ...properties },
              required: ['spec'],
            },
          },
          ...(extra.status ? { subresources: { status: {} } } : {}),
          ...(extra.columns ? { additionalPrinterColumns: extra.columns } : {}),
        },
      ],
    },
  };
}

/** ServerlessHorizontalPodAutoscaler: an autoscaling/v2 HPA spec, run by our Lambda; the sync writes the status. */
export function serverlessHpaCrd(): CustomResourceDefinition {
  return crd(
    {
      kind: 'ServerlessHorizontalPodAutoscaler',
      listKind: 'ServerlessHorizontalPodAutoscalerList',
      plural: 'serverlesshorizontalpodautoscalers',
      singular: 'serverlesshorizontalpodautoscaler',
      shortNames: ['shpa'],
    },
    'An autoscaling/v2 HorizontalPodAutoscaler run by serverless-hpa (AWS Lambda) instead of kube-controller-manager. status.reference and status.targets are display-only strings for the printer columns.',
    { spec: hpaSpecSchema(), status: hpaStatusSchema() },
    {
      status: true,
      // As kubectl get hpa prints them.
      columns: [
        { name: 'Reference', type: 'string', jsonPath: '.status.reference', description: 'The scale target, Kind/name.' },
        { name: 'Targets', type: 'string', jsonPath: '.status.targets', description: 'Current and target value of each metric.' },
        { name: 'MinPods', type: 'integer', jsonPath: '.spec.minReplicas', description: 'Lower limit of replicas.' },
        { name: 'MaxPods', type: 'integer', jsonPath: '.spec.maxReplicas', description: 'Upper limit of replicas.' },
        { name: 'Replicas', type: 'integer', jsonPath: '.status.currentReplicas', description: 'Current number of replicas.' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  );
}

/** One of our metric kinds (lib/api METRIC_KINDS): a named source read by External metrics of the same namespace. */
export function metricCrd(kind: MetricKind): CustomResourceDefinition {
  const singular = kind.plural.replace(/s$/, '');
  return crd({ kind: kind.kind, listKind: `${kind.kind}List`, plural: kind.plural, singular, shortNames: kind.shortNames }, kind.description, { spec: kind.specSchema() });
}

const metricCrdOf = (name: string): CustomResourceDefinition => metricCrd(METRIC_KINDS.find((k) => k.kind === name)!);
export const cloudWatchMetricCrd = (): CustomResourceDefinition => metricCrdOf('CloudWatchMetric');
export const prometheusMetricCrd = (): CustomResourceDefinition => metricCrdOf('PrometheusMetric');

/** The CRDs of every metric kind. */
export function metricCrds(): CustomResourceDefinition[] {
  return METRIC_KINDS.map(metricCrd);
}

/** Every CRD of serverless-hpa, by the file name under infra/crds/. */
export function crdManifests(): Record<string, CustomResourceDefinition> {
  return { 'serverlesshorizontalpodautoscalers.yaml': serverlessHpaCrd(), ...Object.fromEntries(METRIC_KINDS.map((k) => [`${k.plural}.yaml`, metricCrd(k)])) };
}
