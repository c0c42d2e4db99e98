// A CloudWatch alarm's state change as an evaluation: the message says up to when the alarm
// evaluated its metric, so that its readers read that period (see cloudwatch-decisions.test.ts).
import { describe, expect, it } from 'vitest';
import { fromBusEvent } from '../../lib/sync/event-sources.js';
import { parseWorkMessage, type EvaluateTarget } from '../../lib/sync/messages.js';
import type { ClusterConfig } from '../../lib/sync/ports/cluster-access.js';

const clusters: ClusterConfig[] = [{ name: 'prod', region: 'eu-west-1', shards: 2 }];
const now = new Date('2026-03-01T12:00:31Z');

function targetsOf(detail: Record<string, unknown>, time = '2026-03-01T12:00:30Z'): EvaluateTarget[][] {
  const plan = fromBusEvent({ source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', time, detail: { alarmName: 'jobs-high', ...detail } }, clusters, now);
  return plan.messages.map((m) => {
    const msg = parseWorkMessage(m.body);
    if (msg.kind !== 'evaluate') throw new Error('an alarm is an evaluation');
    return msg.targets;
  });
}

const reasonData = (period: number, stamps: string[]) => JSON.stringify({ version: '1.0', period, statistic: 'Average', evaluatedDatapoints: stamps.map((timestamp) => ({ timestamp, value: 1 })) });

describe('up to when an alarm evaluated', () => {
  it('is the end of its latest evaluated datapoint, from the state reasonData, in every shard', () => {
    const state = { value: 'ALARM', timestamp: '2026-03-01T12:00:29.400+0000', reasonData: reasonData(60, ['2026-03-01T11:57:00.000+0000', '2026-03-01T11:59:00.000+0000', '2026-03-01T11:58:00.000+0000']) };
    expect(targetsOf({ state })).toEqual([
      [{ kind: 'alarm', alarmName: 'jobs-high', evaluatedUntil: '2026-03-01T12:00:00.000Z' }],
      [{ kind: 'alarm', alarmName: 'jobs-high', evaluatedUntil: '2026-03-01T12:00:00.000Z' }],
    ]);
  });

  it("else the state's time, else the event's", () => {
    expect(targetsOf({ state: { value: 'OK', timestamp: '2026-03-01T12:00:29.400+0000', reasonData: 'not json' } })[0][0]).toMatchObject({ evaluatedUntil: '2026-03-01T12:00:29.400Z' });
    expect(targetsOf({ state: { value: 'OK', reasonData: reasonData(0, ['2026-03-01T11:59:00.000+0000']) } })[0][0]).toMatchObject({ evaluatedUntil: '2026-03-01T12:00:30.000Z' });
    expect(targetsOf({ state: { value: 'ALARM' } }, 'yesterday')[0][0]).toMatchObject({ evaluatedUntil: now.toISOString() });
  });
});

describe('the message', () => {
  const body = (target: Record<string, unknown>) => JSON.stringify({ kind: 'evaluate', shard: 'prod', targets: [target], reason: 'alarm jobs-high ALARM', at: '2026-03-01T12:00:30Z', attempt: 1 });

  it('carries evaluatedUntil when there is one, and is read without it (an older sender)', () => {
    expect(parseWorkMessage(body({ kind: 'alarm', alarmName: 'a' }))).toMatchObject({ targets: [{ kind: 'alarm', alarmName: 'a' }] });
    expect((parseWorkMessage(body({ kind: 'alarm', alarmName: 'a' })) as { targets: object[] }).targets[0]).not.toHaveProperty('evaluatedUntil');
  });

  it('names a bad evaluatedUntil', () => {
    expect(() => parseWorkMessage(body({ kind: 'alarm', alarmName: 'a', evaluatedUntil: '12:00' }))).toThrow('targets[0].evaluatedUntil: must be an ISO 8601 UTC time, got "12:00"');
  });
});
