import { describe, expect, it } from 'vitest';
import { DEFAULT_FORECAST_SETTINGS, recordDemand, type DemandHistory } from '../../lib/hpa/forecast.js';
import { reconcile, type ReconcileResult } from '../../lib/hpa/reconcile.js';
import { validateHPA } from '../../lib/hpa/api/validation.js';
import { formatFieldError } from '../../lib/hpa/api/field-path.js';
import { applyDefaults } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, PredictiveSpec, ScalingHistory } from '../../lib/hpa/types.js';
import { autoscaler, syncInput } from './drive.js';

const DAY = 86_400;
const MONDAY = Date.UTC(2026, 10, 2); // 2026-11-02, a Monday
const at = (day: number, hour: number, minute = 0) => new Date(MONDAY + (day * DAY + hour * 3600 + minute * 60) * 1000);

/** 20 replicas from 09:00 to 17:00 on weekdays, 3 otherwise. */
const officeHours = (day: number, hour: number) => (day % 7 < 5 && hour >= 9 && hour < 17 ? 20 : 3);

/** Demand recorded every 5 minutes for `days` days from Monday 00:00. */
function learn(days: number, f: (day: number, hour: number) => number): DemandHistory {
  let h: DemandHistory | undefined;
  for (let m = 0; m < days * 24 * 60; m += 5) h = recordDemand(h, at(0, 0, m), f(Math.floor(m / 1440), (m % 1440) / 60), DEFAULT_FORECAST_SETTINGS.historySeconds);
  return h!;
}

function predictiveHpa(o: { min?: number; max?: number; predictive?: Partial<PredictiveSpec>; scaleDownWindow?: number } = {}): HorizontalPodAutoscaler {
  const hpa = autoscaler({
    min: o.min ?? 1,
    max: o.max ?? 50,
    ...(o.scaleDownWindow !== undefined ? { behavior: { scaleDown: { stabilizationWindowSeconds: o.scaleDownWindow } } } : {}),
  });
  hpa.spec.predictive = { mode: 'ForecastAndScale', ...o.predictive };
  return hpa;
}

function sync(hpa: HorizontalPodAutoscaler, demand: DemandHistory | undefined, now: Date, replicas: number, wants: number, history?: ScalingHistory): ReconcileResult {
  return reconcile({ ...syncInput(hpa, replicas, wants, now, history), demand });
}

const condition = (r: ReconcileResult) => r.conditions.find((c) => c.type === 'PredictiveMinimum');

interface Case {
  name: string;
  days: number;
  demand?: (day: number, hour: number) => number;
  now: Date;
  hpa: Parameters<typeof predictiveHpa>[0];
  replicas: number;
  wants: number;
  expect: { desired: number; reason: string; status: 'True' | 'False'; step?: boolean };
}

const spike = (day: number, hour: number) => (day === 4 && hour >= 14 && hour < 15 ? 90 : officeHours(day, hour));
const holiday = (day: number, hour: number) => (day === 8 ? 3 : officeHours(day, hour));

const cases: Case[] = [
  { name: 'not enough history: the reactive recommendation only', days: 0.9, now: at(0, 22), hpa: {}, replicas: 3, wants: 3, expect: { desired: 3, reason: 'NotEnoughHistory', status: 'False' } },
  { name: 'no pattern yet on the second day', days: 1, now: at(1, 8, 56), hpa: {}, replicas: 3, wants: 3, expect: { desired: 3, reason: 'NoPattern', status: 'False' } },
  { name: 'the buffer: capacity for the 09:00 peak is in place at 08:56', days: 3, now: at(3, 8, 56), hpa: {}, replicas: 3, wants: 3, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'the buffer: at 08:50 the peak is more than 300 s away', days: 3, now: at(3, 8, 50), hpa: {}, replicas: 3, wants: 3, expect: { desired: 3, reason: 'ForecastAboveMinimum', status: 'True' } },
  { name: 'a longer buffer raises it from 08:50', days: 3, now: at(3, 8, 50), hpa: { predictive: { schedulingBufferSeconds: 900 } }, replicas: 3, wants: 3, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'the cap: held to maxReplicas by default', days: 3, now: at(3, 10), hpa: { max: 12 }, replicas: 3, wants: 3, expect: { desired: 12, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'IncreaseMaxReplicas: the forecast minimum may pass maxReplicas', days: 3, now: at(3, 10), hpa: { max: 12, predictive: { maxReplicasBehavior: 'IncreaseMaxReplicas' } }, replicas: 3, wants: 3, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'a spike is not learned: the next day raises to the usual peak, not the spike', days: 5, demand: spike, now: at(5, 14, 30), hpa: {}, replicas: 3, wants: 3, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'a holiday does not lower the next days', days: 10, demand: holiday, now: at(10, 10), hpa: {}, replicas: 3, wants: 3, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'never lowers: a higher spec.minReplicas stays', days: 3, now: at(3, 10), hpa: { min: 25 }, replicas: 25, wants: 3, expect: { desired: 25, reason: 'ForecastNotHigher', status: 'False' } },
  { name: 'never lowers: metrics above the forecast win', days: 3, now: at(3, 10), hpa: {}, replicas: 20, wants: 30, expect: { desired: 30, reason: 'ForecastAboveMinimum', status: 'True' } },
  { name: 'never scales in on the forecast alone: a quiet forecast leaves the metrics\' count', days: 3, now: at(3, 20), hpa: { scaleDownWindow: 0 }, replicas: 15, wants: 15, expect: { desired: 15, reason: 'ForecastAboveMinimum', status: 'True' } },
  { name: 'on the way down the floor holds the metrics\' drop', days: 3, now: at(3, 12), hpa: { scaleDownWindow: 0 }, replicas: 30, wants: 10, expect: { desired: 20, reason: 'ForecastAboveMinimum', status: 'True', step: true } },
  { name: 'ForecastOnly: computed, shown, not applied', days: 3, now: at(3, 10), hpa: { predictive: { mode: 'ForecastOnly' } }, replicas: 3, wants: 3, expect: { desired: 3, reason: 'ForecastOnly', status: 'False' } },
];

describe('predictive minimums in a sync', () => {
  it.each(cases)('$name', (c) => {
    const r = sync(predictiveHpa(c.hpa), learn(c.days, c.demand ?? officeHours), c.now, c.replicas, c.wants);
    expect(r.decision.desiredReplicas).toBe(c.expect.desired);
    expect(condition(r)).toMatchObject({ status: c.expect.status, reason: c.expect.reason });
    expect(r.decision.steps.some((s) => s.rule === 'predictive')).toBe(c.expect.step ?? false);
    // First sync with the condition True: the minimum was raised (even where the target already had it).
    expect(r.events.some((e) => e.reason === 'PredictiveMinimumRaised')).toBe(c.expect.status === 'True');
  });

  it('says the forecast minimum, the horizon and the history it rests on, and why it raised the target', () => {
    const r = sync(predictiveHpa(), learn(3, officeHours), at(3, 8, 56), 3, 3);
    expect(condition(r)?.message).toBe('minimum 20 (forecast 20 for the next 300 s; 1 without it); history 3d 8h');
    expect(r.decision.predictive).toEqual({ mode: 'ForecastAndScale', replicas: 20, horizonSeconds: 300, historySeconds: 3 * DAY + 8 * 3600 + 56 * 60, applied: true });
    expect(r.decision.rescaleReason).toBe('Current number of replicas below the predictive minimum');
    expect(r.events).toContainEqual({ type: 'Normal', reason: 'PredictiveMinimumRaised', message: condition(r)!.message });
  });

  it('raises the event once per new minimum, not every sync', () => {
    const hpa = predictiveHpa();
    const demand = learn(3, officeHours);
    const first = sync(hpa, demand, at(3, 9, 30), 3, 3);
    const again = sync({ ...hpa, status: first.status }, demand, at(3, 9, 31), 20, 20);
    expect(first.events.map((e) => e.reason)).toContain('PredictiveMinimumRaised');
    expect(again.events.map((e) => e.reason)).not.toContain('PredictiveMinimumRaised');
  });

  it('learns what the metrics asked for within min..max, not the floor it raised', () => {
    const demand = learn(3, officeHours);
    const r = sync(predictiveHpa({ max: 12 }), demand, at(3, 8, 56), 12, 40);
    const bucket = Math.floor(at(3, 8, 56).getTime() / 300_000);
    expect(r.demand).toBe(demand);
    expect(r.demand!.values[bucket - r.demand!.firstBucket]).toBe(12);
    const low = sync(predictiveHpa({ min: 2 }), undefined, at(3, 8, 56), 3, 0);
    expect(low.demand?.values).toEqual([2]);
    const raised = sync(predictiveHpa(), learn(3, officeHours), at(3, 8, 57), 20, 3);
    expect(raised.demand!.values.at(-1)).toBe(3);
    // Upstream reads no metrics on the sync that raises the target to its minimum: nothing is learned there.
    const raising = learn(3, officeHours);
    const before = raising.values.length;
    sync(predictiveHpa(), raising, at(3, 8, 57), 3, 3);
    expect(raising.values.length).toBe(before);
  });

  it('without spec.predictive: no demand, no condition, no decision field', () => {
    const r = sync(autoscaler(), learn(3, officeHours), at(3, 8, 56), 3, 3);
    expect(r.demand).toBeUndefined();
    expect(condition(r)).toBeUndefined();
    expect(r.decision.predictive).toBeUndefined();
    expect(r.decision.desiredReplicas).toBe(3);
  });

  it('ForecastOnly: replicas identical to the same autoscaler without it, over two weeks of office hours', () => {
    const plain = autoscaler({ min: 2, max: 30 });
    const only = predictiveHpa({ min: 2, max: 30, predictive: { mode: 'ForecastOnly' } });
    const run = (hpa: HorizontalPodAutoscaler) => {
      let demand: DemandHistory | undefined;
      let history: ScalingHistory | undefined;
      let replicas = 2;
      let obj = hpa;
      const out: number[] = [];
      const reasons = new Set<string>();
      for (let m = 0; m < 14 * 1440; m += 5) {
        const now = at(0, 0, m);
        const r = sync(obj, demand, now, replicas, officeHours(Math.floor(m / 1440), (m % 1440) / 60), history);
        demand = r.demand;
        history = r.history;
        obj = { ...obj, status: r.status };
        replicas = r.decision.desiredReplicas;
        out.push(replicas);
        const c = condition(r);
        if (c?.reason) reasons.add(c.reason);
      }
      return { out, reasons };
    };
    const a = run(plain);
    const b = run(only);
    expect(b.out).toEqual(a.out);
    expect(b.reasons).toContain('ForecastOnly');
    expect(a.reasons.size).toBe(0);
  });

  it('ForecastAndScale over the same weeks has the capacity in place before the peak', () => {
    const hpa = predictiveHpa({ min: 2, max: 30 });
    let demand: DemandHistory | undefined;
    let history: ScalingHistory | undefined;
    let replicas = 2;
    let obj = hpa;
    let readyAtNine = 0;
    for (let m = 0; m < 7 * 1440; m += 5) {
      const now = at(0, 0, m);
      const r = sync(obj, demand, now, replicas, officeHours(Math.floor(m / 1440), (m % 1440) / 60), history);
      ({ demand, history } = r);
      obj = { ...obj, status: r.status };
      replicas = r.decision.desiredReplicas;
      if ((m % 1440) === 8 * 60 + 55 && replicas === 20) readyAtNine++;
    }
    // Tuesday to Friday learn Monday's peak; the check needs a day of its own: Thursday and Friday are ready at 08:55.
    expect(readyAtNine).toBeGreaterThanOrEqual(2);
  });
});

describe('spec.predictive validation and defaults', () => {
  const withPredictive = (predictive: unknown) => ({ ...autoscaler(), spec: { ...autoscaler().spec, predictive } });
  const errors = (predictive: unknown) => {
    const r = validateHPA(withPredictive(predictive));
    return r.valid ? [] : r.errors.map(formatFieldError);
  };

  it.each([
    [{}, 'spec.predictive.mode: Required value'],
    [{ mode: 'Forecast' }, 'spec.predictive.mode: Unsupported value: "Forecast": supported values: "ForecastOnly", "ForecastAndScale"'],
    [{ mode: 'ForecastOnly', schedulingBufferSeconds: 7200 }, 'spec.predictive.schedulingBufferSeconds: Invalid value: 7200: must be between 0 and 3600 (1 hour)'],
    [{ mode: 'ForecastOnly', historySeconds: 3600 }, 'spec.predictive.historySeconds: Invalid value: 3600: must be between 172800 and 1209600 (2 to 14 days)'],
    [{ mode: 'ForecastOnly', historySeconds: 2.5 }, 'spec.predictive.historySeconds'],
    [{ mode: 'ForecastOnly', historySeconds: 200_000, minHistorySeconds: 300_000 }, 'spec.predictive.minHistorySeconds: Invalid value: 300000: must be less than or equal to `historySeconds`'],
    [{ mode: 'ForecastOnly', maxReplicasBehavior: 'Ignore' }, 'spec.predictive.maxReplicasBehavior: Unsupported value'],
    [{ mode: 'ForecastOnly', horizon: 3 }, 'spec.predictive.horizon: Forbidden'],
    ['yes', 'spec.predictive'],
  ])('%j is refused, naming the field', (predictive, message) => {
    const e = errors(predictive);
    expect(e.some((x) => x.startsWith(message))).toBe(true);
  });

  it('accepts a full spec and fills the defaults', () => {
    expect(errors({ mode: 'ForecastAndScale', schedulingBufferSeconds: 600, historySeconds: 7 * DAY, minHistorySeconds: 2 * DAY, maxReplicasBehavior: 'IncreaseMaxReplicas' })).toEqual([]);
    expect(applyDefaults(predictiveHpa()).spec.predictive).toEqual({
      mode: 'ForecastAndScale',
      schedulingBufferSeconds: 300,
      historySeconds: 14 * DAY,
      minHistorySeconds: DAY,
      maxReplicasBehavior: 'HonorMaxReplicas',
    });
  });
});
