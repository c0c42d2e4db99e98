// The JSON answers of the API server into lib/hpa inputs: fields as the API server
// writes them, and a wrong field named by its path.
import { describe, expect, it } from 'vitest';
import { podListOf, scaleInfoOf } from '../../lib/cluster/convert.js';

const pod = {
  metadata: { name: 'web-1', labels: { app: 'web' }, deletionTimestamp: '2026-01-01T00:01:00Z' },
  spec: { containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }, { name: 'sidecar' }] },
  status: {
    phase: 'Running',
    startTime: '2026-01-01T00:00:02Z',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:05Z' },
    ],
  },
};

describe('podListOf', () => {
  it('reads a page of pods and the continue token', () => {
    const page = podListOf({ kind: 'PodList', apiVersion: 'v1', metadata: { continue: 'abc', resourceVersion: '7' }, items: [pod, { metadata: { name: 'bare' } }] });
    expect(page.continue).toBe('abc');
    expect(page.pods).toEqual([
      {
        name: 'web-1',
        phase: 'Running',
        labels: { app: 'web' },
        containers: [
          { name: 'app', requests: { cpu: '100m' } },
          { name: 'sidecar', requests: {} },
        ],
        ready: 'False',
        readyTransitionTime: '2026-01-01T00:00:05Z',
        startTime: '2026-01-01T00:00:02Z',
        deletionTimestamp: '2026-01-01T00:01:00Z',
      },
      { name: 'bare', phase: '', containers: [] },
    ]);
    expect(podListOf({ kind: 'PodList', metadata: {}, items: [] })).toEqual({ pods: [], continue: '' });
  });

  it('names the field path of a wrong value', () => {
    const bad = (patch: (p: typeof pod) => unknown) => () => podListOf({ kind: 'PodList', items: [pod, patch(structuredClone(pod))] });
    expect(bad((p) => ({ ...p, metadata: { ...p.metadata, labels: { app: 3 } } }))).toThrow('PodList: items[1].metadata.labels.app is not a string');
    expect(bad((p) => ({ ...p, spec: { containers: {} } }))).toThrow('PodList: items[1].spec.containers is not a list');
    expect(bad((p) => ({ ...p, status: { ...p.status, conditions: [{ type: 'Ready', status: true }] } }))).toThrow(
      'PodList: items[1].status.conditions[0].status is not a string',
    );
    expect(() => podListOf({ kind: 'PodList', metadata: { continue: 5 }, items: [] })).toThrow('PodList: metadata.continue is not a string');
  });
});

describe('scaleInfoOf', () => {
  it('reads spec, status and selector, and names a wrong field', () => {
    expect(scaleInfoOf({ kind: 'Scale', spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } })).toEqual({ specReplicas: 3, statusReplicas: 2, selector: 'app=web' });
    expect(scaleInfoOf({ kind: 'Scale', spec: {}, status: { replicas: 0 } })).toEqual({ specReplicas: 0, statusReplicas: 0, selector: '' });
    expect(() => scaleInfoOf({ spec: { replicas: '3' } })).toThrow('Scale: spec.replicas is not a number');
  });
});
