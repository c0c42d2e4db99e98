// Ported from upstream pkg/apis/autoscaling/v2/defaults_test.go (TestSetDefaultHPA, TestGenerateScaleUpRules,
// TestGenerateScaleDownRules) plus purity and idempotence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDefaults, DEFAULT_CONTROLLER_SETTINGS, DEFAULT_FEATURE_GATES, defaultBehavior } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerSpec, HPAScalingPolicy } from '../../lib/hpa/types.js';

function hpa(spec: Partial<HorizontalPodAutoscalerSpec> = {}): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 10, ...spec },
  };
}

const upPolicies: HPAScalingPolicy[] = [
  { type: 'Pods', value: 4, periodSeconds: 15 },
  { type: 'Percent', value: 100, periodSeconds: 15 },
];
const downPolicies: HPAScalingPolicy[] = [{ type: 'Percent', value: 100, periodSeconds: 15 }];
const custom: HPAScalingPolicy[] = [{ type: 'Pods', value: 1, periodSeconds: 60 }];

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    Object.values(o).forEach(deepFreeze);
    Object.freeze(o);
  }
  return o;
}

describe('applyDefaults', () => {
  it('sets minReplicas 1 only when unset', () => {
    expect(applyDefaults(hpa()).spec.minReplicas).toBe(1);
    expect(applyDefaults(hpa({ minReplicas: 0 })).spec.minReplicas).toBe(0);
    expect(applyDefaults(hpa({ minReplicas: 3 })).spec.minReplicas).toBe(3);
  });

  it('defaults absent or empty metrics to cpu at 80% utilization, and keeps given ones', () => {
    const cpu80 = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    expect(applyDefaults(hpa()).spec.metrics).toEqual(cpu80);
    expect(applyDefaults(hpa({ metrics: [] })).spec.metrics).toEqual(cpu80);
    const given = [{ type: 'Pods' as const, pods: { metric: { name: 'qps' }, target: { type: 'AverageValue' as const, averageValue: '10' } } }];
    expect(applyDefaults(hpa({ metrics: given })).spec.metrics).toEqual(given);
  });

  it('leaves an absent behavior absent (the controller takes its legacy path)', () => {
    expect('behavior' in applyDefaults(hpa()).spec).toBe(false);
  });

  it('fills a present empty behavior with both directions', () => {
    expect(applyDefaults(hpa({ behavior: {} })).spec.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: upPolicies },
      scaleDown: { selectPolicy: 'Max', policies: downPolicies },
    });
  });

  it('keeps everything else of the object', () => {
    const input = hpa({ behavior: {} });
    const out = applyDefaults({ ...input, status: { currentReplicas: 2, desiredReplicas: 3 } });
    expect(out.metadata).toEqual(input.metadata);
    expect(out.spec.scaleTargetRef).toEqual(input.spec.scaleTargetRef);
    expect(out.spec.maxReplicas).toBe(10);
    expect(out.status).toEqual({ currentReplicas: 2, desiredReplicas: 3 });
  });

  it('is pure: a frozen input works and is not changed; the defaulted behavior is a fresh object', () => {
    const input = deepFreeze(hpa({ metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }], behavior: { scaleUp: { policies: custom } } }));
    const out = applyDefaults(input);
    expect(out).not.toBe(input);
    expect(out.spec).not.toBe(input.spec);
    // metric specs are shared on purpose (nothing in lib/hpa mutates them; copying cost a third of a sync)
    expect(out.spec.metrics).toEqual(input.spec.metrics);
    out.spec.behavior!.scaleUp!.policies![0].value = 99;
    expect(custom[0].value).toBe(1);
  });

  it('is idempotent for any behavior shape', () => {
    const policyArb = fc.record({ type: fc.constantFrom('Pods' as const, 'Percent' as const), value: fc.integer({ min: 1, max: 100 }), periodSeconds: fc.integer({ min: 1, max: 1800 }) });
    const rulesArb = fc.option(
      fc.record(
        {
          stabilizationWindowSeconds: fc.integer({ min: 0, max: 3600 }),
          selectPolicy: fc.constantFrom('Max' as const, 'Min' as const, 'Disabled' as const),
          policies: fc.array(policyArb, { maxLength: 3 }),
          tolerance: fc.constantFrom('0', '0.05', '100m'),
        },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    );
    const specArb = fc.record(
      {
        minReplicas: fc.integer({ min: 0, max: 5 }),
        behavior: fc.record({ scaleUp: rulesArb, scaleDown: rulesArb }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(specArb, (spec) => {
        const once = applyDefaults(hpa(spec as Partial<HorizontalPodAutoscalerSpec>));
        expect(applyDefaults(once)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });
});

describe('defaultBehavior (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules)', () => {
  const cases: [string, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerBehavior][] = [
    [
      'nothing given',
      {},
      { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: upPolicies }, scaleDown: { selectPolicy: 'Max', policies: downPolicies } },
    ],
    [
      'scaleUp window only',
      { scaleUp: { stabilizationWindowSeconds: 60 } },
      { scaleUp: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: upPolicies }, scaleDown: { selectPolicy: 'Max', policies: downPolicies } },
    ],
    [
      'given policies replace the defaults whole',
      { scaleUp: { policies: custom }, scaleDown: { policies: custom } },
      { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: custom }, scaleDown: { selectPolicy: 'Max', policies: custom } },
    ],
    [
      'an explicit empty policy list is kept (validation rejects it)',
      { scaleUp: { policies: [] } },
      { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [] }, scaleDown: { selectPolicy: 'Max', policies: downPolicies } },
    ],
    [
      'scaleDown window and selectPolicy given',
      { scaleDown: { stabilizationWindowSeconds: 600, selectPolicy: 'Disabled' } },
      { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: upPolicies }, scaleDown: { stabilizationWindowSeconds: 600, selectPolicy: 'Disabled', policies: downPolicies } },
    ],
    [
      'tolerance is carried over',
      { scaleUp: { tolerance: '0.05' }, scaleDown: { tolerance: '0' } },
      {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: upPolicies, tolerance: '0.05' },
        scaleDown: { selectPolicy: 'Max', policies: downPolicies, tolerance: '0' },
      },
    ],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(defaultBehavior(input)).toEqual(want));

  it('leaves the scaleDown window unset for the controller to fill', () => {
    expect(defaultBehavior({ scaleDown: { selectPolicy: 'Min' } }).scaleDown).not.toHaveProperty('stabilizationWindowSeconds');
  });

  it('hands out fresh defaults every time', () => {
    const first = defaultBehavior({});
    first.scaleUp!.policies![0].value = 1000;
    first.scaleDown!.policies!.push({ type: 'Pods', value: 1, periodSeconds: 1 });
    expect(defaultBehavior({})).toEqual(cases[0][2]);
  });
});

describe('controller defaults', () => {
  it('match kube-controller-manager and the feature gates of upstream 1.35+', () => {
    expect(DEFAULT_FEATURE_GATES).toEqual({ HPAScaleToZero: true, HPAConfigurableTolerance: true, HPAExternalMetricFallback: true });
    expect(DEFAULT_CONTROLLER_SETTINGS).toMatchObject({
      tolerance: { scaleUp: 0.1, scaleDown: 0.1 },
      cpuInitializationPeriodSeconds: 300,
      initialReadinessDelaySeconds: 30,
      downscaleStabilizationWindowSeconds: 300,
    });
  });
});
