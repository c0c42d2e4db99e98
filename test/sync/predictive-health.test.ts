// The Argo CD health check is unchanged in meaning with spec.predictive: PredictiveMinimum, whether it
// raises the minimum (True) or not yet (False: NotEnoughHistory, ForecastOnly…), is no fault and no pause.
import { describe, expect, it } from 'vitest';
import { reconcile } from '../../lib/hpa/reconcile.js';
import { recordDemand, type DemandHistory } from '../../lib/hpa/forecast.js';
import { withReadyCondition } from '../../lib/sync/readiness.js';
import type { PredictiveSpec } from '../../lib/hpa/types.js';
import { autoscaler, syncInput } from '../hpa/drive.js';
import { argoHealth, LUA } from '../support/lua.js';

const MONDAY = Date.UTC(2026, 10, 2);
const at = (day: number, hour: number, minute = 0) => new Date(MONDAY + ((day * 24 + hour) * 60 + minute) * 60_000);

describe.skipIf(!LUA)('Argo CD health with spec.predictive', () => {
  it.each<[string, PredictiveSpec, number, string]>([
    ['raising the minimum', { mode: 'ForecastAndScale' }, 3, 'True'],
    ['not enough history yet', { mode: 'ForecastAndScale' }, 0.5, 'False'],
    ['forecast only', { mode: 'ForecastOnly' }, 3, 'False'],
  ])('%s: Healthy', (_what, predictive, days, conditionStatus) => {
    let demand: DemandHistory | undefined;
    for (let m = 0; m < days * 1440; m += 5) demand = recordDemand(demand, at(0, 0, m), (m % 1440) >= 540 && (m % 1440) < 1020 ? 20 : 3, 14 * 86_400);
    const base = autoscaler({ min: 2 });
    const hpa = { ...base, metadata: { ...base.metadata, generation: 1 }, spec: { ...base.spec, predictive } };
    const now = at(Math.ceil(days), 8, 56);
    // A sync an hour before, then the one at 08:56 (which raises the target, reading no metrics, as upstream below its minimum).
    const before = reconcile({ ...syncInput(hpa, 3, 3, new Date(now.getTime() - 3_600_000)), demand });
    const r = reconcile({ ...syncInput({ ...hpa, status: before.status }, 3, 3, now), demand });
    const status = withReadyCondition(r.status, 1, undefined, now);
    expect(status.conditions?.find((c) => c.type === 'PredictiveMinimum')?.status).toBe(conditionStatus);
    const health = argoHealth('infra/argocd/health.lua', { metadata: hpa.metadata, spec: hpa.spec, apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', status: { ...status, observedGeneration: 1 } });
    expect(health.status).toBe('Healthy');
  });
});
if (!LUA) console.log('predictive-health.test.ts: skipped — no lua5.4 or lua on PATH');
