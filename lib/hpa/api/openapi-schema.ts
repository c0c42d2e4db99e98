// OpenAPI v3 structural schemas (apiextensions.k8s.io/v1 JSONSchemaProps) of autoscaling/v2
// HorizontalPodAutoscalerSpec and HorizontalPodAutoscalerStatus, with x-kubernetes-validations
// (CEL) for what upstream's ValidateHorizontalPodAutoscaler checks and CEL can express.
// Pure data: scripts/gen-crds.ts writes it into infra/crds/, lib/local/kubernetes/crd/admission.ts evaluates it.
import { DEFAULT_FAILURE_DURATION_SECONDS, MIN_FAILURE_DURATION_SECONDS } from '../fallback.js';
import { isDNS1123Label } from './name-rules.js';

/** One x-kubernetes-validations entry (apiextensions ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** Upstream's default is FieldValueInvalid. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** A path relative to the node the rule is on, such as ".maxReplicas". */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps a structural schema uses. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: ValidationRule[];
}

// ---- builders ----

type Extra = Omit<JSONSchemaProps, 'type'>;

export function str(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'string', description, ...extra };
}

function int32(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int32', description, ...extra };
}

function int64(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int64', description, ...extra };
}

export function obj(description: string, properties: Record<string, JSONSchemaProps>, required: string[] = [], extra: Extra = {}): JSONSchemaProps {
  return { type: 'object', description, properties, ...(required.length > 0 ? { required } : {}), ...extra };
}

export function list(description: string, items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps {
  return { type: 'array', description, items, 'x-kubernetes-list-type': 'atomic', ...extra };
}

export function rule(expr: string, message: string, more: Omit<ValidationRule, 'rule' | 'message'> = {}): ValidationRule {
  return { rule: expr, message, ...more };
}

/** A rule whose message is computed (messageExpression) from the value. */
export function ruleWithMessageExpression(expr: string, messageExpression: string, more: Omit<ValidationRule, 'rule' | 'messageExpression'> = {}): ValidationRule {
  return { rule: expr, messageExpression, ...more };
}

// ---- quantities: resource.Quantity is a string or a JSON integer ----

/** resource.ErrFormatWrong, the decoding error of a malformed quantity. */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Quantities a rule reads are capped so that CEL cost estimation passes; upstream has no cap. */
const MAX_QUANTITY_LENGTH = 64;

const isQuantityRule = rule('type(self) == int || isQuantity(self)', QUANTITY_FORMAT_MESSAGE);

/** A quantity with no rule (status values). */
function quantity(description: string): JSONSchemaProps {
  return { description, 'x-kubernetes-int-or-string': true };
}

/** A quantity checked with the Kubernetes CEL quantity library: well formed, and `int`/`sign` hold. */
function checkedQuantity(description: string, int: string, sign: string, message: string): JSONSchemaProps {
  return {
    description,
    'x-kubernetes-int-or-string': true,
    maxLength: MAX_QUANTITY_LENGTH,
    'x-kubernetes-validations': [isQuantityRule, rule(`type(self) == int ? self ${int} : !isQuantity(self) || quantity(self).sign() ${sign}`, message)],
  };
}

// ---- names ----

/** Strings a rule reads are capped so that CEL cost estimation passes. */
const MAX_NAME_LENGTH = 253;
const MAX_API_VERSION_LENGTH = 317; // a DNS subdomain group, "/", a DNS label version
const MAX_METRIC_NAME_LENGTH = 1024;
const MAX_RESOURCE_NAME_LENGTH = 317; // a qualified name: DNS subdomain prefix, "/", 63 characters
/** Enumerated strings are capped too; a longer one is invalid anyway. */
const MAX_ENUM_LENGTH = 64;

// path.IsValidPathSegmentName (api/validation/path), with upstream's messages.
const pathSegmentRule = ruleWithMessageExpression(
  "self != '.' && self != '..' && !self.contains('/') && !self.contains('%')",
  "self == '.' || self == '..' ? \"may not be '\" + self + \"'\" : self.contains('/') ? \"may not contain '/'\" : \"may not contain '%'\"",
);

// schema.ParseGroupVersion: more than one '/' is an error.
const groupVersionRule = ruleWithMessageExpression("self.matches('^[^/]*(/[^/]*)?$')", "'unexpected GroupVersion string: ' + self");

/** The message lib/hpa (name-rules isDNS1123Label) gives for a label that breaks the pattern. */
const DNS1123_LABEL_MESSAGE = isDNS1123Label('-')[0];

/** CrossVersionObjectReference; `requireGroup`: the scale target, whose apiVersion needs a group unless it is a ReplicationController. */
function crossVersionObjectReference(description: string, requireGroup: boolean): JSONSchemaProps {
  const validations = requireGroup
    ? [
        // The HPA strategy on create: an empty API group only for ReplicationController, the one scalable core kind.
        rule("self.kind == 'ReplicationController' || (has(self.apiVersion) && self.apiVersion.matches('^[^/]+/'))", 'apiVersion must specify API group', {
          fieldPath: '.apiVersion',
        }),
      ]
    : [];
  return obj(
    description,
    {
      kind: str('Kind of the referent, e.g. Deployment.', { minLength: 1, maxLength: MAX_NAME_LENGTH, 'x-kubernetes-validations': [pathSegmentRule] }),
      name: str('Name of the referent.', { minLength: 1, maxLength: MAX_NAME_LENGTH, 'x-kubernetes-validations': [pathSegmentRule] }),
      apiVersion: str('API version of the referent, e.g. apps/v1.', { maxLength: MAX_API_VERSION_LENGTH, 'x-kubernetes-validations': [groupVersionRule] }),
    },
    ['kind', 'name'],
    validations.length > 0 ? { 'x-kubernetes-validations': validations } : {},
  );
}

/** A plain CrossVersionObjectReference, as status reports it. */
function objectReference(description: string): JSONSchemaProps {
  return obj(description, { kind: str('Kind of the referent.'), name: str('Name of the referent.'), apiVersion: str('API version of the referent.') }, ['kind', 'name']);
}

function labelSelector(description: string): JSONSchemaProps {
  return obj(description, {
    matchLabels: { type: 'object', description: 'Labels the series must have.', additionalProperties: { type: 'string' } },
    matchExpressions: list(
      'Label selector requirements, ANDed.',
      obj(
        'A label selector requirement.',
        {
          key: str('The label key.'),
          operator: str('In, NotIn, Exists or DoesNotExist.'),
          values: list('Values for In and NotIn; empty for Exists and DoesNotExist.', { type: 'string' }),
        },
        ['key', 'operator'],
      ),
    ),
  }, [], { 'x-kubernetes-map-type': 'atomic' });
}

function metricIdentifier(checked: boolean): JSONSchemaProps {
  const name = checked
    ? str('Name of the given metric.', {
        maxLength: MAX_METRIC_NAME_LENGTH,
        'x-kubernetes-validations': [rule('size(self) > 0', 'must specify a metric name', { reason: 'FieldValueRequired' }), pathSegmentRule],
      })
    : str('Name of the given metric.');
  return obj('Identifies the metric: its name and, optionally, a selector.', { name, selector: labelSelector('Label selector of the metric series; unset: name alone.') }, ['name']);
}

// ---- metric targets ----

const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];

const metricTarget = (): JSONSchemaProps =>
  obj(
    'The target value, average value or average utilization of the metric.',
    {
      type: str('Utilization, Value or AverageValue.', {
        maxLength: MAX_ENUM_LENGTH,
        'x-kubernetes-validations': [rule(`self in ${celList(TARGET_TYPES)}`, 'must be either Utilization, Value, or AverageValue')],
      }),
      value: checkedQuantity('Target value of the metric (a quantity).', '> 0', '== 1', 'must be positive'),
      averageValue: checkedQuantity('Target value of the average of the metric across all pods (a quantity).', '> 0', '== 1', 'must be positive'),
      averageUtilization: int32('Target average of the resource across all pods, in percent of the requests.', {
        'x-kubernetes-validations': [rule('self >= 1', 'must be greater than 0')],
      }),
    },
    ['type'],
  );

// validateResourceSource/validateContainerResourceSource: a utilization or an average value, not both.
const resourceTargetRules = [
  rule('has(self.target.averageUtilization) || has(self.target.averageValue)', 'must set either a target raw value or a target utilization', {
    fieldPath: '.target.averageUtilization',
    reason: 'FieldValueRequired',
  }),
  rule('!has(self.target.averageUtilization) || !has(self.target.averageValue)', 'may not set both a target raw value and a target utilization', {
    fieldPath: '.target.averageValue',
    reason: 'FieldValueForbidden',
  }),
];

const resourceNameRequired = rule('size(self) > 0', 'must specify a resource name', { reason: 'FieldValueRequired' });

// core/v1 ValidateContainerResourceName, for names without a '/' prefix (the standard container resources).
const standardContainerResourceRule = rule(
  "size(self) == 0 || self.contains('/') || self in ['cpu', 'memory', 'ephemeral-storage'] || self.startsWith('hugepages-')",
  'must be a standard resource for containers',
);

// Ours (lib/hpa/activation.ts): Object and External metrics only; the others have no schema for it, so it is an unknown field there.
const activationThreshold = (): JSONSchemaProps =>
  obj(
    'Ours, after KEDA: at zero replicas, the target scales up only while this metric (an External metric\'s total over its series) is above value. No effect above zero.',
    { value: checkedQuantity('The value the metric must exceed to leave zero replicas (a quantity, zero or more).', '>= 0', '>= 0', 'must be zero or more') },
    ['value'],
  );

const metricSources: Record<string, { type: string; schema: () => JSONSchemaProps }> = {
  object: {
    type: 'Object',
    schema: () =>
      obj(
        'A metric describing a single Kubernetes object.',
        { describedObject: crossVersionObjectReference('The object the metric describes.', false), metric: metricIdentifier(true), target: metricTarget(), activation: activationThreshold() },
        ['describedObject', 'metric', 'target'],
        {
          'x-kubernetes-validations': [
            rule('has(self.target.value) || has(self.target.averageValue)', 'must set either a target value or averageValue', {
              fieldPath: '.target.averageValue',
              reason: 'FieldValueRequired',
            }),
          ],
        },
      ),
  },
  pods: {
    type: 'Pods',
    schema: () =>
      obj('A metric describing each pod of the scale target, averaged.', { metric: metricIdentifier(true), target: metricTarget() }, ['metric', 'target'], {
        'x-kubernetes-validations': [
          rule('has(self.target.averageValue)', 'must specify a positive target averageValue', { fieldPath: '.target.averageValue', reason: 'FieldValueRequired' }),
        ],
      }),
  },
  resource: {
    type: 'Resource',
    schema: () =>
      // Upstream checks the name of a Resource metric for presence only.
      obj('A resource metric (requests and usage) of each pod, averaged.', { name: str('Name of the resource, e.g. cpu or memory.', { 'x-kubernetes-validations': [resourceNameRequired] }), target: metricTarget() }, ['name', 'target'], {
        'x-kubernetes-validations': resourceTargetRules,
      }),
  },
  containerResource: {
    type: 'ContainerResource',
    schema: () =>
      obj(
        'A resource metric of one container of each pod, averaged.',
        {
          name: str('Name of the resource, e.g. cpu or memory.', {
            maxLength: MAX_RESOURCE_NAME_LENGTH,
            'x-kubernetes-validations': [resourceNameRequired, standardContainerResourceRule],
          }),
          container: str('Name of the container in the pods of the scale target.', {
            maxLength: 63,
            'x-kubernetes-validations': [
              rule('size(self) > 0', 'must specify a container', { reason: 'FieldValueRequired' }),
              rule("size(self) == 0 || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", DNS1123_LABEL_MESSAGE),
            ],
          }),
          target: metricTarget(),
        },
        ['name', 'container', 'target'],
        { 'x-kubernetes-validations': resourceTargetRules },
      ),
  },
  external: {
    type: 'External',
    schema: () =>
      obj('A metric not associated with any Kubernetes object, e.g. a CloudWatchMetric of the same namespace.', { metric: metricIdentifier(true), target: metricTarget(), activation: activationThreshold() }, ['metric', 'target'], {
        'x-kubernetes-validations': [
          rule('has(self.target.value) || has(self.target.averageValue)', 'must set either a target value for metric or a per-pod target', {
            fieldPath: '.target.averageValue',
            reason: 'FieldValueRequired',
          }),
          rule('!has(self.target.value) || !has(self.target.averageValue)', 'may not set both a target value for metric and a per-pod target', {
            fieldPath: '.target.value',
            reason: 'FieldValueForbidden',
          }),
        ],
      }),
  },
};

/** upstream METRIC_SOURCE_TYPES, sorted as field.NotSupported lists them. */
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

// validateMetricSpec: the source of the given type must be set, and no other.
function metricSpecRules(): ValidationRule[] {
  const fields = Object.keys(metricSources);
  const exactlyOne = `${fields.map((f) => `(has(self.${f}) ? 1 : 0)`).join(' + ')} == 1`;
  const required = fields.map((f) =>
    rule(`self.type != '${metricSources[f].type}' || has(self.${f})`, 'must populate information for the given metric source', {
      fieldPath: `.${f}`,
      reason: 'FieldValueRequired',
    }),
  );
  const forbidden = fields.map((f) =>
    rule(`!has(self.${f}) || self.type == '${metricSources[f].type}' || ${exactlyOne}`, 'must populate the given metric source only', {
      fieldPath: `.${f}`,
      reason: 'FieldValueForbidden',
    }),
  );
  return [...required, ...forbidden];
}

const metricSpec = (): JSONSchemaProps =>
  obj(
    'One metric to scale on.',
    {
      type: str('The metric source type: ContainerResource, External, Object, Pods or Resource.', { maxLength: MAX_ENUM_LENGTH, enum: [...METRIC_SOURCE_TYPES] }),
      ...Object.fromEntries(Object.entries(metricSources).map(([field, s]) => [field, withMetricFallback(s.schema())])),
    },
    ['type'],
    { 'x-kubernetes-validations': metricSpecRules() },
  );

// ---- behavior ----

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
/** CRD-only caps, for CEL cost estimation; upstream has none. */
const MAX_METRICS = 100;
const MAX_POLICIES = 100;

const scalingPolicy = (): JSONSchemaProps =>
  obj(
    'A single policy which must hold true for a specified past interval.',
    {
      type: str('Pods or Percent.', { enum: ['Percent', 'Pods'] }),
      value: int32('The amount of change permitted by the policy; greater than zero.', { 'x-kubernetes-validations': [rule('self > 0', 'must be greater than zero')] }),
      periodSeconds: int32('The window of time for which the policy holds true; 1 to 1800.', {
        'x-kubernetes-validations': [
          rule('self > 0', 'must be greater than zero'),
          rule(`self <= ${MAX_PERIOD_SECONDS}`, `must be less than or equal to ${MAX_PERIOD_SECONDS}`),
        ],
      }),
    },
    ['type', 'value', 'periodSeconds'],
  );

interface RulesDefaults {
  stabilizationWindowSeconds?: number;
  selectPolicy: string;
  policies: { type: string; value: number; periodSeconds: number }[];
}

// defaults.go GenerateHPAScaleUpRules/GenerateHPAScaleDownRules, as structural defaults: a present
// behavior gets both directions, and each direction the fields it leaves out.
const SCALE_UP_DEFAULTS: RulesDefaults = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
// The scale-down window stays unset: the controller's --horizontal-pod-autoscaler-downscale-stabilization supplies it.
const SCALE_DOWN_DEFAULTS: RulesDefaults = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

function scalingRules(description: string, defaults: RulesDefaults): JSONSchemaProps {
  const window = int32('Seconds of past recommendations considered; 0 to 3600.', {
    'x-kubernetes-validations': [
      rule('self >= 0', 'must be greater than or equal to zero'),
      rule(`self <= ${MAX_STABILIZATION_WINDOW_SECONDS}`, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`),
    ],
  });
  if (defaults.stabilizationWindowSeconds !== undefined) window.default = defaults.stabilizationWindowSeconds;
  // Each default is its own copy: a shared object would come out of the YAML writer as an alias.
  return obj(
    description,
    {
      stabilizationWindowSeconds: window,
      selectPolicy: str('Which policy applies: Max, Min or Disabled.', { enum: ['Disabled', 'Max', 'Min'], default: defaults.selectPolicy }),
      policies: list('Potential scaling policies; at least one.', scalingPolicy(), { maxItems: MAX_POLICIES, default: structuredClone(defaults.policies) }),
      tolerance: checkedQuantity('Tolerance on the ratio of current to desired metric value (HPAConfigurableTolerance), e.g. "0.05".', '>= 0', '>= 0', 'must be greater than or equal to 0'),
    },
    [],
    {
      default: structuredClone(defaults),
      'x-kubernetes-validations': [
        rule('!has(self.policies) || size(self.policies) > 0', 'must specify at least one Policy', { fieldPath: '.policies', reason: 'FieldValueRequired' }),
      ],
    },
  );
}

// ---- the spec ----

/** autoscaling.DefaultCPUUtilization: the metric of an HPA that names none. */
const DEFAULT_METRICS = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];

/** autoscaling/v2 HorizontalPodAutoscalerSpec. HPAScaleToZero is assumed on (upstream's default). */
export function hpaSpecSchema(): JSONSchemaProps {
  return obj(
    'autoscaling/v2 HorizontalPodAutoscalerSpec: the desired behavior of the autoscaler.',
    {
      scaleTargetRef: crossVersionObjectReference('The resource to scale (a Deployment, StatefulSet, or any resource with a scale subresource).', true),
      minReplicas: int32('Lower limit of replicas; default 1; 0 needs an Object or External metric.', {
        default: 1,
        'x-kubernetes-validations': [rule('self >= 0', 'must be greater than or equal to 0')],
      }),
      maxReplicas: int32('Upper limit of replicas; at least minReplicas.', { 'x-kubernetes-validations': [rule('self >= 1', 'must be greater than 0')] }),
      metrics: list('Metrics to scale on (the highest recommendation wins); default: cpu at 80% utilization.', metricSpec(), {
        maxItems: MAX_METRICS,
        default: structuredClone(DEFAULT_METRICS),
      }),
      syncPeriodSeconds: int32('How often this autoscaler is evaluated, 5 to 3600 s (KEP-6003, our extension); unset: the deploy\'s sync period.', {
        'x-kubernetes-validations': [
          rule('self > 0', 'must be greater than 0'),
          rule('self <= 3600', 'must be less than or equal to 3600'),
          rule('self <= 0 || self >= 5', 'must be at least 5: serverless-hpa ticks at most every 5 s'),
        ],
      }),
      minReplicaSchedules: minReplicaSchedules(),
      predictive: predictive(),
      behavior: obj('Scaling behavior in both directions; unset: the legacy behavior.', {
        scaleUp: scalingRules('Scale-up rules; default: no stabilization, 4 pods or 100% per 15 s, whichever is more.', SCALE_UP_DEFAULTS),
        scaleDown: scalingRules('Scale-down rules; default: the controller window (300 s), 100% per 15 s.', SCALE_DOWN_DEFAULTS),
      }),
    },
    ['scaleTargetRef', 'maxReplicas'],
    {
      'x-kubernetes-validations': [
        rule('!has(self.minReplicas) || self.maxReplicas >= self.minReplicas', 'must be greater than or equal to `minReplicas`', { fieldPath: '.maxReplicas' }),
        // Ours: a window's minimum within maxReplicas (lib/hpa/schedules.ts says the same).
        rule('!has(self.minReplicaSchedules) || self.minReplicaSchedules.all(w, w.minReplicas <= self.maxReplicas)', 'each window\'s minReplicas must be less than or equal to `maxReplicas`', {
          fieldPath: '.minReplicaSchedules',
        }),
        // Ours: a fallback count within maxReplicas (lib/hpa/validation.ts says the same, naming the metric).
        rule(
          `!has(self.metrics) || self.metrics.all(m, ${Object.keys(metricSources)
            .map((f) => `(!has(m.${f}) || !has(m.${f}.fallback) || m.${f}.fallback.replicas <= self.maxReplicas)`)
            .join(' && ')})`,
          "each metric's fallback.replicas must be less than or equal to `maxReplicas`",
          { fieldPath: '.metrics' },
        ),
        // An absent metrics list is defaulted to cpu first, which cannot scale to zero either.
        rule(
          "!has(self.minReplicas) || self.minReplicas != 0 || (has(self.metrics) && self.metrics.exists(m, m.type == 'Object' || m.type == 'External'))",
          'must specify at least one Object or External metric to support scaling to zero replicas',
          { fieldPath: '.metrics', reason: 'FieldValueForbidden' },
        ),
      ],
    },
  );
}

// Ours: predictive minimums (lib/hpa/predictive.ts), the same bounds as its validation.
function predictive(): JSONSchemaProps {
  return obj(
    'A minimum learned from this autoscaler\'s own demand history (our extension, docs/predictive.md).',
    {
      mode: str('ForecastOnly: compute and show the forecast minimum; ForecastAndScale: also raise the minimum with it.', { enum: ['ForecastAndScale', 'ForecastOnly'] }),
      schedulingBufferSeconds: int32('The minimum covers the demand forecast this far ahead, 0 to 3600 s; default 300 (AWS SchedulingBufferTime).', {
        default: 300,
        minimum: 0,
        maximum: 3600,
      }),
      historySeconds: int32('History kept and used, 2 to 14 days; default 1209600 (14 days).', { default: 1_209_600, minimum: 172_800, maximum: 1_209_600 }),
      minHistorySeconds: int32('History needed before the forecast acts; default 86400 (24 hours).', { default: 86_400, minimum: 0, maximum: 1_209_600 }),
      maxReplicasBehavior: str('HonorMaxReplicas caps the forecast minimum at maxReplicas; IncreaseMaxReplicas lets it exceed maxReplicas. Default HonorMaxReplicas.', {
        enum: ['HonorMaxReplicas', 'IncreaseMaxReplicas'],
        default: 'HonorMaxReplicas',
      }),
    },
    ['mode'],
    {
      'x-kubernetes-validations': [
        rule('!has(self.minHistorySeconds) || self.minHistorySeconds <= (has(self.historySeconds) ? self.historySeconds : 1209600)', 'must be less than or equal to `historySeconds`', {
          fieldPath: '.minHistorySeconds',
        }),
      ],
    },
  );
}

// Ours: scheduled minimums (lib/hpa/schedules.ts). CEL checks the shape of start and end; whether a
// cron expression parses and whether the timezone exists are left to the sync (InvalidSpec).
const CRON_OR_TIME = '^([^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2}))$';
const RFC3339_PREFIX = '^[0-9]{4}-';

function minReplicaSchedules(): JSONSchemaProps {
  const when = (what: string) =>
    str(`When the window ${what}: a 5-field cron expression in timezone, or an RFC 3339 time.`, {
      maxLength: MAX_ENUM_LENGTH,
      'x-kubernetes-validations': [rule(`self.matches('${CRON_OR_TIME}')`, 'must be a cron expression of 5 fields or an RFC 3339 time')],
    });
  const window = obj(
    'A named window raising the minimum while it is open (our extension).',
    {
      name: str('Name of the window, a DNS-1123 label.', { maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
      minReplicas: int32('The minimum while the window is open.', { 'x-kubernetes-validations': [rule('self >= 1', 'must be greater than 0')] }),
      timezone: str('IANA timezone of the cron expressions, e.g. Europe/Berlin; default UTC.', { maxLength: MAX_ENUM_LENGTH }),
      start: when('opens'),
      end: when('closes'),
    },
    ['name', 'minReplicas', 'start', 'end'],
    {
      'x-kubernetes-validations': [
        rule('self.start != self.end', 'must differ from start: the window would never open', { fieldPath: '.end' }),
        rule(
          `self.start.matches('${RFC3339_PREFIX}') == self.end.matches('${RFC3339_PREFIX}')`,
          'must be of the kind of start: both cron expressions (a recurring window) or both RFC 3339 times (a one-off window)',
          { fieldPath: '.end' },
        ),
        rule(`!self.start.matches('${RFC3339_PREFIX}') || timestamp(self.end) > timestamp(self.start)`, 'must be after start', { fieldPath: '.end' }),
      ],
    },
  );
  return list('Ours: named windows (cron or RFC 3339 start and end, in a timezone) raising the minimum while open; the largest open one wins.', window, {
    maxItems: 20,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  });
}

// ---- the status ----

function metricValueStatus(): JSONSchemaProps {
  return obj('The current value of the metric.', {
    value: quantity('Current value of the metric (a quantity).'),
    averageValue: quantity('Current average of the metric across all pods (a quantity).'),
    averageUtilization: int32('Current average utilization, in percent of the requests.'),
  });
}

function metricStatus(): JSONSchemaProps {
  const current = metricValueStatus;
  return obj(
    'The last read state of one metric; type "" for a metric that failed this sync.',
    {
      type: str('The metric source type, or "" when the metric failed.'),
      object: obj('An Object metric.', { describedObject: objectReference('The object the metric describes.'), metric: metricIdentifier(false), current: current() }, [
        'describedObject',
        'metric',
        'current',
      ]),
      pods: obj('A Pods metric.', { metric: metricIdentifier(false), current: current() }, ['metric', 'current']),
      resource: obj('A Resource metric.', { name: str('Name of the resource.'), current: current() }, ['name', 'current']),
      containerResource: obj('A ContainerResource metric.', { name: str('Name of the resource.'), container: str('Name of the container.'), current: current() }, [
        'name',
        'container',
        'current',
      ]),
      external: obj('An External metric.', { metric: metricIdentifier(false), current: current() }, ['metric', 'current']),
    },
    ['type'],
  );
}

// ---- KEP-5679 fallback (ours on every metric type, upstream's on External) ----

/** A metric source with its optional fallback block: replicas > 0 required, failureDurationSeconds default 180, at least 180. */
function withMetricFallback(source: JSONSchemaProps): JSONSchemaProps {
  const fallback = obj(
    'KEP-5679: the replica count this metric proposes once it has failed for failureDurationSeconds (External: upstream\'s design; other types: our extension).',
    {
      failureDurationSeconds: int32('How long the metric must fail without a break before the fallback applies; default 180, at least 180.', {
        default: DEFAULT_FAILURE_DURATION_SECONDS,
        'x-kubernetes-validations': [rule(`self >= ${MIN_FAILURE_DURATION_SECONDS}`, `must be at least ${MIN_FAILURE_DURATION_SECONDS}`)],
      }),
      replicas: int32('The replica count this metric proposes while in fallback; greater than 0.', { 'x-kubernetes-validations': [rule('self > 0', 'must be greater than 0')] }),
    },
    ['replicas'],
  );
  return { ...source, properties: { ...source.properties, fallback } };
}

/** Each status entry of a metric with a fallback carries fallbackStatus and firstFailureTime (KEP-5679). */
function withFallbackStatus(status: JSONSchemaProps): JSONSchemaProps {
  const fields = {
    fallbackStatus: str('Normal, or Fallback while the fallback replica count is in use (KEP-5679).', { enum: ['Normal', 'Fallback'] }),
    firstFailureTime: str('The first of the current run of consecutive failures to read the metric; cleared on success (KEP-5679).', { format: 'date-time' }),
  };
  const properties = Object.fromEntries(
    Object.entries(status.properties ?? {}).map(([k, v]) => [k, v.type === 'object' ? { ...v, properties: { ...v.properties, ...fields } } : v]),
  );
  return { ...status, properties };
}

/** Display-only status fields the sync maintains for the printer columns (JSONPath cannot concatenate). */
export const DISPLAY_STATUS_FIELDS: Record<string, JSONSchemaProps> = {
  reference: str('The scale target as kubectl get hpa prints it, e.g. Deployment/web (display only).'),
  targets: str('Current and target metric values as kubectl get hpa prints TARGETS, e.g. "cpu: 72%/60%" (display only).'),
};

/** autoscaling/v2 HorizontalPodAutoscalerStatus, plus DISPLAY_STATUS_FIELDS. */
export function hpaStatusSchema(): JSONSchemaProps {
  return obj(
    'autoscaling/v2 HorizontalPodAutoscalerStatus: the current state of the autoscaler, written by the sync.',
    {
      observedGeneration: int64('The most recent generation observed by the autoscaler.'),
      lastScaleTime: str('The last time the autoscaler scaled the number of pods.', { format: 'date-time' }),
      currentReplicas: int32('Current number of replicas of pods managed by this autoscaler.'),
      desiredReplicas: int32('Desired number of replicas of pods managed by this autoscaler.'),
      currentMetrics: list('The last read state of the metrics used by this autoscaler.', withFallbackStatus(metricStatus())),
      conditions: list(
        'Conditions: AbleToScale, ScalingActive, ScalingLimited, ScaledToZero, ExternalMetricFallbackActive (KEP-5679); ours: Ready (the summary GitOps tools read), HistoryIntact, ScalingPaused and ScheduledMinimum.',
        obj(
          'The state of the autoscaler at a certain point.',
          {
            type: str('AbleToScale, ScalingActive, ScalingLimited, ScaledToZero, Ready, HistoryIntact, ScalingPaused or ScheduledMinimum.'),
            status: str('True, False or Unknown.'),
            lastTransitionTime: str('The last time the condition transitioned.', { format: 'date-time' }),
            reason: str("The reason for the condition's last transition."),
            message: str('A human-readable explanation.'),
            observedGeneration: int64('The metadata.generation of the spec the condition was set from.'),
          },
          ['type', 'status'],
        ),
        { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
      ),
      metricSources: list('Ours, display only: where each of spec.metrics was read at the last evaluation (a CloudWatchMetric, a PrometheusMetric, metrics.k8s.io…).', str('One metric\'s source.')),
      shadow: obj(
        'Ours: the shadow period beside the live autoscaler named by the shpa.dev/shadow-of annotation (docs/migrate.md, "Shadow").',
        {
          of: str('The live autoscaler: HorizontalPodAutoscaler/NAME or ScaledObject/NAME.'),
          since: str('The first decision compared.', { format: 'date-time' }),
          until: str('When this autoscaler took over (left dry-run): the period is over.', { format: 'date-time' }),
          decisions: int32('Decisions compared with the live HPA status.'),
          agreed: int32('Decisions that wanted the same replica count as the live HPA.'),
          maxDifference: int32('The largest difference between the two replica counts.'),
          last: obj(
            'The latest decision compared.',
            {
              time: str('When it was made.', { format: 'date-time' }),
              desiredReplicas: int32('What this autoscaler would have scaled to.'),
              liveDesiredReplicas: int32("The live HPA's status.desiredReplicas."),
              liveCurrentReplicas: int32("The live HPA's status.currentReplicas."),
              problem: str('Why there was nothing to compare.'),
            },
            ['time', 'desiredReplicas'],
          ),
        },
        ['of', 'since', 'decisions', 'agreed', 'maxDifference'],
      ),
      ...structuredClone(DISPLAY_STATUS_FIELDS),
    },
    ['desiredReplicas'],
  );
}

/** A CEL list literal of strings. */
function celList(values: readonly string[]): string {
  return `[${values.map((v) => `'${v}'`).join(', ')}]`;
}
