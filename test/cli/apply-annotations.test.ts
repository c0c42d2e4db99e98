// `shpa apply` of the HPA form: our annotations (pause, schedules) are checked before anything is stored.
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../lib/cli/kinds.js';
import { formatFieldError } from '../../lib/hpa/api/validation.js';
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
    { name: 'a near-miss of a pause annotation', annotations: { 'shpa.dev/pause-scaledown': 'true' }, errors: ['metadata.annotations[shpa.dev/pause-scaledown]: Forbidden: unknown annotation: did you mean shpa.dev/pause-scale-down?'] },
    { name: 'another prefix', annotations: { 'shpa.io/pause': 'true' }, errors: ['metadata.annotations[shpa.io/pause]: Forbidden: unknown annotation: did you mean shpa.dev/pause?'] },
    { name: 'a typo of dry-run', annotations: { 'shpa.dev/dryrun': 'true' }, errors: ['metadata.annotations[shpa.dev/dryrun]: Forbidden: unknown annotation: did you mean shpa.dev/dry-run?'] },
    {
      name: 'an unknown annotation of ours',
      annotations: { 'shpa.dev/max-surge': '3' },
      errors: ['metadata.annotations[shpa.dev/max-surge]: Forbidden: unknown annotation (ours are shpa.dev/pause, shpa.dev/pause-scale-up, shpa.dev/pause-scale-down, shpa.dev/min-replica-schedules, shpa.dev/dry-run, shpa.dev/shadow-of)'],
    },
    { name: 'annotations of others pass', annotations: { 'argocd.argoproj.io/sync-wave': '1', 'kubectl.kubernetes.io/last-applied-configuration': '{}' }, errors: [] },
    { name: 'an impossible date', annotations: { 'shpa.dev/pause': '2026-13-45T99:00:00Z' }, errors: [/^metadata\.annotations\[shpa\.dev\/pause\]: Invalid value: "2026-13-45T99:00:00Z": must be "true"/] },
    { name: 'February 30', annotations: { 'shpa.dev/pause': '2026-02-30T10:00:00Z' }, errors: [/^metadata\.annotations\[shpa\.dev\/pause\]: Invalid value: "2026-02-30T10:00:00Z"/] },
  ])('$name', (c) => {
    const errors = check(c.annotations, c.schedules);
    expect(errors).toHaveLength(c.errors.length);
    c.errors.forEach((e, i) => expect(errors[i]).toMatch(e));
  });
});

describe('shpa apply: a pause whose time has passed', () => {
  it('is stored, with a warning as kubectl prints one naming the annotation', () => {
    const past = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const r = hpaKind.check(autoscaler({ annotations: { 'shpa.dev/pause-scale-down': past } }));
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([{ field: 'metadata.annotations[shpa.dev/pause-scale-down]', message: `${past} has already passed: this pause is over and does nothing` }]);
  });

  it('says nothing of a pause still to come', () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(hpaKind.check(autoscaler({ annotations: { 'shpa.dev/pause': future } })).warnings).toEqual([]);
  });
});
