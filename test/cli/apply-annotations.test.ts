// `shpa apply` of the HPA form: our annotations (pause, schedules) are checked before anything is stored.
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../lib/cli/kinds.js';
import { formatFieldError } from '../../lib/hpa/validation.js';
import { autoscaler } from '../hpa/drive.js';

const hpaKind = KINDS.find((k) => k.kind === 'HorizontalPodAutoscaler')!;
const check = (annotations: Record<string, string>, schedules = false) => {
  const o = autoscaler({ annotations, ...(schedules ? { schedules: [{ name: 'w', minReplicas: 3, start: '0 9 * * *', end: '0 10 * * *' }] } : {}) });
  const r = hpaKind.check(o);
  return r.ok ? [] : r.errors.map(formatFieldError);
};

describe('shpa apply: pause and schedule annotations', () => {
  it.each<{ name: string; annotations: Record<string, string>; schedules?: boolean; errors: (string | RegExp)[] }>([
    { name: 'a pause until a time is stored', annotations: { 'shpa.dev/pause-scale-down': '2026-11-27T18:00:00Z' }, errors: [] },
    { name: 'a malformed pause names the annotation', annotations: { 'shpa.dev/pause-scale-down': 'friday' }, errors: [/^metadata\.annotations\[shpa\.dev\/pause-scale-down\]: Invalid value: "friday": must be "true"/] },
    { name: 'schedules as JSON', annotations: { 'shpa.dev/min-replica-schedules': '[{"name":"w","minReplicas":3,"start":"0 9 * * *","end":"0 10 * * *"}]' }, errors: [] },
    { name: 'schedules that are not JSON', annotations: { 'shpa.dev/min-replica-schedules': '- name: w' }, errors: [/^metadata\.annotations\[shpa\.dev\/min-replica-schedules\]: Invalid value: "- name: w": must be a JSON list of windows/] },
    {
      name: 'a window in the annotation names its field',
      annotations: { 'shpa.dev/min-replica-schedules': '[{"name":"w","minReplicas":3,"timezone":"Moon/Base","start":"0 9 * * *","end":"0 10 * * *"}]' },
      errors: [/^metadata\.annotations\[shpa\.dev\/min-replica-schedules\]\[0\]\.timezone: Invalid value: "Moon\/Base"/],
    },
    { name: 'both the annotation and spec.minReplicaSchedules', annotations: { 'shpa.dev/min-replica-schedules': '[]' }, schedules: true, errors: [/^metadata\.annotations\[shpa\.dev\/min-replica-schedules\]: Forbidden: may not be set together with spec\.minReplicaSchedules/] },
  ])('$name', (c) => {
    const errors = check(c.annotations, c.schedules);
    expect(errors).toHaveLength(c.errors.length);
    c.errors.forEach((e, i) => expect(errors[i]).toMatch(e));
  });
});
