// The alarms at every sync period from 15 s to 900 s: each period of the alarm sees a tick or
// more, so a failure of every tick breaches every period and the thresholds count periods.
// CloudWatch's rule evaluated here as it documents it: of the last EvaluationPeriods
// datapoints, DatapointsToAlarm breaching; a missing one as TreatMissingData says.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { alarmResources } = require('../../infra/alarms.cjs') as { alarmResources(c: Record<string, unknown>): { resources: Record<string, { Type: string; Properties: Alarm }> } };

interface Alarm {
  AlarmName: string;
  MetricName: string;
  Namespace: string;
  Period: number;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  TreatMissingData: string;
  Dimensions: { Name: string; Value: unknown }[];
}

const SHARDS = 2;
function alarmsAt(syncPeriodSeconds: number, allAlarms = true): Record<string, Alarm> {
  const { resources } = alarmResources({ service: 'serverless-hpa', stage: 'prod', tableName: 't', syncPeriodSeconds, shards: SHARDS, workerTimeout: syncPeriodSeconds, alarmTopicArn: '', allAlarms });
  return Object.fromEntries(Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').map((r) => [r.Properties.AlarmName.replace('serverless-hpa-prod-', ''), r.Properties]));
}

/** Whether the alarm is in ALARM after these datapoints (one per period, undefined: none). */
function fires(a: Alarm, points: (number | undefined)[]): boolean {
  const last = points.slice(-a.EvaluationPeriods);
  const breaching = last.filter((v) => {
    if (v === undefined) return a.TreatMissingData === 'breaching';
    return a.ComparisonOperator === 'LessThanThreshold' ? v < a.Threshold : v >= a.Threshold;
  }).length;
  return last.length === a.EvaluationPeriods && breaching >= a.DatapointsToAlarm;
}

describe.each([15, 60, 300, 900])('at a sync period of %i s', (period) => {
  const alarms = alarmsAt(period);
  const alarmPeriod = Math.max(60, period);
  const ticks = SHARDS * (alarmPeriod / period);
  const periods = (n: number, v: number | undefined) => Array.from({ length: n }, () => v);

  it('each alarm on our metrics or the worker reads one alarm period, and our metrics carry the stage', () => {
    for (const name of ['worker-missing-cycles', 'worker-errors', 'worker-throttles', 'cycle-errors']) expect(alarms[name].Period, name).toBe(alarmPeriod);
    for (const name of ['worker-missing-cycles', 'cycle-errors', 'ticks-lost']) expect(alarms[name].Dimensions).toContainEqual({ Name: 'stage', Value: 'prod' });
  });

  it('every tick failing: the error alarms and the missing-cycles alarm fire within 5 alarm periods', () => {
    // Each tick's invocation fails (Lambda Errors), its cycle reports an error (EMF Errors), and no cycle runs (no Cycles).
    expect(fires(alarms['worker-errors'], periods(5, ticks))).toBe(true);
    expect(fires(alarms['cycle-errors'], periods(5, ticks))).toBe(true);
    expect(fires(alarms['worker-missing-cycles'], periods(5, undefined))).toBe(true);
    // Every cycle running but failing its message on redelivery: dropped as late, still no cycle that ran.
    expect(fires(alarms['worker-missing-cycles'], periods(5, 0))).toBe(true);
  });

  it('healthy: every tick a cycle, no errors: nothing fires; one bad period alone does not either', () => {
    expect(fires(alarms['worker-missing-cycles'], periods(5, ticks))).toBe(false);
    expect(fires(alarms['worker-errors'], periods(5, undefined))).toBe(false);
    expect(fires(alarms['cycle-errors'], [...periods(4, undefined), ticks])).toBe(false);
    expect(fires(alarms['worker-errors'], [...periods(4, undefined), ticks])).toBe(false);
    // Half the shards' cycles missing is not yet a stop; fewer is.
    expect(fires(alarms['worker-missing-cycles'], periods(5, Math.ceil(ticks / 2)))).toBe(false);
  });
});

describe.each([15, 60, 300])('param monitoring true, at a sync period of %i s: the stop alarms on Lambda’s own metrics', (period) => {
  const alarms = alarmsAt(period, false);
  const ticks = SHARDS * (Math.max(60, period) / period);
  const periods = (n: number, v: number | undefined) => Array.from({ length: n }, () => v);

  it('reads the worker’s Invocations, not a custom metric: no invocations (a stopped dispatcher, a broken mapping) fires, every tick invoked does not', () => {
    expect(Object.keys(alarms).sort()).toEqual(['dead-letters', 'failed-events', 'worker-errors', 'worker-missing-cycles']);
    expect(alarms['worker-missing-cycles']).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Invocations' });
    expect(fires(alarms['worker-missing-cycles'], periods(5, undefined))).toBe(true);
    expect(fires(alarms['worker-missing-cycles'], periods(5, Math.floor((ticks - 1) / 2)))).toBe(true);
    expect(fires(alarms['worker-missing-cycles'], periods(5, ticks))).toBe(false);
  });

  it('every tick invoked but failing: worker-errors fires (the invocations alone do not say it)', () => {
    expect(fires(alarms['worker-missing-cycles'], periods(5, ticks))).toBe(false);
    expect(fires(alarms['worker-errors'], periods(5, ticks))).toBe(true);
  });
});
