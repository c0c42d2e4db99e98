// How long a direction is held still after a history that could not be trusted: as long as what
// was lost could still limit it, for the spec as the controller runs it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior } from '../../lib/hpa/types.js';
import { historyHolds } from '../../lib/sync/history-holds.js';
import type { AutoscalerRecord } from '../../lib/sync/ports/autoscaler-store.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const at = (s: number) => NOW.getTime() + s * 1000;

function record(extra: Partial<AutoscalerRecord>, behavior?: HorizontalPodAutoscalerBehavior): [AutoscalerRecord, HorizontalPodAutoscaler] {
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'apps' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 10, ...(behavior ? { behavior } : {}) },
  };
  const rec: AutoscalerRecord = { cluster: 'prod', namespace: 'apps', name: 'web', source: 'table', hpa, specVersion: '1', history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, version: 3, createdAt: '', updatedAt: '', ...extra };
  return [rec, hpa];
}
const holds = (extra: Partial<AutoscalerRecord>, behavior?: HorizontalPodAutoscalerBehavior) => historyHolds(...record(extra, behavior), DEFAULT_CONTROLLER_SETTINGS, NOW);

const behavior: HorizontalPodAutoscalerBehavior = {
  scaleUp: { stabilizationWindowSeconds: 30, policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }, { type: 'Percent', value: 50, periodSeconds: 120 }] },
  scaleDown: { stabilizationWindowSeconds: 600, policies: [{ type: 'Pods', value: 1, periodSeconds: 240 }] },
};

describe('historyHolds', () => {
  it("scale events of a direction: held for that direction's longest policy period", () => {
    expect(holds({ untrustedHistory: { up: 'up[1] time is in the future' } }, behavior).holds).toEqual({ up: at(120) });
    expect(holds({ untrustedHistory: { down: 'dn is not a list' } }, behavior).holds).toEqual({ down: at(240) });
    // Upstream's default policies when the behavior leaves them out: 15 s up, 15 s down.
    expect(holds({ untrustedHistory: { up: 'x', down: 'y' } }, {}).holds).toEqual({ up: at(15), down: at(15) });
  });

  it('recommendations: held for each stabilization window; without a behavior only scale-down, for the controller window', () => {
    expect(holds({ untrustedHistory: { recommendations: 'rec is not JSON' } }, behavior).holds).toEqual({ up: at(30), down: at(600) });
    expect(holds({ untrustedHistory: { recommendations: 'rec is not JSON' } }).holds).toEqual({ down: at(300) });
    // Scale events without a behavior: upstream records none and its limit reads none.
    const none = holds({ untrustedHistory: { up: 'up[0] change must be an integer' } });
    expect(none.holds).toEqual({});
    expect(none.found).toMatch(/no direction held: what was lost limits neither of this spec$/);
  });

  it('a state that cannot be trusted at all: both directions, for the longest of each', () => {
    const h = holds({ stateProblem: 'stored state of apps/web cannot be trusted: open is not a boolean' }, behavior);
    expect(h.holds).toEqual({ up: at(120), down: at(600) });
    expect(h.found).toBe('the stored history could not all be trusted (it starts empty): scale up held until 2026-03-01T12:02:00.000Z, scale down held until 2026-03-01T12:10:00.000Z, as if the limits of what was lost were spent');
  });

  it('keeps stored holds still ahead, drops those past, and says nothing new', () => {
    expect(holds({ holds: { up: at(40), down: at(-1) } }, behavior)).toEqual({ holds: { up: at(40) }, why: expect.any(String) });
    expect(holds({ holds: { down: at(-1) } }, behavior)).toEqual({ holds: {} });
    // A new loss extends a stored hold only where it reaches further.
    const longer = holds({ holds: { up: at(400) }, untrustedHistory: { up: 'x' } }, behavior);
    expect(longer.holds).toEqual({ up: at(400) });
    expect(longer.found).toMatch(/: scale up held until 2026-03-01T12:06:40\.000Z, as if/);
  });
});
