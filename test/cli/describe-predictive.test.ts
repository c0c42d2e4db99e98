import { describe as group, expect, it } from 'vitest';
import { describe } from '../../lib/cli/describe.js';
import { reconcile } from '../../lib/hpa/reconcile.js';
import { recordDemand, type DemandHistory } from '../../lib/hpa/forecast.js';
import type { HorizontalPodAutoscaler, PredictiveSpec } from '../../lib/hpa/types.js';
import { autoscaler, syncInput } from '../hpa/drive.js';

const MONDAY = Date.UTC(2026, 10, 2);
const at = (day: number, hour: number, minute = 0) => new Date(MONDAY + ((day * 24 + hour) * 60 + minute) * 60_000);

/** The autoscaler after one sync at 08:56 on day 4 of office-hours demand (20 from 09:00 to 17:00, else 3). */
function synced(predictive: PredictiveSpec): HorizontalPodAutoscaler {
  let demand: DemandHistory | undefined;
  for (let m = 0; m < 3 * 1440; m += 5) demand = recordDemand(demand, at(0, 0, m), (m % 1440) >= 540 && (m % 1440) < 1020 ? 20 : 3, 14 * 86_400);
  const hpa = { ...autoscaler({ min: 2 }), spec: { ...autoscaler({ min: 2 }).spec, predictive } };
  const r = reconcile({ ...syncInput(hpa, 3, 3, at(3, 8, 56)), demand });
  return { ...hpa, status: r.status };
}
const record = (hpa: HorizontalPodAutoscaler) => ({ namespace: 'shop', name: 'web', hpa, history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, createdAt: '2026-11-01T00:00:00.000Z' });
const rows = (text: string, label: string) => {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(label));
  if (i < 0) return [];
  const column = lines[0].indexOf('web');
  const out = [lines[i].slice(column)];
  for (let j = i + 1; j < lines.length && lines[j].startsWith(' '.repeat(column)); j++) out.push(lines[j].slice(column));
  return out;
};

group('shpa describe: predictive minimums', () => {
  it('shows the settings and what the forecast did at the last sync', () => {
    const text = describe(record(synced({ mode: 'ForecastAndScale' })), 'prod', at(3, 8, 57));
    expect(rows(text, 'Predictive:')).toEqual([
      'ForecastAndScale, buffer 300s, history 14d (acts after 1d), HonorMaxReplicas',
      'raising the minimum: minimum 20 (forecast 20 for the next 300 s; 2 without it); history 3d 8h',
    ]);
  });

  it('ForecastOnly says it is not applied', () => {
    const text = describe(record(synced({ mode: 'ForecastOnly', schedulingBufferSeconds: 600 })), 'prod', at(3, 8, 57));
    expect(rows(text, 'Predictive:')[1]).toBe('ForecastOnly: forecast only, not applied: forecast 20 for the next 600 s (minimum 2); history 3d 8h');
  });

  it('no line without spec.predictive', () => {
    expect(rows(describe(record(autoscaler()), 'prod', at(3, 9)), 'Predictive:')).toEqual([]);
  });
});
