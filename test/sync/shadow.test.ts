// Shadowing a live autoscaler (lib/sync/shadow.ts): the annotation read as kubectl reads TYPE/NAME,
// each comparison and the period's summary, and the check once ours has taken over.
import { describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscaler, ShadowSummary } from '../../lib/hpa/types.js';
import { ClusterApiError, type LiveHpaStatus } from '../../lib/sync/ports/cluster-access.js';
import { carryShadow, nextSummary, observeShadow, parseShadowTarget, SHADOW_ANNOTATION } from '../../lib/sync/shadow.js';

const NOW = new Date('2026-11-28T04:00:00.000Z');
const hpa = (shadowOf?: string): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web-shadow', namespace: 'demo', ...(shadowOf ? { annotations: { [SHADOW_ANNOTATION]: shadowOf } } : {}) },
  spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, maxReplicas: 10 },
});
const reader = (live: Record<string, LiveHpaStatus>) => (name: string) => Promise.resolve(live[name]);

describe('the shadow-of annotation', () => {
  it.each([
    ['HorizontalPodAutoscaler/web', 'HorizontalPodAutoscaler/web', 'web'],
    ['hpa/web', 'HorizontalPodAutoscaler/web', 'web'],
    ['horizontalpodautoscalers.autoscaling/web', 'HorizontalPodAutoscaler/web', 'web'],
    ['ScaledObject/web', 'ScaledObject/web', 'keda-hpa-web'],
    ['so/web', 'ScaledObject/web', 'keda-hpa-web'],
    ['scaledobjects.keda.sh/web', 'ScaledObject/web', 'keda-hpa-web'],
  ])('%s names %s, whose HPA is %s', (value, of, hpaName) => {
    expect(parseShadowTarget(value)).toMatchObject({ of, hpaName });
  });

  it.each([
    ['web', 'is not HorizontalPodAutoscaler/NAME or ScaledObject/NAME'],
    ['Deployment/web', 'is not HorizontalPodAutoscaler/NAME or ScaledObject/NAME'],
    ['hpa/Web_1', '"Web_1" is not a valid object name'],
  ])('refuses %s: %s', (value, message) => {
    const r = parseShadowTarget(value);
    expect('error' in r && r.error).toContain(`annotation ${SHADOW_ANNOTATION}`);
    expect('error' in r && r.error).toContain(message);
  });
});

describe('a shadow period', () => {
  const live = (desiredReplicas: number, currentReplicas = 3): LiveHpaStatus => ({ desiredReplicas, currentReplicas });
  it('counts decisions, agreements and the largest difference; a failed read is noted, not counted', () => {
    const c = (desiredReplicas: number, l?: LiveHpaStatus, problem?: string) => ({ of: 'HorizontalPodAutoscaler/web', hpaName: 'web', desiredReplicas, ...(l ? { live: l } : {}), ...(problem ? { problem } : {}) });
    let s = nextSummary(undefined, c(4, live(4)), NOW);
    s = nextSummary(s, c(6, live(4)), new Date(NOW.getTime() + 15_000));
    s = nextSummary(s, c(5, undefined, 'HorizontalPodAutoscaler web not found'), new Date(NOW.getTime() + 30_000));
    s = nextSummary(s, c(2, live(3)), new Date(NOW.getTime() + 45_000));
    expect(s).toEqual({
      of: 'HorizontalPodAutoscaler/web',
      since: '2026-11-28T04:00:00Z',
      decisions: 3,
      agreed: 1,
      maxDifference: 2,
      last: { time: '2026-11-28T04:00:45Z', desiredReplicas: 2, liveDesiredReplicas: 3, liveCurrentReplicas: 3 },
    });
  });

  it('starts again for another target, or after ours had taken over', () => {
    const old: ShadowSummary = { of: 'HorizontalPodAutoscaler/web', since: '2026-11-27T00:00:00Z', decisions: 9, agreed: 9, maxDifference: 0 };
    const next = (prev: ShadowSummary, of = prev.of) => nextSummary(prev, { of, hpaName: 'x', desiredReplicas: 2, live: live(2) }, NOW);
    expect(next(old)).toMatchObject({ since: old.since, decisions: 10 });
    expect(next(old, 'ScaledObject/web')).toMatchObject({ since: '2026-11-28T04:00:00Z', decisions: 1 });
    expect(next({ ...old, until: '2026-11-27T12:00:00Z' })).toMatchObject({ since: '2026-11-28T04:00:00Z', decisions: 1 });
  });

  it('is kept after the handover, marked with when ours took over', () => {
    const s: ShadowSummary = { of: 'HorizontalPodAutoscaler/web', since: '2026-11-27T00:00:00Z', decisions: 9, agreed: 8, maxDifference: 1 };
    const status = { currentReplicas: 3, desiredReplicas: 3 };
    expect(carryShadow(status, s, false, NOW).shadow).toEqual({ ...s, until: '2026-11-28T04:00:00Z' });
    expect(carryShadow(status, { ...s, until: '2026-11-27T12:00:00Z' }, false, NOW).shadow?.until).toBe('2026-11-27T12:00:00Z');
    expect(carryShadow(status, s, true, NOW).shadow).toEqual(s);
    expect(carryShadow(status, undefined, false, NOW).shadow).toBeUndefined();
  });
});

describe('one evaluation beside the live autoscaler', () => {
  it('in dry-run, compares with the HPA a ScaledObject owns: event, line and summary', async () => {
    const o = await observeShadow({ hpa: hpa('ScaledObject/queue'), previous: undefined, dryRun: true, desiredReplicas: 7, now: NOW, read: reader({ 'keda-hpa-queue': { desiredReplicas: 5, currentReplicas: 5 } }) });
    expect(o.event).toEqual({ type: 'Normal', reason: 'ShadowDiffers', message: 'would scale to 7; ScaledObject/queue (HPA keda-hpa-queue) wants 5, has 5: differs by +2' });
    expect(o.report).toEqual({ of: 'ScaledObject/queue', desiredReplicas: 7, liveDesiredReplicas: 5, liveCurrentReplicas: 5, agrees: false });
    expect(o.summary).toMatchObject({ decisions: 1, agreed: 0, maxDifference: 2 });
  });

  it('says when there is nothing to compare, without echoing what the server answered', async () => {
    const failing = () => Promise.reject(new ClusterApiError('secret-looking server text', 403));
    const o = await observeShadow({ hpa: hpa('hpa/web'), previous: undefined, dryRun: true, desiredReplicas: 3, now: NOW, read: failing });
    expect(o.event).toEqual({ type: 'Warning', reason: 'ShadowNotCompared', message: 'would scale to 3; could not read HorizontalPodAutoscaler web (HTTP 403): nothing to compare with HorizontalPodAutoscaler/web' });
    expect(JSON.stringify(o)).not.toContain('secret-looking');
    expect(o.summary).toMatchObject({ decisions: 0, last: { problem: 'could not read HorizontalPodAutoscaler web (HTTP 403)' } });
  });

  it('taken over: warns while the live HPA still exists (two writers), quiet once it is gone', async () => {
    const both = await observeShadow({ hpa: hpa('hpa/web'), previous: undefined, dryRun: false, desiredReplicas: 3, now: NOW, read: reader({ web: { desiredReplicas: 3, currentReplicas: 3 } }) });
    expect(both.event).toMatchObject({ type: 'Warning', reason: 'LiveAutoscalerActive' });
    expect(both.summary).toBeUndefined();
    expect(await observeShadow({ hpa: hpa('hpa/web'), previous: undefined, dryRun: false, desiredReplicas: 3, now: NOW, read: reader({}) })).toEqual({});
  });

  it('without the annotation does nothing; a bad one is a warning', async () => {
    expect(await observeShadow({ hpa: hpa(), previous: undefined, dryRun: true, desiredReplicas: 3, now: NOW, read: reader({}) })).toEqual({});
    expect((await observeShadow({ hpa: hpa('web'), previous: undefined, dryRun: true, desiredReplicas: 3, now: NOW, read: reader({}) })).warning).toContain(SHADOW_ANNOTATION);
  });
});
