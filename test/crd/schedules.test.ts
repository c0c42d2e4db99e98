// spec.minReplicaSchedules at admission: what the CRD's schema and CEL rules refuse, and that
// what they admit lib/hpa accepts too (the cron grammar and the timezone are left to the sync).
import { describe, expect, it } from 'vitest';
import { formatError, admitCustomResource } from '../../lib/local/kubernetes/crd/admission.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';
import { validateHPA } from '../../lib/hpa/api/validation.js';

const crd = serverlessHpaCrd();
const object = (schedules: unknown[]) => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'ServerlessHorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 20, minReplicaSchedules: schedules },
});
const w = (o: Record<string, unknown> = {}) => ({ name: 'day', minReplicas: 10, timezone: 'Europe/Berlin', start: '0 9 * * 1-5', end: '0 18 * * 1-5', ...o });

describe('spec.minReplicaSchedules at admission', () => {
  const cases: { name: string; schedules: unknown[]; error?: string }[] = [
    { name: 'a cron window', schedules: [w()] },
    { name: 'a one-off window', schedules: [w({ start: '2026-12-24T18:00:00Z', end: '2026-12-26T00:00:00+01:00' })] },
    { name: 'a minimum above maxReplicas', schedules: [w({ minReplicas: 30 })], error: "spec.minReplicaSchedules: Invalid value: each window's minReplicas must be less than or equal to `maxReplicas`" },
    { name: 'a minimum of 0', schedules: [w({ minReplicas: 0 })], error: 'spec.minReplicaSchedules[0].minReplicas: Invalid value: 0: must be greater than 0' },
    { name: 'start equal to end', schedules: [w({ end: '0 9 * * 1-5' })], error: 'spec.minReplicaSchedules[0].end: Invalid value: must differ from start: the window would never open' },
    { name: 'six cron fields', schedules: [w({ start: '0 0 9 * * 1-5' })], error: 'spec.minReplicaSchedules[0].start: Invalid value: "0 0 9 * * 1-5": must be a cron expression of 5 fields or an RFC 3339 time' },
    { name: 'a cron start with a one-off end', schedules: [w({ end: '2026-12-26T00:00:00Z' })], error: 'spec.minReplicaSchedules[0].end: Invalid value: must be of the kind of start' },
    { name: 'a one-off end before its start', schedules: [w({ start: '2026-12-26T00:00:00Z', end: '2026-12-24T00:00:00Z' })], error: 'spec.minReplicaSchedules[0].end: Invalid value: must be after start' },
    { name: 'two windows of one name', schedules: [w(), w({ start: '0 1 * * *', end: '0 2 * * *' })], error: 'spec.minReplicaSchedules[1]: Duplicate value' },
  ];
  it.each(cases)('$name', (c) => {
    const o = object(c.schedules);
    const errors = admitCustomResource(crd, 'v1', o).errors.map(formatError);
    if (!c.error) {
      expect(errors).toEqual([]);
      expect(validateHPA({ ...o, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }).valid).toBe(true);
    } else {
      expect(errors.some((e) => e.startsWith(c.error!))).toBe(true);
      expect(validateHPA({ ...o, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }).valid).toBe(false);
    }
  });
});
