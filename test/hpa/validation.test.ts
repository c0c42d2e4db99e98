// Ported from upstream pkg/apis/autoscaling/validation/validation_test.go (TestValidateHorizontalPodAutoscaler,
// TestValidateBehavior, scale-to-zero, tolerance, scaleTargetRef apiVersion) plus the JSON-shape rules of our own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFieldError, formatFieldWarning, validateHPA, type FieldError, type FieldErrorType, type ValidationResult } from '../../lib/hpa/api/validation.js';

type Json = Record<string, unknown>;

function hpa(spec: Json = {}, meta: Json = { name: 'myautoscaler', namespace: 'default' }): Json {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta,
    spec: {
      scaleTargetRef: { kind: 'ReplicationController', name: 'myrc' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [cpu(70)],
      ...spec,
    },
  };
}

const cpu = (u: number): Json => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });
const objectMetric = (target: Json = { type: 'Value', value: '300m' }): Json => ({
  type: 'Object',
  object: { describedObject: { kind: 'ReplicationController', name: 'myrc' }, metric: { name: 'somemetric' }, target },
});
const externalMetric = (target: Json = { type: 'Value', value: '300m' }, metric: Json = { name: 'somemetric', selector: { matchLabels: { label: 'value' } } }): Json => ({
  type: 'External',
  external: { metric, target },
});
const policy = (type: string, value: number, periodSeconds: number): Json => ({ type, value, periodSeconds });

function errorsOf(r: ValidationResult): FieldError[] {
  return r.valid ? [] : r.errors;
}

/** The one error at this path; fails when there is none. */
function errorAt(r: ValidationResult, field: string): FieldError {
  const e = errorsOf(r).find((x) => x.field === field);
  if (!e) throw new Error(`no error at ${field}; got ${errorsOf(r).map(formatFieldError).join(' | ') || 'none'}`);
  return e;
}

function expectValid(input: unknown, gates?: Parameters<typeof validateHPA>[1]): void {
  const r = validateHPA(input, gates);
  expect(errorsOf(r).map(formatFieldError)).toEqual([]);
  expect(r.valid).toBe(true);
}

describe('validateHPA: success cases (upstream successCases)', () => {
  const cases: [string, Json][] = [
    ['resource cpu averageUtilization', hpa()],
    ['no metrics (defaulted later)', hpa({ metrics: undefined })],
    ['resource cpu averageValue', hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } }] })],
    ['pods metric', hpa({ metrics: [{ type: 'Pods', pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '300m' } } }] })],
    [
      'containerResource utilization',
      hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'test-container', target: { type: 'Utilization', averageUtilization: 70 } } }] }),
    ],
    ['object metric value', hpa({ metrics: [objectMetric()] })],
    ['object metric averageValue', hpa({ metrics: [objectMetric({ type: 'AverageValue', averageValue: '300m' })] })],
    ['external metric value', hpa({ metrics: [externalMetric()] })],
    ['external metric averageValue', hpa({ metrics: [externalMetric({ type: 'AverageValue', averageValue: '300m' })] })],
    ['minReplicas 0 with an object metric', hpa({ minReplicas: 0, metrics: [objectMetric()] })],
    ['minReplicas 0 with an external metric among others', hpa({ minReplicas: 0, metrics: [cpu(50), externalMetric()] })],
    ['scaleTargetRef with a group', hpa({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } })],
    ['ReplicationController with apiVersion v1', hpa({ scaleTargetRef: { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc' } })],
    ['extended container resource', hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'example.com/gpu', container: 'c', target: { type: 'AverageValue', averageValue: '1' } } }] })],
    ['hugepages container resource', hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'hugepages-2Mi', container: 'c', target: { type: 'AverageValue', averageValue: '1' } } }] })],
    ['no metadata namespace', hpa({}, { name: 'web' })],
    ['labels and annotations', hpa({}, { name: 'web', labels: { 'app.kubernetes.io/name': 'web', tier: '' }, annotations: { 'Example.com/Note': 'anything at all' } })],
    ['metric selector with expressions', hpa({ metrics: [externalMetric(undefined, { name: 'q', selector: { matchExpressions: [{ key: 'queue', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'Exists' }] } })] })],
  ];
  for (const [name, input] of cases) it(name, () => expectValid(input));
});

describe('validateHPA: error cases (upstream errorCases)', () => {
  const cases: [name: string, input: Json, field: string, type: FieldErrorType, detail: string][] = [
    ['kind missing', hpa({ scaleTargetRef: { name: 'myrc' } }), 'spec.scaleTargetRef.kind', 'Required', ''],
    ['kind ..', hpa({ scaleTargetRef: { kind: '..', name: 'myrc' } }), 'spec.scaleTargetRef.kind', 'Invalid', "may not be '..'"],
    ['name missing', hpa({ scaleTargetRef: { kind: 'ReplicationController' } }), 'spec.scaleTargetRef.name', 'Required', ''],
    ['name ..', hpa({ scaleTargetRef: { kind: 'ReplicationController', name: '..' } }), 'spec.scaleTargetRef.name', 'Invalid', "may not be '..'"],
    ['name with / and %', hpa({ scaleTargetRef: { kind: 'ReplicationController', name: 'a/b' } }), 'spec.scaleTargetRef.name', 'Invalid', "may not contain '/'"],
    ['minReplicas -1', hpa({ scaleTargetRef: {}, minReplicas: -1 }), 'spec.minReplicas', 'Invalid', 'must be greater than or equal to 0'],
    ['maxReplicas below minReplicas', hpa({ scaleTargetRef: {}, minReplicas: 7 }), 'spec.maxReplicas', 'Invalid', 'must be greater than or equal to `minReplicas`'],
    // Upstream validateHorizontalPodAutoscalerSpec: MaxReplicas < 1 (absent decodes as 0) is one Invalid error.
    ['maxReplicas 0', hpa({ maxReplicas: 0 }), 'spec.maxReplicas', 'Invalid', 'must be greater than 0'],
    ['maxReplicas missing', hpa({ maxReplicas: undefined }), 'spec.maxReplicas', 'Invalid', 'must be greater than 0'],
    ['maxReplicas -3', hpa({ maxReplicas: -3, minReplicas: undefined }), 'spec.maxReplicas', 'Invalid', 'must be greater than 0'],
    // KEP-6003 (proposed): greater than 0, at most 3600; ours: at least 5
    ['syncPeriodSeconds 0', hpa({ syncPeriodSeconds: 0 }), 'spec.syncPeriodSeconds', 'Invalid', 'must be greater than 0'],
    ['syncPeriodSeconds 3601', hpa({ syncPeriodSeconds: 3601 }), 'spec.syncPeriodSeconds', 'Invalid', 'must be less than or equal to 3600'],
    ['syncPeriodSeconds 4', hpa({ syncPeriodSeconds: 4 }), 'spec.syncPeriodSeconds', 'Invalid', 'must be at least 5: serverless-hpa ticks at most every 5 s'],
    [
      'utilization and averageValue both set',
      hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70, averageValue: '300m' } } }] }),
      'spec.metrics[0].resource.target.averageValue',
      'Forbidden',
      'may not set both a target raw value and a target utilization',
    ],
    [
      'resource name missing',
      hpa({ metrics: [{ type: 'Resource', resource: { target: { type: 'Utilization', averageUtilization: 70 } } }] }),
      'spec.metrics[0].resource.name',
      'Required',
      'must specify a resource name',
    ],
    ['utilization -10', hpa({ metrics: [cpu(-10)] }), 'spec.metrics[0].resource.target.averageUtilization', 'Invalid', 'must be greater than 0'],
    ['utilization 0', hpa({ metrics: [cpu(0)] }), 'spec.metrics[0].resource.target.averageUtilization', 'Invalid', 'must be greater than 0'],
    [
      'resource target without value',
      hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Value' } } }] }),
      'spec.metrics[0].resource.target.averageUtilization',
      'Required',
      'must set either a target raw value or a target utilization',
    ],
    [
      'containerResource non-standard name',
      hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'InvalidResource', container: 'c', target: { type: 'Utilization', averageUtilization: 70 } } }] }),
      'spec.metrics[0].containerResource.name',
      'Invalid',
      'must be a standard resource type or fully qualified',
    ],
    [
      'containerResource quota-only name',
      hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'pods', container: 'c', target: { type: 'AverageValue', averageValue: '1' } } }] }),
      'spec.metrics[0].containerResource.name',
      'Invalid',
      'must be a standard resource for containers',
    ],
    [
      'containerResource without container',
      hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] }),
      'spec.metrics[0].containerResource.container',
      'Required',
      'must specify a container',
    ],
    [
      'containerResource container ---***',
      hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: '---***', target: { type: 'Utilization', averageUtilization: 70 } } }] }),
      'spec.metrics[0].containerResource.container',
      'Invalid',
      'a lowercase RFC 1123 label must consist of',
    ],
    [
      'pods metric without name',
      hpa({ metrics: [{ type: 'Pods', pods: { metric: {}, target: { type: 'AverageValue', averageValue: '100m' } } }] }),
      'spec.metrics[0].pods.metric.name',
      'Required',
      'must specify a metric name',
    ],
    [
      'pods metric without averageValue',
      hpa({ metrics: [{ type: 'Pods', pods: { metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }] }),
      'spec.metrics[0].pods.target.averageValue',
      'Required',
      'must specify a positive target averageValue',
    ],
    ['object metric without value', hpa({ metrics: [objectMetric({ type: 'Value' })] }), 'spec.metrics[0].object.target.averageValue', 'Required', 'must set either a target value or averageValue'],
    [
      'object describedObject without kind',
      hpa({ metrics: [{ type: 'Object', object: { describedObject: { name: 'myrc' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }] }),
      'spec.metrics[0].object.describedObject.kind',
      'Required',
      '',
    ],
    [
      'object describedObject with a three-part apiVersion',
      hpa({ metrics: [{ type: 'Object', object: { describedObject: { apiVersion: 'a/b/c', kind: 'K', name: 'n' }, metric: { name: 'm' }, target: { type: 'Value', value: '1' } } }] }),
      'spec.metrics[0].object.describedObject.apiVersion',
      'Invalid',
      'unexpected GroupVersion string: a/b/c',
    ],
    ['external metric name foo/../', hpa({ metrics: [externalMetric(undefined, { name: 'foo/../' })] }), 'spec.metrics[0].external.metric.name', 'Invalid', "may not contain '/'"],
    ['external metric without value', hpa({ metrics: [externalMetric({ type: 'Value' })] }), 'spec.metrics[0].external.target.averageValue', 'Required', 'must set either a target value for metric or a per-pod target'],
    ['external value -300m', hpa({ metrics: [externalMetric({ type: 'Value', value: '-300m' })] }), 'spec.metrics[0].external.target.value', 'Invalid', 'must be positive'],
    ['external value 0', hpa({ metrics: [externalMetric({ type: 'Value', value: '0' })] }), 'spec.metrics[0].external.target.value', 'Invalid', 'must be positive'],
    ['external averageValue -300m', hpa({ metrics: [externalMetric({ type: 'AverageValue', averageValue: '-300m' })] }), 'spec.metrics[0].external.target.averageValue', 'Invalid', 'must be positive'],
    [
      'external value and averageValue',
      hpa({ metrics: [externalMetric({ type: 'Value', value: '300m', averageValue: '300m' })] }),
      'spec.metrics[0].external.target.value',
      'Forbidden',
      'may not set both a target value for metric and a per-pod target',
    ],
    ['external target type boogity', hpa({ metrics: [externalMetric({ type: 'boogity', value: '1' })] }), 'spec.metrics[0].external.target.type', 'Invalid', 'must be either Utilization, Value, or AverageValue'],
    ['external target without type', hpa({ metrics: [externalMetric({ value: '1' })] }), 'spec.metrics[0].external.target.type', 'Required', 'must specify a metric target type'],
    ['metric with no type', hpa({ metrics: [{}] }), 'spec.metrics[0].type', 'Required', 'must specify a metric source type'],
    [
      'metric type InvalidType',
      hpa({ metrics: [{ type: 'InvalidType' }] }),
      'spec.metrics[0].type',
      'NotSupported',
      'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ],
    [
      'two sources',
      hpa({ metrics: [{ ...cpu(70), pods: { metric: { name: 'm' }, target: { type: 'AverageValue', averageValue: '1' } } }] }),
      'spec.metrics[0].pods',
      'Forbidden',
      'must populate the given metric source only',
    ],
    ['type Pods with only resource', hpa({ metrics: [{ type: 'Pods', resource: cpu(70).resource }] }), 'spec.metrics[0].pods', 'Required', 'must populate information for the given metric source'],
    ['scale to zero without object/external metrics', hpa({ minReplicas: 0 }), 'spec.metrics', 'Forbidden', 'must specify at least one Object or External metric to support scaling to zero replicas'],
    ['scale to zero with defaulted metrics', hpa({ minReplicas: 0, metrics: [] }), 'spec.metrics', 'Forbidden', 'must specify at least one Object or External metric'],
    [
      'Deployment without apiVersion',
      hpa({ scaleTargetRef: { kind: 'Deployment', name: 'web' } }),
      'spec.scaleTargetRef.apiVersion',
      'Invalid',
      'apiVersion must specify API group',
    ],
    ['Deployment with apiVersion v1', hpa({ scaleTargetRef: { apiVersion: 'v1', kind: 'Deployment', name: 'web' } }), 'spec.scaleTargetRef.apiVersion', 'Invalid', 'apiVersion must specify API group'],
    ['apiVersion with two slashes', hpa({ scaleTargetRef: { apiVersion: 'apps/v1/x', kind: 'Deployment', name: 'web' } }), 'spec.scaleTargetRef.apiVersion', 'Invalid', 'unexpected GroupVersion string'],
  ];
  for (const [name, input, field, type, detail] of cases) {
    it(name, () => {
      const e = errorAt(validateHPA(input), field);
      expect(e.type).toBe(type);
      expect(e.message).toContain(detail);
    });
  }

  it('words a missing or non-positive maxReplicas as upstream does, in one error', () => {
    for (const maxReplicas of [undefined, 0, -3]) {
      const errors = errorsOf(validateHPA(hpa({ maxReplicas, minReplicas: undefined }))).filter((e) => e.field === 'spec.maxReplicas');
      expect(errors.map(formatFieldError)).toEqual([`spec.maxReplicas: Invalid value: ${maxReplicas ?? 0}: must be greater than 0`]);
    }
  });
});

describe('validateHPA: behavior (upstream TestValidateBehavior)', () => {
  const withBehavior = (behavior: Json): Json => hpa({ behavior });
  const simple = [policy('Percent', 10, 1), policy('Pods', 1, 1800)];

  it('accepts empty behavior, windows 0 and 3600, every selectPolicy and four mixed policies', () => {
    expectValid(withBehavior({}));
    expectValid(withBehavior({ scaleUp: { stabilizationWindowSeconds: 3600, selectPolicy: 'Min', policies: simple }, scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled', policies: simple } }));
    const four = [policy('Pods', 1, 2), policy('Percent', 3, 4), policy('Pods', 5, 6), policy('Percent', 7, 8)];
    expectValid(withBehavior({ scaleUp: { stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: four }, scaleDown: { stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: four } }));
  });

  it('accepts rules whose policies are left to defaulting', () => {
    expectValid(withBehavior({ scaleUp: { stabilizationWindowSeconds: 60 }, scaleDown: { selectPolicy: 'Min' } }));
  });

  for (const dir of ['scaleUp', 'scaleDown']) {
    const p = `spec.behavior.${dir}`;
    const cases: [string, Json, string, FieldErrorType, string][] = [
      ['explicit empty policies', { selectPolicy: 'Min', policies: [] }, `${p}.policies`, 'Required', 'must specify at least one Policy'],
      ['window 3601', { stabilizationWindowSeconds: 3601, policies: simple }, `${p}.stabilizationWindowSeconds`, 'Invalid', 'must be less than or equal to 3600'],
      ['window -1', { stabilizationWindowSeconds: -1, policies: simple }, `${p}.stabilizationWindowSeconds`, 'Invalid', 'must be greater than or equal to zero'],
      ['periodSeconds 1801', { policies: [policy('Pods', 7, 1801)] }, `${p}.policies[0].periodSeconds`, 'Invalid', 'must be less than or equal to 1800'],
      ['selectPolicy incorrect', { selectPolicy: 'incorrect', policies: simple }, `${p}.selectPolicy`, 'NotSupported', 'supported values: "Disabled", "Max", "Min"'],
      ['policy type hm', { policies: [policy('hm', 7, 8)] }, `${p}.policies[0].type`, 'NotSupported', 'supported values: "Percent", "Pods"'],
      ['periodSeconds 0', { policies: [policy('Pods', 8, 0)] }, `${p}.policies[0].periodSeconds`, 'Invalid', 'must be greater than zero'],
      ['periodSeconds -1', { policies: [policy('Pods', 1, -1)] }, `${p}.policies[0].periodSeconds`, 'Invalid', 'must be greater than zero'],
      ['value 0', { policies: [policy('Pods', 0, 8)] }, `${p}.policies[0].value`, 'Invalid', 'must be greater than zero'],
      ['value -1', { policies: [policy('Pods', -1, 1)] }, `${p}.policies[0].value`, 'Invalid', 'must be greater than zero'],
      ['policy without value', { policies: [{ type: 'Pods', periodSeconds: 15 }] }, `${p}.policies[0].value`, 'Invalid', 'must be greater than zero'],
    ];
    for (const [name, rules, field, type, detail] of cases) {
      it(`${dir}: ${name}`, () => {
        const e = errorAt(validateHPA(withBehavior({ [dir]: rules })), field);
        expect(e.type).toBe(type);
        expect(e.message).toContain(detail);
      });
    }
  }
});

describe('validateHPA: feature gates', () => {
  it('HPAScaleToZero off: minReplicas must be at least 1, even with an object metric', () => {
    const r = validateHPA(hpa({ minReplicas: 0, metrics: [objectMetric()] }), { HPAScaleToZero: false });
    expect(formatFieldError(errorAt(r, 'spec.minReplicas'))).toBe('spec.minReplicas: Invalid value: 0: must be greater than or equal to 1');
  });

  it('HPAConfigurableTolerance on: tolerance must be >= 0', () => {
    for (const t of ['0', '0.1', '10', '100m', '1m']) expectValid(hpa({ behavior: { scaleDown: { policies: [policy('Pods', 1, 1800)], tolerance: t } } }));
    for (const t of ['-0.001', '-10m']) {
      const e = errorAt(validateHPA(hpa({ behavior: { scaleUp: { policies: [policy('Pods', 1, 60)], tolerance: t } } })), 'spec.behavior.scaleUp.tolerance');
      expect(formatFieldError(e)).toBe(`spec.behavior.scaleUp.tolerance: Invalid value: "${t}": must be greater than or equal to 0`);
    }
  });

  it('HPAConfigurableTolerance off: tolerance is dropped before validation, as the API server does', () => {
    const r = validateHPA(hpa({ behavior: { scaleUp: { policies: [policy('Pods', 1, 60)], tolerance: '-1' } } }), { HPAConfigurableTolerance: false });
    expect(r.valid).toBe(true);
    if (r.valid) expect(r.hpa.spec.behavior?.scaleUp).toEqual({ policies: [policy('Pods', 1, 60)] });
  });

  it('tolerance must still be a quantity', () => {
    const e = errorAt(validateHPA(hpa({ behavior: { scaleUp: { policies: [policy('Pods', 1, 60)], tolerance: 'lots' } } })), 'spec.behavior.scaleUp.tolerance');
    expect(e.type).toBe('Invalid');
  });
});

describe('validateHPA: metadata (ValidateObjectMeta)', () => {
  it('requires a DNS-subdomain name', () => {
    expect(errorAt(validateHPA(hpa({}, { namespace: 'default' })), 'metadata.name').message).toBe('name or generateName is required');
    const e = errorAt(validateHPA(hpa({}, { name: 'My_HPA' })), 'metadata.name');
    expect(e.message).toContain('a lowercase RFC 1123 subdomain');
    expect(errorAt(validateHPA(hpa({}, { name: 'a'.repeat(254) })), 'metadata.name').message).toBe('must be no more than 253 characters');
    expectValid(hpa({}, { name: 'web.v1' }));
  });

  it('checks a given namespace as a DNS label', () => {
    expect(errorAt(validateHPA(hpa({}, { name: 'web', namespace: 'a.b' })), 'metadata.namespace').message).toBe('must not contain dots');
    expect(errorAt(validateHPA(hpa({}, { name: 'web', namespace: 'Prod' })), 'metadata.namespace').message).toContain('RFC 1123 label');
  });

  it('checks label keys and values and annotation keys', () => {
    const r = validateHPA(hpa({}, { name: 'web', labels: { 'bad key': 'v', ok: '-bad-' }, annotations: { 'a/b/c': 'x' } }));
    const labelErrors = errorsOf(r).filter((e) => e.field === 'metadata.labels');
    expect(labelErrors.map((e) => e.value)).toEqual(['bad key', '-bad-']);
    expect(errorAt(r, 'metadata.annotations').message).toContain('a qualified name');
  });

  it('limits the total size of annotations', () => {
    expect(errorAt(validateHPA(hpa({}, { name: 'web', annotations: { big: 'x'.repeat(256 * 1024) } })), 'metadata.annotations').type).toBe('TooLong');
  });

  it('checks apiVersion and kind when given', () => {
    const r = validateHPA({ ...hpa(), apiVersion: 'autoscaling/v1', kind: 'Deployment' });
    expect(formatFieldError(errorAt(r, 'apiVersion'))).toBe('apiVersion: Unsupported value: "autoscaling/v1": supported values: "autoscaling/v2"');
    expect(errorAt(r, 'kind').type).toBe('NotSupported');
    const { apiVersion: _a, kind: _k, ...bare } = hpa();
    const ok = validateHPA(bare);
    expect(ok.valid && ok.hpa.apiVersion).toBe('autoscaling/v2');
  });
});

describe('validateHPA: metric label selectors are accepted, as upstream, with a warning per problem', () => {
  const withSelector = (selector: unknown): Json => hpa({ metrics: [externalMetric(undefined, { name: 'q', selector })] });
  const base = 'spec.metrics[0].external.metric.selector';
  /** Valid, and the first warning at this path. */
  function warningAt(input: Json, field: string): string {
    const r = validateHPA(input);
    expect(errorsOf(r).map(formatFieldError)).toEqual([]);
    const w = r.warnings.find((x) => x.field === field);
    if (!w) throw new Error(`no warning at ${field}; got ${r.warnings.map(formatFieldWarning).join(' | ') || 'none'}`);
    return formatFieldWarning(w);
  }

  it('an unknown operator (Equals) is a warning naming the field and the operators to write', () => {
    expect(warningAt(withSelector({ matchExpressions: [{ key: 'k', operator: 'Equals', values: ['1'] }] }), `${base}.matchExpressions[0].operator`)).toBe(
      `${base}.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator: write In, NotIn, Exists or DoesNotExist: ` +
        'accepted, as upstream accepts it, but the sync cannot read this metric (ScalingActive False) until it is fixed',
    );
  });

  it('In/NotIn without values, Exists with values, bad keys and values: warnings too', () => {
    expect(warningAt(withSelector({ matchExpressions: [{ key: 'k', operator: 'In' }] }), `${base}.matchExpressions[0].values`)).toMatch(/Required value: must be specified when `operator` is 'In' or 'NotIn'/);
    expect(warningAt(withSelector({ matchExpressions: [{ key: 'k', operator: 'NotIn', values: [] }] }), `${base}.matchExpressions[0].values`)).toContain('Required value');
    expect(warningAt(withSelector({ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] }), `${base}.matchExpressions[0].values`)).toContain('Forbidden');
    expect(warningAt(withSelector({ matchExpressions: [{ key: '', operator: 'Exists' }] }), `${base}.matchExpressions[0].key`)).toContain('name part must be non-empty');
    expect(warningAt(withSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['ok', 'not ok'] }] }), `${base}.matchExpressions[0].values[1]`)).toContain('"not ok"');
    expect(warningAt(withSelector({ matchLabels: { k: 'a b' } }), `${base}.matchLabels`)).toContain('"a b"');
  });

  it('wrong shapes still fail decoding: errors', () => {
    expect(errorAt(validateHPA(withSelector({ matchExpressions: 'k=v' })), `${base}.matchExpressions`).type).toBe('TypeInvalid');
    expect(errorAt(validateHPA(withSelector({ matchExpressions: [{ key: 'k', operator: 3 }] })), `${base}.matchExpressions[0].operator`).type).toBe('TypeInvalid');
    expect(errorAt(validateHPA(withSelector({ matchExpressions: [{ key: 'k', op: 'In' }] })), `${base}.matchExpressions[0].op`).type).toBe('Forbidden');
    expect(errorAt(validateHPA(withSelector({ matchExpressions: [null] })), `${base}.matchExpressions[0]`).type).toBe('Required');
  });
});

describe('validateHPA: warnings for what upstream accepts but cannot work', () => {
  const resource = (name: string, target: Json = { type: 'Utilization', averageUtilization: 60 }): Json => hpa({ metrics: [{ type: 'Resource', resource: { name, target } }] });

  it('a Resource metric the metrics API does not report (cpus, CPU): the field and what to write', () => {
    for (const [name, fixText] of [['cpus', 'write cpu'], ['CPU', 'write cpu'], ['Memory', 'write memory'], ['gpu', 'write cpu or memory']]) {
      const r = validateHPA(resource(name));
      expect(r.valid).toBe(true);
      expect(r.warnings.map(formatFieldWarning)).toEqual([
        `spec.metrics[0].resource.name: "${name}" is not a resource the metrics API (metrics.k8s.io) reports: ${fixText}; as written, the sync reports <unknown> for this metric (FailedGetResourceMetric)`,
      ]);
    }
    expect(validateHPA(resource('memory')).warnings).toEqual([]);
    // A ContainerResource name that is no standard resource is already an error; no warning on top of it.
    const container = validateHPA(hpa({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'CPU', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } }] }));
    expect(container.valid).toBe(false);
    expect(container.warnings).toEqual([]);
  });

  it('a target type that names another value than the one set', () => {
    const r = validateHPA(resource('cpu', { type: 'Value', averageValue: '500m' }));
    expect(r.valid).toBe(true);
    expect(r.warnings.map(formatFieldWarning)).toEqual(['spec.metrics[0].resource.target.type: "Value" does not match the averageValue set here: the controller uses averageValue; write type: AverageValue']);
  });

  it('a clean HPA has no warnings', () => {
    expect(validateHPA(hpa()).warnings).toEqual([]);
  });
});

describe('validateHPA: errors say what to write instead', () => {
  it('type Value on a Resource metric', () => {
    const e = errorAt(validateHPA(hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Value', value: '500m' } } }] })), 'spec.metrics[0].resource.target.averageUtilization');
    expect(formatFieldError(e)).toBe(
      'spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization ' +
        '(a Resource metric does not take type Value: write type: Utilization with averageUtilization, or type: AverageValue with averageValue)',
    );
  });

  it('Utilization on an Object, External or Pods metric', () => {
    const util = { type: 'Utilization', averageUtilization: 50 };
    expect(errorAt(validateHPA(hpa({ metrics: [objectMetric(util)] })), 'spec.metrics[0].object.target.averageValue').message).toBe(
      'must set either a target value or averageValue (a Object metric does not take type Utilization: write type: Value with value, or type: AverageValue with averageValue)',
    );
    expect(errorAt(validateHPA(hpa({ metrics: [externalMetric(util)] })), 'spec.metrics[0].external.target.averageValue').message).toMatch(/does not take type Utilization: write type: Value with value/);
    const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: util } };
    expect(errorAt(validateHPA(hpa({ metrics: [pods] })), 'spec.metrics[0].pods.target.averageValue').message).toMatch(/does not take type Utilization: write type: AverageValue with averageValue\)$/);
  });

  it('upstream\'s words alone when the type fits', () => {
    expect(errorAt(validateHPA(hpa({ metrics: [objectMetric({ type: 'Value' })] })), 'spec.metrics[0].object.target.averageValue').message).toBe('must set either a target value or averageValue');
  });
});

describe('validateHPA: a null entry or a hole in a list is one error at its index', () => {
  const rules = (policies: unknown[]): Json => hpa({ behavior: { scaleUp: { policies } } });
  const ok = policy('Pods', 4, 60);

  it('policies: [null, {...}] and a hole', () => {
    for (const input of [rules([null, ok]), rules([undefined, ok]), rules(Object.assign(new Array(2), { 1: ok }))]) {
      const r = validateHPA(input);
      expect(errorsOf(r).map(formatFieldError)).toEqual([
        'spec.behavior.scaleUp.policies[0]: Required value: an empty entry: write a policy (type, value, periodSeconds), or remove the entry',
      ]);
    }
  });

  it('metrics: a null entry', () => {
    expect(errorsOf(validateHPA(hpa({ metrics: [cpu(50), null] }))).map(formatFieldError)).toEqual([
      'spec.metrics[1]: Required value: an empty entry: write a metric (type and its source), or remove the entry',
    ]);
  });
});

describe('validateHPA: wrong JSON types are errors at their path, never exceptions', () => {
  const cases: [string, Json, string][] = [
    ['string maxReplicas', hpa({ maxReplicas: '5' }), 'spec.maxReplicas'],
    ['fractional minReplicas', hpa({ minReplicas: 1.5 }), 'spec.minReplicas'],
    ['maxReplicas beyond int32', hpa({ maxReplicas: 2 ** 31 }), 'spec.maxReplicas'],
    ['object where the metrics list belongs', hpa({ metrics: { type: 'Resource' } }), 'spec.metrics'],
    ['string scaleTargetRef', hpa({ scaleTargetRef: 'web' }), 'spec.scaleTargetRef'],
    ['number kind', hpa({ scaleTargetRef: { kind: 3, name: 'x' } }), 'spec.scaleTargetRef.kind'],
    ['list metric entry', hpa({ metrics: [[1]] }), 'spec.metrics[0]'],
    ['object quantity', hpa({ metrics: [externalMetric({ type: 'Value', value: { milli: 3 } })] }), 'spec.metrics[0].external.target.value'],
    ['string utilization', hpa({ metrics: [cpu('70' as unknown as number)] }), 'spec.metrics[0].resource.target.averageUtilization'],
    ['policies object', hpa({ behavior: { scaleUp: { policies: { type: 'Pods' } } } }), 'spec.behavior.scaleUp.policies'],
    ['string window', hpa({ behavior: { scaleUp: { stabilizationWindowSeconds: '60s' } } }), 'spec.behavior.scaleUp.stabilizationWindowSeconds'],
    ['numeric label value', hpa({}, { name: 'web', labels: { a: 1 } }), 'metadata.labels[a]'],
    ['string spec', { ...hpa(), spec: 'x' }, 'spec'],
  ];
  for (const [name, input, field] of cases) {
    it(name, () => expect(errorAt(validateHPA(input), field).type).toBe('TypeInvalid'));
  }

  it('rejects a malformed quantity with the parser message', () => {
    const e = errorAt(validateHPA(hpa({ metrics: [externalMetric({ type: 'Value', value: '12 apples' })] })), 'spec.metrics[0].external.target.value');
    expect(e.type).toBe('Invalid');
    expect(e.message).toMatch(/quantit/);
  });

  it('rejects unknown fields in the spec, as strict decoding does', () => {
    expect(errorAt(validateHPA(hpa({ minReplica: 2 })), 'spec.minReplica').message).toBe('unknown field');
    expect(errorAt(validateHPA(hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 50, target: { type: 'Utilization', averageUtilization: 50 } } }] })), 'spec.metrics[0].resource.targetAverageUtilization').type).toBe('Forbidden');
  });

  it('rejects a non-object document', () => {
    for (const input of [null, 'hpa', 3, [hpa()]]) expect(validateHPA(input).valid).toBe(false);
  });

  it('never throws, whatever the input', () => {
    const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string(), fc.constantFrom('1', '-1', '100m', 'In', 'Pods', 'Max', 'Object', 'Value'));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('type', 'name', 'value', 'target', 'metric', 'policies', 'kind', 'x'), tie('v'), { maxKeys: 4 })),
    })).v;
    const specLike = fc.record(
      {
        scaleTargetRef: value,
        minReplicas: value,
        maxReplicas: value,
        metrics: fc.array(fc.record({ type: value, resource: value, pods: value, object: value, external: value, containerResource: value }, { requiredKeys: [] }), { maxLength: 3 }),
        behavior: fc.record({ scaleUp: value, scaleDown: value }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(specLike, value, (spec, metadata) => {
        const r = validateHPA({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec });
        for (const e of errorsOf(r)) expect(typeof formatFieldError(e)).toBe('string');
      }),
      { numRuns: 300 },
    );
  });
});

describe('validateHPA: result', () => {
  it('returns a typed copy: numeric quantities become strings, nulls become absent, the input is untouched', () => {
    const input = hpa({ minReplicas: null, metrics: [externalMetric({ type: 'Value', value: 3 })] });
    const before = structuredClone(input);
    const r = validateHPA(input);
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.hpa.spec.metrics?.[0].external?.target.value).toBe('3');
    expect('minReplicas' in r.hpa.spec).toBe(false);
    expect(input).toEqual(before);
  });

  it('collects every error, not just the first', () => {
    const r = validateHPA(hpa({ scaleTargetRef: {}, minReplicas: 7 }));
    expect(errorsOf(r).map((e) => e.field).sort()).toEqual(['spec.maxReplicas', 'spec.scaleTargetRef.apiVersion', 'spec.scaleTargetRef.kind', 'spec.scaleTargetRef.name']);
  });
});

describe('formatFieldError', () => {
  it('renders as upstream field.Error', () => {
    const r = validateHPA(hpa({ scaleTargetRef: { name: 'x' }, minReplicas: -1, behavior: { scaleUp: { selectPolicy: 'incorrect' } } }));
    const lines = errorsOf(r).map(formatFieldError);
    expect(lines).toContain('spec.minReplicas: Invalid value: -1: must be greater than or equal to 0');
    expect(lines).toContain('spec.scaleTargetRef.kind: Required value');
    expect(lines).toContain('spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group');
    expect(lines).toContain('spec.behavior.scaleUp.selectPolicy: Unsupported value: "incorrect": supported values: "Disabled", "Max", "Min"');
    expect(formatFieldError({ field: 'spec.metrics', type: 'Forbidden', message: 'must specify at least one Object or External metric' })).toBe(
      'spec.metrics: Forbidden: must specify at least one Object or External metric',
    );
  });
});
