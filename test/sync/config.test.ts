// The sync function's environment: defaults, and a clear error naming the variable and field.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/defaults.js';
import { loadSyncConfig } from '../../lib/sync/config.js';
import { tickTimes } from '../../lib/sync/invocation.js';

const base = { AWS_REGION: 'eu-west-1', SHPA_TABLE: 'shpa', SHPA_CLUSTERS: '[{"name":"prod"},{"name":"batch","region":"us-east-1"}]' };

describe('loadSyncConfig', () => {
  it('reads the clusters and applies the defaults', () => {
    const c = loadSyncConfig(base);
    expect(c.clusters).toEqual([
      { name: 'prod', region: 'eu-west-1' },
      { name: 'batch', region: 'us-east-1' },
    ]);
    expect(c).toMatchObject({ tableName: 'shpa', region: 'eu-west-1', syncPeriodSeconds: 15, scheduleIntervalSeconds: 60 });
    expect(c.options).toMatchObject({ dryRun: false, concurrency: 32, settings: DEFAULT_CONTROLLER_SETTINGS });
  });

  it('overrides controller settings field by field', () => {
    const c = loadSyncConfig({ ...base, SHPA_DRY_RUN: 'TRUE', SHPA_CONTROLLER_SETTINGS: '{"tolerance":{"scaleUp":0.05},"downscaleStabilizationWindowSeconds":600}' });
    expect(c.options.dryRun).toBe(true);
    expect(c.options.settings).toMatchObject({ tolerance: { scaleUp: 0.05, scaleDown: 0.1 }, downscaleStabilizationWindowSeconds: 600 });
    expect(DEFAULT_CONTROLLER_SETTINGS.tolerance.scaleUp).toBe(0.1);
  });

  it.each([
    [{ AWS_REGION: undefined }, /^AWS_REGION is not set/],
    [{ SHPA_CLUSTERS: '' }, /^SHPA_CLUSTERS is not set/],
    [{ SHPA_CLUSTERS: '{"name":"a"}' }, /^SHPA_CLUSTERS: must be a JSON list/],
    [{ SHPA_CLUSTERS: '[{"name":"a"},{"name":"a"}]' }, /^SHPA_CLUSTERS\[1\]\.name: duplicate cluster a/],
    [{ SHPA_CLUSTERS: '[{"name":"a","region":"mars"}]' }, /^SHPA_CLUSTERS\[0\]\.region: invalid region "mars"/],
    [{ SHPA_CLUSTERS: '[{"name":"a","role":"x"}]' }, /^SHPA_CLUSTERS\[0\]: unknown field role/],
    [{ SHPA_SYNC_PERIOD_SECONDS: '120' }, /longer than the schedule interval/],
    [{ SHPA_CONCURRENCY: '1.5' }, /^SHPA_CONCURRENCY: must be an integer from 1 to 512, got "1\.5"/],
    [{ SHPA_DRY_RUN: 'yes' }, /^SHPA_DRY_RUN: must be true or false/],
    [{ SHPA_CONTROLLER_SETTINGS: '{"tolerance":{"up":1}}' }, /^SHPA_CONTROLLER_SETTINGS\.tolerance\.up: unknown field/],
    [{ SHPA_CONTROLLER_SETTINGS: '{"scaleUpLimitFactor":-1}' }, /^SHPA_CONTROLLER_SETTINGS\.scaleUpLimitFactor: must be a number ≥ 0/],
  ])('%j is refused with %s', (env, message) => {
    expect(() => loadSyncConfig({ ...base, ...env })).toThrow(message);
  });
});

describe('tickTimes', () => {
  it('starts at once, then on multiples of the period, at least half a period from either invocation', () => {
    expect(tickTimes(0, 15_000, 60_000)).toEqual([0, 15_000, 30_000, 45_000]);
    // Started 10 s into a period: the next multiple is only 5 s away, so it is skipped.
    expect(tickTimes(10_000, 15_000, 60_000)).toEqual([10_000, 30_000, 45_000, 60_000]);
    expect(tickTimes(3_000, 60_000, 60_000)).toEqual([3_000]);
  });
});
