// The admission evaluator on hand-written cases: decoding (pruning, defaults), the OpenAPI
// schema, list types, CEL rules with messages, transition rules and ratcheting, object meta,
// and the Status body — each with the texts kube-apiserver writes.
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscalerSpec } from '../../lib/hpa/types.js';
import { QUANTITY_FORMAT_MESSAGE, type JSONSchemaProps } from '../../lib/hpa/api/openapi-schema.js';
import { admitCustomResource, formatError, invalidStatus } from '../../lib/local/kubernetes/crd/admission.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';

type Obj = Record<string, unknown>;

/** A CRD of one namespaced kind, Widget (test.shpa.dev/v1), with this spec schema. */
function widgetCrd(spec: JSONSchemaProps, rootRules: JSONSchemaProps['x-kubernetes-validations'] = []): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.test.shpa.dev' },
    spec: {
      group: 'test.shpa.dev',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, 'x-kubernetes-validations': rootRules } },
        },
      ],
    },
  };
}

const widget = (spec: unknown, meta: Obj = {}): Obj => ({ apiVersion: 'test.shpa.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', ...meta }, spec });
const errorsOf = (r: { errors: Parameters<typeof formatError>[0][] }): string[] => r.errors.map(formatError);
const BLOCKED = '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

describe('decoding', () => {
  const crd = widgetCrd({
    type: 'object',
    properties: {
      size: { type: 'integer', default: 3 },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
      note: { type: 'string', nullable: true },
      color: { type: 'string' },
    },
  });

  it('prunes unknown fields, drops non-nullable nulls, fills defaults, and leaves the input alone', () => {
    const input = widget({ size: null, extra: 1, labels: { a: 'b' }, free: { any: { thing: 1 }, known: { a: 'x', b: 'pruned' } }, note: null, color: null }, { bogus: 1 });
    const before = structuredClone(input);
    const r = admitCustomResource(crd, 'v1', input);
    expect(r.errors).toEqual([]);
    expect(r.object).toEqual({
      apiVersion: 'test.shpa.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
      spec: { size: 3, labels: { a: 'b' }, free: { any: { thing: 1 }, known: { a: 'x' } }, note: null },
    });
    expect(input).toEqual(before);
  });

  it('fills the HPA defaults as the API server defaults autoscaling/v2 (lib/hpa applyDefaults)', () => {
    const crdHpa = serverlessHpaCrd();
    const specs: HorizontalPodAutoscalerSpec[] = [
      { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, maxReplicas: 5 },
      { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, maxReplicas: 5, behavior: {} },
      {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        minReplicas: 2,
        maxReplicas: 5,
        behavior: { scaleUp: { selectPolicy: 'Min' }, scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } },
      },
    ];
    for (const spec of specs) {
      const hpa = { apiVersion: 'autoscaling/v2' as const, kind: 'HorizontalPodAutoscaler' as const, metadata: { name: 'web', namespace: 'shop' }, spec };
      const r = admitCustomResource(crdHpa, 'v1', { ...hpa, apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler' });
      expect(r.errors).toEqual([]);
      expect(r.object.spec).toEqual(JSON.parse(JSON.stringify(applyDefaults(hpa).spec)));
    }
  });
});

describe('the OpenAPI schema', () => {
  const crd = widgetCrd({
    type: 'object',
    required: ['size'],
    minProperties: 1,
    maxProperties: 7,
    properties: {
      size: { type: 'integer', format: 'int32', minimum: 1, maximum: 10, exclusiveMaximum: true },
      ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, multipleOf: 0.5 },
      color: { type: 'string', enum: ['red', 'blue'], maxLength: 4, minLength: 3, pattern: '^[a-z]+$' },
      amount: { 'x-kubernetes-int-or-string': true },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2, minItems: 1, 'x-kubernetes-list-type': 'set' },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port'],
        items: { type: 'object', required: ['port'], properties: { port: { type: 'integer' }, name: { type: 'string' } } },
      },
      when: { type: 'string', format: 'date-time' },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 }, minProperties: 1, maxProperties: 2 },
    },
  });

  it('admits a valid object', () => {
    const ok = widget({ size: 9, ratio: 1.5, color: 'red', amount: '5Gi', tags: ['a'], ports: [{ port: 80 }, { port: 443 }], when: '2026-03-01T12:00:00.5+01:00' });
    expect(errorsOf(admitCustomResource(crd, 'v1', ok))).toEqual([]);
  });

  it('reports bounds, lengths, patterns and counts as apiextensions does', () => {
    const r = admitCustomResource(
      crd,
      'v1',
      widget({ size: 10, ratio: 0.75, color: 'gr', tags: ['a', 'b', 'a'], ports: [{ port: 1 }, { port: 1 }], when: '2026-02-30T00:00:00Z', labels: { a: 'x', b: 'y', c: 'long' } }),
    );
    expect(errorsOf(r)).toEqual([
      'spec.size: Invalid value: 10: spec.size in body should be less than 10',
      'spec.ratio: Invalid value: 0.75: spec.ratio in body should be a multiple of 0.5',
      'spec.color: Invalid value: "gr": spec.color in body should be at least 3 chars long',
      'spec.color: Unsupported value: "gr": supported values: "red", "blue"',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.when: Invalid value: "2026-02-30T00:00:00Z": spec.when in body must be of type date-time: "2026-02-30T00:00:00Z"',
      'spec.labels: Too many: 3: must have at most 2 items',
      'spec.labels.c: Too long: may not be more than 3 bytes',
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: {"port":1}',
      BLOCKED,
    ]);
  });

  it('reports types, int32 range at the nil path, and missing fields', () => {
    const r = admitCustomResource(crd, 'v1', widget({ size: 2 ** 31, amount: true, tags: [], color: 'toolong', labels: {} }));
    expect(errorsOf(r)).toEqual([
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.size',
      'spec.size: Invalid value: 2147483648: spec.size in body should be less than 10',
      'spec.color: Too long: may not be more than 4 bytes',
      'spec.color: Unsupported value: "toolong": supported values: "red", "blue"',
      'spec.amount: Invalid value: "boolean": spec.amount in body must be of type integer,string: "boolean"',
      'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items',
      'spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties',
      BLOCKED,
    ]);
    expect(errorsOf(admitCustomResource(crd, 'v1', widget({ ratio: 'x' })))).toEqual([
      'spec.ratio: Invalid value: "string": spec.ratio in body must be of type number: "string"',
      'spec.size: Required value',
      BLOCKED,
    ]);
  });
});

describe('CEL rules', () => {
  const crd = widgetCrd(
    {
      type: 'object',
      properties: {
        size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'size is immutable' }] },
        replicas: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'self >= oldSelf', messageExpression: "'may not shrink from ' + string(oldSelf) + ' to ' + string(self)" }],
        },
        min: { type: 'integer' },
        max: { type: 'integer' },
        name: { type: 'string', maxLength: 20, 'x-kubernetes-validations': [{ rule: "!self.startsWith('x')" }] },
        quota: { 'x-kubernetes-int-or-string': true, maxLength: 20, 'x-kubernetes-validations': [{ rule: "type(self) == int || quantity(self).isLessThan(quantity('1Gi'))", message: 'must be below 1Gi' }] },
        items: {
          type: 'array',
          maxItems: 4,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['id'],
          items: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, v: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.v >= oldSelf.v', message: 'v may only grow' }] },
        },
        opaque: { type: 'object', properties: { a: { type: 'integer' } } },
      },
      'x-kubernetes-validations': [
        { rule: '!has(self.min) || !has(self.max) || self.min <= self.max', message: 'min must not exceed max', fieldPath: '.max', reason: 'FieldValueForbidden' },
        { rule: '!has(self.opaque) || self.opaque.a > 0', messageExpression: "''", reason: 'FieldValueRequired', fieldPath: '.opaque.a' },
        { rule: 'self.missing > 0' },
        { rule: '1 + "a" == 2' },
      ],
    },
    [{ rule: "self.metadata.name != 'forbidden'", message: 'that name is taken' }],
  );

  it('reports failed rules with their message, fieldPath and reason, and evaluation errors in cel-go words', () => {
    const r = admitCustomResource(crd, 'v1', widget({ size: 1, min: 5, max: 2, name: 'xyz', quota: '2Gi', opaque: { a: 0 } }, { name: 'forbidden' }));
    expect(errorsOf(r)).toEqual([
      '<nil>: Invalid value: that name is taken',
      'spec.max: Forbidden: min must not exceed max',
      'spec.opaque.a: Required value: failed rule: !has(self.opaque) || self.opaque.a > 0',
      'spec: Invalid value: "object": no such key: missing evaluating rule: self.missing > 0',
      'spec: Invalid value: "object": \'no such overload: \'_+_\' applied to \'(int, string)\'\': call arguments did not match a supported operator, function or macro signature for rule: 1 + "a" == 2',
      'spec.name: Invalid value: "xyz": failed rule: !self.startsWith(\'x\')',
      'spec.quota: Invalid value: "2Gi": must be below 1Gi',
    ]);
  });

  it('runs transition rules only on update, with oldSelf from the correlated old value', () => {
    const created = widget({ size: 1, replicas: 3, items: [{ id: 'a', v: 1 }, { id: 'b', v: 5 }] });
    expect(errorsOf(admitCustomResource(crd, 'v1', created))).not.toContain('spec.size: Invalid value: 1: size is immutable');
    const old = { ...created, metadata: { name: 'w', namespace: 'ns', resourceVersion: '1' } };
    // Items of a map list correlate by key, whatever their order.
    const changed = { ...old, spec: { size: 2, replicas: 2, items: [{ id: 'b', v: 4 }, { id: 'a', v: 1 }, { id: 'c', v: 0 }] } };
    const update = errorsOf(admitCustomResource(crd, 'v1', changed, old)).filter((e) => !e.startsWith('spec: '));
    expect(update).toEqual([
      'spec.size: Invalid value: 2: size is immutable',
      'spec.replicas: Invalid value: 2: may not shrink from 3 to 2',
      'spec.items[0]: Invalid value: v may only grow',
    ]);
  });

  it('ratchets: an unchanged invalid value is not reported on update, a changed one is', () => {
    const old = widget({ name: 'xold', min: 9, max: 1 }, { resourceVersion: '1' });
    const untouched = errorsOf(admitCustomResource(crd, 'v1', { ...old, metadata: { ...(old.metadata as Obj), labels: { a: 'b' } } }, old));
    expect(untouched.filter((e) => e.startsWith('spec.name') || e.startsWith('spec.max'))).toEqual([]);
    const touched = errorsOf(admitCustomResource(crd, 'v1', widget({ name: 'xnew', min: 9, max: 1 }, { resourceVersion: '1' }), old));
    expect(touched).toContain('spec.name: Invalid value: "xnew": failed rule: !self.startsWith(\'x\')');
    expect(touched).toContain('spec.max: Forbidden: min must not exceed max');
  });
});

describe('the Kubernetes CEL quantity library', () => {
  const rules = [
    "quantity(self).compareTo(quantity('1024')) == 0",
    "quantity(self).isGreaterThan(quantity('1000')) && quantity(self).isLessThan(quantity('1.1k'))",
    "quantity(self).sign() == 1 && quantity('-1m').sign() == -1 && quantity('0').sign() == 0",
    "isQuantity('.') && !isQuantity('1ki') && !isQuantity('')",
    "quantity('abc').sign() == 1",
  ];
  const crd = widgetCrd({ type: 'object', properties: { q: { type: 'string', maxLength: 10, 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } } });

  it('parses, compares and signs quantities as resource.Quantity does', () => {
    expect(errorsOf(admitCustomResource(crd, 'v1', widget({ q: '1Ki' })))).toEqual([
      'spec.q: Invalid value: "string": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\' evaluating rule: quantity(\'abc\').sign() == 1',
    ]);
  });
});

describe('object meta and type meta', () => {
  const crd = widgetCrd({ type: 'object' });

  it('checks name, namespace, labels and annotations on create', () => {
    const r = admitCustomResource(crd, 'v1', {
      apiVersion: 'test.shpa.dev/v1',
      kind: 'Widget',
      metadata: { name: 'Bad_Name', labels: { 'a/b/c': 'ok', good: 'not ok!' }, annotations: { 'UPPER.example.com/x': 'y' } },
    });
    // The texts are lib/hpa/name-rules.ts's (upstream's util/validation messages).
    expect(r.errors.map((e) => [e.field, e.type, e.value, e.detail.split(' ').slice(0, 4).join(' ')])).toEqual([
      ['metadata.name', 'Invalid', 'Bad_Name', 'a lowercase RFC 1123'],
      ['metadata.namespace', 'Required', undefined, ''],
      ['metadata.labels', 'Invalid', 'a/b/c', 'a qualified name must'],
      ['metadata.labels', 'Invalid', 'not ok!', 'a valid label must'],
      ['<nil>', 'Invalid', null, 'some validation rules were'],
    ]);
  });

  it('checks immutable fields and resourceVersion on update', () => {
    const old = widget({}, { uid: 'u1', resourceVersion: '4', generation: 2 });
    const r = admitCustomResource(crd, 'v1', widget({}, { uid: 'u2', generation: 1 }), old);
    expect(errorsOf(r)).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  it('stops at a wrong kind or apiVersion', () => {
    expect(errorsOf(admitCustomResource(crd, 'v1', { apiVersion: 'test.shpa.dev/v2', kind: 'Gadget', metadata: {} }))).toEqual([
      'kind: Invalid value: "Gadget": must be Widget',
      'apiVersion: Invalid value: "test.shpa.dev/v2": must be test.shpa.dev/v1',
    ]);
  });

  it('refuses CRDs it cannot evaluate faithfully, naming the field', () => {
    expect(() => admitCustomResource(crd, 'v2', widget({}))).toThrow('CustomResourceDefinition widgets.test.shpa.dev: has no version "v2"');
    expect(() => admitCustomResource(widgetCrd({ type: 'object', anyOf: [{ required: ['a'] }] } as JSONSchemaProps), 'v1', widget({}))).toThrow(
      'spec.versions[v1].schema.openAPIV3Schema.properties.spec.anyOf: not supported by the local admission evaluator',
    );
    expect(() => admitCustomResource(widgetCrd({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.nope' }] }), 'v1', widget({}))).toThrow(
      '.properties.spec.x-kubernetes-validations[0].fieldPath: ".nope": does not refer to a valid field',
    );
  });
});

describe('the HPA rules, in the API server words', () => {
  const crd = serverlessHpaCrd();
  const shpa = (spec: Obj): Obj => ({ apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop' }, spec });
  const target = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };

  it.each([
    [{ scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'a/b/c' }, maxReplicas: 1 }, ['spec.scaleTargetRef.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']],
    [{ scaleTargetRef: { kind: 'ReplicationController', name: 'web' }, maxReplicas: 1 }, []],
    [{ scaleTargetRef: { kind: 'Deployment', name: 'web%' }, maxReplicas: 1 }, ['spec.scaleTargetRef.apiVersion: Invalid value: apiVersion must specify API group', 'spec.scaleTargetRef.name: Invalid value: "web%": may not contain \'%\'']],
    [
      { scaleTargetRef: target, maxReplicas: 3, minReplicas: 0, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: 7 } } }] },
      [],
    ],
    [
      { scaleTargetRef: target, maxReplicas: 3, metrics: [{ type: 'Object', pods: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } }, external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }] },
      [
        'spec.metrics[0].object: Required value: must populate information for the given metric source',
        'spec.metrics[0].pods: Forbidden: must populate the given metric source only',
        'spec.metrics[0].external: Forbidden: must populate the given metric source only',
        'spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue',
      ],
    ],
    [
      { scaleTargetRef: target, maxReplicas: 3, metrics: [{ type: 'ContainerResource', containerResource: { name: 'example.com/gpu', container: 'app', target: { type: 'AverageValue', averageValue: '0' } } }] },
      ['spec.metrics[0].containerResource.target.averageValue: Invalid value: "0": must be positive'],
    ],
    // Ours: an activation threshold on Object and External metrics (lib/hpa/activation.ts), a quantity of zero or more.
    ...[
      [{ value: '5' }, []],
      [{ value: 0 }, []],
      [{ value: '-1' }, ['spec.metrics[0].external.activation.value: Invalid value: "-1": must be zero or more']],
      [{ value: 'five' }, [`spec.metrics[0].external.activation.value: Invalid value: "five": ${QUANTITY_FORMAT_MESSAGE}`]],
      [{}, ['spec.metrics[0].external.activation.value: Required value', '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation']],
    ].map(([activation, errors]): [Obj, string[]] => [
      { scaleTargetRef: target, maxReplicas: 3, minReplicas: 0, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' }, activation } }] },
      errors as string[],
    ]),
    [{ scaleTargetRef: target, maxReplicas: 3, behavior: { scaleUp: { tolerance: '.' } } }, []],
    // spec.syncPeriodSeconds: KEP-6003's bounds, and our floor of 5 s
    [{ scaleTargetRef: target, maxReplicas: 3, syncPeriodSeconds: 5 }, []],
    [{ scaleTargetRef: target, maxReplicas: 3, syncPeriodSeconds: 0 }, ['spec.syncPeriodSeconds: Invalid value: 0: must be greater than 0']],
    [{ scaleTargetRef: target, maxReplicas: 3, syncPeriodSeconds: 3 }, ['spec.syncPeriodSeconds: Invalid value: 3: must be at least 5: serverless-hpa ticks at most every 5 s']],
    [{ scaleTargetRef: target, maxReplicas: 3, syncPeriodSeconds: 3601 }, ['spec.syncPeriodSeconds: Invalid value: 3601: must be less than or equal to 3600']],
  ])('%j', (spec, expected) => {
    expect(errorsOf(admitCustomResource(crd, 'v1', shpa(spec)))).toEqual(expected);
  });
});

describe('invalidStatus', () => {
  it('writes the 422 Status body, messages aggregated as ErrorList.ToAggregate does', () => {
    const errors = [
      { field: 'spec.maxReplicas', type: 'Invalid' as const, value: 0, detail: 'must be greater than 0' },
      { field: 'spec.scaleTargetRef.kind', type: 'Required' as const, detail: '' },
      { field: 'spec.scaleTargetRef.kind', type: 'Required' as const, detail: '' },
    ];
    expect(invalidStatus('ServerlessHorizontalPodAutoscaler', 'shpa.dev', 'web', errors)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'ServerlessHorizontalPodAutoscaler.shpa.dev "web" is invalid: [spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.scaleTargetRef.kind: Required value]',
      reason: 'Invalid',
      details: {
        name: 'web',
        group: 'shpa.dev',
        kind: 'ServerlessHorizontalPodAutoscaler',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.maxReplicas' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.scaleTargetRef.kind' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.scaleTargetRef.kind' },
        ],
      },
      code: 422,
    });
    expect(invalidStatus('Thing', '', 'x', [errors[0]]).message).toBe('Thing "x" is invalid: spec.maxReplicas: Invalid value: 0: must be greater than 0');
  });
});
