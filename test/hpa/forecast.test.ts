import { describe, expect, it } from 'vitest';
import { assessForecast, DEFAULT_FORECAST_SETTINGS, forecastBucket, historySpanSeconds, predictiveMinimum, recordDemand, type DemandHistory } from '../../lib/hpa/forecast.js';

const DAY = 86_400;
const MONDAY = Date.UTC(2026, 10, 2); // 2026-11-02, a Monday
const at = (day: number, hour: number, minute = 0) => new Date(MONDAY + (day * DAY + hour * 3600 + minute * 60) * 1000);

/** A history recorded every 5 minutes for `days` days from Monday 00:00, demand given by `f`. */
function learn(days: number, f: (day: number, hour: number) => number): DemandHistory {
  let h: DemandHistory | undefined;
  for (let m = 0; m < days * 24 * 60; m += 5) {
    const day = Math.floor(m / 1440);
    h = recordDemand(h, at(0, 0, m), f(day, (m % 1440) / 60), DEFAULT_FORECAST_SETTINGS.historySeconds);
  }
  return h!;
}

/** 20 replicas from 09:00 to 17:00 on weekdays, 3 otherwise. */
const officeHours = (day: number, hour: number) => (day % 7 < 5 && hour >= 9 && hour < 17 ? 20 : 3);

/** A bounded random walk: no time of day or week means anything. */
function randomWalk(): (day: number, hour: number) => number {
  let seed = 7;
  let level = 15;
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    level = Math.min(40, Math.max(3, level + (seed / 2 ** 32 - 0.5) * 4));
    return Math.ceil(level);
  };
}

describe('recordDemand', () => {
  it('keeps the largest value of a bucket, fills gaps with null and trims to the kept history', () => {
    let h = recordDemand(undefined, at(0, 0, 1), 4, 900);
    h = recordDemand(h, at(0, 0, 3), 2, 900);
    expect(h.values).toEqual([4]);
    h = recordDemand(h, at(0, 0, 11), 5, 900);
    expect(h.values).toEqual([4, null, 5]);
    h = recordDemand(h, at(0, 0, 16), 6, 900);
    expect(h.values).toEqual([null, 5, 6]);
    expect(h.firstBucket).toBe(Math.floor(at(0, 0, 5).getTime() / 300_000));
  });

  it('ignores a clock that went back past the history and restarts on another bucket size', () => {
    const h = recordDemand(undefined, at(1, 0), 4, DAY);
    expect(recordDemand(h, at(0, 0), 9, DAY)).toBe(h);
    expect(recordDemand(h, at(1, 0, 5), 7, DAY, 60)).toEqual({ bucketSeconds: 60, firstBucket: at(1, 0, 5).getTime() / 60_000, values: [7] });
  });
});

interface Case {
  name: string;
  days: number;
  demand: (day: number, hour: number) => number;
  now: Date;
  maxReplicas?: number;
  settings?: Partial<typeof DEFAULT_FORECAST_SETTINGS>;
  expect: { acting: false; reason: string } | { acting: true; replicas: number; cappedAtMax?: boolean };
}

const cases: Case[] = [
  { name: 'not enough history: under 24 hours it does not act', days: 0.9, demand: officeHours, now: at(0, 22), expect: { acting: false, reason: 'NotEnoughHistory' } },
  { name: 'one day is not a pattern: a time of day seen once is not forecast', days: 1, demand: officeHours, now: at(1, 8, 56), expect: { acting: false, reason: 'NoPattern' } },
  { name: 'a pattern not yet checked on a day of its own is not acted on', days: 2, demand: officeHours, now: at(2, 8, 56), expect: { acting: false, reason: 'NotWorthActing' } },
  { name: 'the peak is forecast the buffer ahead of 09:00', days: 3, demand: officeHours, now: at(3, 8, 56), expect: { acting: true, replicas: 20 } },
  { name: 'the buffer: at 08:50 the 09:00 peak is more than 300 s away', days: 3, demand: officeHours, now: at(3, 8, 50), expect: { acting: true, replicas: 3 } },
  { name: 'a longer buffer sees it from 08:50', days: 3, demand: officeHours, now: at(3, 8, 50), settings: { schedulingBufferSeconds: 900 }, expect: { acting: true, replicas: 20 } },
  { name: 'the cap: a forecast above maxReplicas is held to it', days: 3, demand: officeHours, now: at(3, 10), maxReplicas: 12, expect: { acting: true, replicas: 12, cappedAtMax: true } },
  {
    name: 'a one-off spike is not learned: the next day forecasts the ordinary level',
    days: 5,
    demand: (day, hour) => (day === 4 && hour >= 14 && hour < 15 ? 90 : officeHours(day, hour)),
    now: at(5, 14, 30),
    expect: { acting: true, replicas: 20 },
  },
  {
    name: 'a one-off spike is not learned a week later either',
    days: 14,
    demand: (day, hour) => (day === 7 && hour >= 14 && hour < 15 ? 90 : officeHours(day, hour)),
    now: at(14, 14, 30),
    expect: { acting: true, replicas: 20 },
  },
  {
    name: 'a holiday does not lower the next days',
    days: 10,
    demand: (day, hour) => (day === 8 ? 3 : officeHours(day, hour)),
    now: at(10, 10),
    expect: { acting: true, replicas: 20 },
  },
  {
    name: 'a holiday lowers the same weekday of the next week only: no raise, the reactive way applies',
    days: 15,
    demand: (day, hour) => (day === 8 ? 3 : officeHours(day, hour)),
    now: at(15, 10),
    expect: { acting: true, replicas: 3 },
  },
  { name: 'weekly seasonality: with a week of history a Saturday is not forecast as a weekday', days: 12, demand: officeHours, now: at(12, 10), expect: { acting: true, replicas: 3 } },
  { name: 'weekly seasonality: the Monday after a weekend is forecast as a weekday', days: 14, demand: officeHours, now: at(14, 8, 57), expect: { acting: true, replicas: 20 } },
  {
    name: 'no seasonality: a random walk is not acted on, however much history',
    days: 14,
    demand: randomWalk(),
    now: at(14, 10),
    expect: { acting: false, reason: 'NotWorthActing' },
  },
  { name: 'the minimum history is a setting', days: 2, demand: officeHours, now: at(2, 10), settings: { minHistorySeconds: 3 * DAY }, expect: { acting: false, reason: 'NotEnoughHistory' } },
];

describe('predictiveMinimum', () => {
  it.each(cases)('$name', (c) => {
    const h = learn(c.days, c.demand);
    const r = predictiveMinimum(h, c.now, c.maxReplicas ?? 100, { ...DEFAULT_FORECAST_SETTINGS, ...c.settings });
    expect(r).toMatchObject(c.expect);
  });

  it('says how much history it rests on and where the horizon ends', () => {
    const h = learn(3, officeHours);
    const r = predictiveMinimum(h, at(3, 8, 56), 100);
    expect(r).toMatchObject({ acting: true, replicas: 20, historySeconds: 3 * DAY + 8 * 3600 + 56 * 60, horizonEnd: at(3, 9, 1) });
    expect(historySpanSeconds(undefined, at(3, 0))).toBe(0);
  });

  it('uses no history older than the setting', () => {
    // Quiet on the first two days: last Tuesday's 0 is the weekly sample of this Tuesday.
    const h = learn(8, (day, hour) => (day < 2 ? 0 : officeHours(day, hour)));
    const tuesdayNoon = Math.floor(at(8, 12).getTime() / 300_000);
    expect(forecastBucket(h, tuesdayNoon)).toBe(0);
    expect(forecastBucket(h, tuesdayNoon, 6 * DAY)).toBe(20);
  });

  it('assesses day by day: the first weekend and a holiday do not outvote the week', () => {
    const h = learn(18, (day, hour) => (day === 15 ? 3 : officeHours(day, hour)));
    const a = assessForecast(h, at(18, 0));
    expect(a).toMatchObject({ daysAssessed: 7, worthActing: true });
    expect(a.daysHelped).toBeLessThan(7);
    expect(assessForecast(learn(14, randomWalk()), at(14, 0))).toMatchObject({ daysAssessed: 7, daysHelped: 0, worthActing: false });
  });
});
