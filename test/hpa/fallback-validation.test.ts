// KEP-5679 fallback blocks through validateHPA: what `shpa apply` refuses, with the field named.
import { describe, expect, it } from 'vitest';
import { formatFieldError, validateHPA } from '../../lib/hpa/api/validation.js';

type Json = Record<string, unknown>;
const target = { type: 'AverageValue', averageValue: '5' };
const sources: [type: string, key: string, source: Json][] = [
  ['External', 'external', { metric: { name: 'queue_depth' }, target: { type: 'Value', value: '100' } }],
  ['Resource', 'resource', { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } }],
  ['ContainerResource', 'containerResource', { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } }],
  ['Pods', 'pods', { metric: { name: 'rps' }, target }],
  ['Object', 'object', { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'web' }, metric: { name: 'rps' }, target: { type: 'Value', value: '5' } }],
];

function hpa(type: string, key: string, source: Json, fallback: unknown): Json {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 20,
      metrics: [{ type, [key]: { ...source, fallback } }],
    },
  };
}

const cases: { name: string; fallback: unknown; errors: string[] }[] = [
  { name: 'replicas only: failureDurationSeconds defaults to 180', fallback: { replicas: 10 }, errors: [] },
  { name: 'failureDurationSeconds 180, the minimum', fallback: { replicas: 10, failureDurationSeconds: 180 }, errors: [] },
  { name: 'failureDurationSeconds below 180', fallback: { replicas: 10, failureDurationSeconds: 179 }, errors: ['fallback.failureDurationSeconds: Invalid value: 179: must be at least 180'] },
  { name: 'replicas missing', fallback: { failureDurationSeconds: 300 }, errors: ['fallback.replicas: Required value: must specify the replica count to use while the metric cannot be read'] },
  { name: 'replicas 0', fallback: { replicas: 0 }, errors: ['fallback.replicas: Invalid value: 0: must be greater than 0'] },
  { name: 'replicas at maxReplicas', fallback: { replicas: 20 }, errors: [] },
  { name: 'replicas above maxReplicas', fallback: { replicas: 21 }, errors: ['fallback.replicas: Invalid value: 21: must be less than or equal to spec.maxReplicas (20)'] },
  { name: 'failureDurationSeconds beyond int32', fallback: { replicas: 10, failureDurationSeconds: 2 ** 31 }, errors: ['fallback.failureDurationSeconds: Invalid value: 2147483648: must be a 32-bit integer'] },
  { name: 'replicas not an integer', fallback: { replicas: '10' }, errors: ['fallback.replicas: Invalid value: "10": must be a 32-bit integer'] },
  { name: 'an unknown field', fallback: { replicas: 3, failureThreshold: 3 }, errors: ['fallback.failureThreshold: Forbidden: unknown field'] },
  { name: 'not an object', fallback: 10, errors: ['fallback: Invalid value: 10: must be an object'] },
];

describe('validateHPA: metric fallback (KEP-5679, ours on every type)', () => {
  for (const [type, key, source] of sources) {
    it.each(cases)(`${type}: $name`, ({ fallback, errors }) => {
      const r = validateHPA(hpa(type, key, source, fallback));
      const prefix = `spec.metrics[0].${key}.`;
      expect(r.valid ? [] : r.errors.map(formatFieldError)).toEqual(errors.map((e) => prefix + e));
    });
  }

  it('keeps a valid fallback in the object it returns', () => {
    const r = validateHPA(hpa('External', 'external', sources[0][2], { replicas: 10, failureDurationSeconds: 300 }));
    expect(r.valid && r.hpa.spec.metrics?.[0].external?.fallback).toEqual({ replicas: 10, failureDurationSeconds: 300 });
  });

  it('gate off: the block is dropped before validating, as dropDisabledFields does', () => {
    const r = validateHPA(hpa('External', 'external', sources[0][2], { replicas: 0, failureDurationSeconds: 5 }), { HPAExternalMetricFallback: false });
    expect(r.valid).toBe(true);
    expect(r.valid && r.hpa.spec.metrics?.[0].external?.fallback).toBeUndefined();
  });
});
