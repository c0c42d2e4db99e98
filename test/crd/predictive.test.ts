// spec.predictive at admission: what the CRD's schema and CEL rules refuse, the defaults the API server
// fills, and that the CRD and lib/hpa agree on what they admit.
import { describe, expect, it } from 'vitest';
import { formatError, admitCustomResource } from '../../lib/local/kubernetes/crd/admission.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { validateHPA } from '../../lib/hpa/api/validation.js';

const crd = serverlessHpaCrd();
const object = (predictive: unknown) => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'ServerlessHorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 20, predictive },
});

describe('spec.predictive at admission', () => {
  const cases: { name: string; predictive: unknown; error?: string }[] = [
    { name: 'ForecastOnly with the defaults', predictive: { mode: 'ForecastOnly' } },
    { name: 'every field', predictive: { mode: 'ForecastAndScale', schedulingBufferSeconds: 600, historySeconds: 604_800, minHistorySeconds: 172_800, maxReplicasBehavior: 'IncreaseMaxReplicas' } },
    { name: 'no mode', predictive: { schedulingBufferSeconds: 300 }, error: 'spec.predictive.mode: Required value' },
    { name: 'an unknown mode', predictive: { mode: 'Scale' }, error: 'spec.predictive.mode: Unsupported value: "Scale"' },
    { name: 'a buffer over an hour', predictive: { mode: 'ForecastOnly', schedulingBufferSeconds: 3601 }, error: 'spec.predictive.schedulingBufferSeconds: Invalid value: 3601' },
    { name: 'more than 14 days of history', predictive: { mode: 'ForecastOnly', historySeconds: 1_209_601 }, error: 'spec.predictive.historySeconds: Invalid value: 1209601' },
    {
      name: 'a minimum history longer than the history',
      predictive: { mode: 'ForecastOnly', historySeconds: 172_800, minHistorySeconds: 259_200 },
      error: 'spec.predictive.minHistorySeconds: Invalid value: must be less than or equal to `historySeconds`',
    },
    { name: 'an unknown breach behavior', predictive: { mode: 'ForecastOnly', maxReplicasBehavior: 'Ignore' }, error: 'spec.predictive.maxReplicasBehavior: Unsupported value: "Ignore"' },
  ];
  it.each(cases)('$name', (c) => {
    const o = object(c.predictive);
    const errors = admitCustomResource(crd, 'v1', o).errors.map(formatError);
    const table = validateHPA({ ...o, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });
    if (!c.error) {
      expect(errors).toEqual([]);
      expect(table.valid).toBe(true);
    } else {
      expect(errors.some((e) => e.startsWith(c.error!)), errors.join(' | ')).toBe(true);
      expect(table.valid).toBe(false);
    }
  });

  it('fills the defaults as lib/hpa does', () => {
    const r = admitCustomResource(crd, 'v1', object({ mode: 'ForecastAndScale' }));
    expect((r.object as { spec: { predictive: unknown } }).spec.predictive).toEqual({
      mode: 'ForecastAndScale',
      schedulingBufferSeconds: 300,
      historySeconds: 1_209_600,
      minHistorySeconds: 86_400,
      maxReplicasBehavior: 'HonorMaxReplicas',
    });
  });
});
