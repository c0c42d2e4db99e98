// The scenario of `npm run bench -- predictive`, short: four days of the daily + weekly trace through
// the simulator, without spec.predictive, with ForecastOnly and with ForecastAndScale.
import { describe, expect, it } from 'vitest';
import { runScenarios } from '../../bench/support/predictive-scenario.js';
import { randomWalkTrace, seasonalTrace } from '../../bench/support/predictive-traces.js';

const DAY_SYNCS = 86_400 / 15;

describe('predictive minimums through the simulator (the bench scenario, four days)', () => {
  it('learns from the trace: nothing the first day, then a floor that cuts the under-provisioning; ForecastOnly changes nothing', () => {
    const o = runScenarios(seasonalTrace(4));
    const forecast = o.reports.ForecastAndScale.forecast!;
    expect(forecast).toHaveLength(4 * DAY_SYNCS);
    // Less than the minimum of history (24 h): no floor.
    expect(forecast.slice(0, DAY_SYNCS).every((f) => f === null)).toBe(true);
    expect(o.syncsActing).toBeGreaterThan(0);
    // ForecastOnly computes a forecast too (from its own history) and scales nothing.
    expect(o.reports.ForecastOnly.forecast!.findIndex((f) => f !== null)).toBe(forecast.findIndex((f) => f !== null));
    expect(o.forecastOnlyIdentical).toBe(true);
    expect(o.forecastOnly).toEqual(o.off);
    // A floor only raises: wherever it acts, replicas are at least the floor (it is within maxReplicas).
    const below = o.reports.ForecastAndScale.replicas.findIndex((r, i) => forecast[i] !== null && r < forecast[i]!);
    expect(below).toBe(-1);
    const lastDay = (r: typeof o.reports.off) => r.times.slice(3 * DAY_SYNCS).reduce((sum, _t, k) => sum + Math.max(0, (r.demand![3 * DAY_SYNCS + k] ?? 0) - r.readyPods[3 * DAY_SYNCS + k]) / 4, 0);
    // The fourth day, learned from three (measured: about 100 replica-minutes short without, under 10 with).
    expect(lastDay(o.reports.ForecastAndScale)).toBeLessThan(0.5 * lastDay(o.reports.off));
    expect(o.forecastAndScale.underProvisionedReplicaMinutes).toBeLessThan(o.off.underProvisionedReplicaMinutes);
    // For a few percent more replica-minutes at most (measured: +0.6 %).
    expect(o.forecastAndScale.replicaMinutes).toBeLessThan(1.05 * o.off.replicaMinutes);
  }, 60_000);

  it('a random walk: nothing to learn, nothing changed', () => {
    const o = runScenarios(randomWalkTrace(4));
    // The pattern check finds nothing worth acting on: the same replicas as without.
    expect(o.syncsActing).toBe(0);
    expect(o.forecastAndScale).toEqual(o.off);
    expect(o.reports.ForecastAndScale.replicas).toEqual(o.reports.off.replicas);
  }, 60_000);
});
