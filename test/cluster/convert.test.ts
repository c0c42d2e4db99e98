// The JSON answers of the API server into lib/hpa inputs: fields as the API server
// writes them, and a wrong field named by its path.
import { describe, expect, it } from 'vitest';
import { appsScalesOf, podListOf, scaleInfoOf } from '../../lib/cluster/convert.js';

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

// Upstream's scaleFromDeployment (and its StatefulSet and ReplicaSet twins) made from the objects
// of a list: one case per row, as storage_test.go's scale tests.
describe('appsScalesOf', () => {
  interface Case {
    name: string;
    object: Record<string, unknown>;
    /** the scale GET /scale gives, or why it is a 400 */
    want: { specReplicas: number; statusReplicas: number; selector: string; resourceVersion?: string } | { invalid: string };
  }
  const obj = (spec: Record<string, unknown> | undefined, status?: Record<string, unknown>, rv: string | null = '42') => ({
    metadata: { name: 'web', namespace: 'shop', uid: 'u', ...(rv ? { resourceVersion: rv } : {}) },
    ...(spec ? { spec } : {}),
    ...(status ? { status } : {}),
  });
  const cases: Case[] = [
    { name: 'matchLabels', object: obj({ replicas: 3, selector: { matchLabels: { tier: 'front', app: 'web' } } }, { replicas: 2, readyReplicas: 1 }), want: { specReplicas: 3, statusReplicas: 2, selector: 'app=web,tier=front', resourceVersion: '42' } },
    {
      name: 'matchExpressions of every operator, keys and values sorted',
      object: obj(
        {
          replicas: 5,
          selector: {
            matchLabels: { app: 'web' },
            matchExpressions: [
              { key: 'track', operator: 'In', values: ['stable', 'canary'] },
              { key: 'env', operator: 'NotIn', values: ['prod', 'dev'] },
              { key: 'team', operator: 'Exists' },
              { key: 'legacy', operator: 'DoesNotExist', values: null },
            ],
          },
        },
        { replicas: 5 },
      ),
      want: { specReplicas: 5, statusReplicas: 5, selector: 'app=web,env notin (dev,prod),!legacy,team,track in (canary,stable)', resourceVersion: '42' },
    },
    { name: 'a key in matchLabels and matchExpressions', object: obj({ replicas: 1, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] } }), want: { specReplicas: 1, statusReplicas: 0, selector: 'app=web,app in (api,web)', resourceVersion: '42' } },
    { name: 'scaled to zero', object: obj({ replicas: 0, selector: { matchLabels: { app: 'web' } } }, {}), want: { specReplicas: 0, statusReplicas: 0, selector: 'app=web', resourceVersion: '42' } },
    // the API server defaults spec.replicas to 1 before the scale is made; no status yet is 0
    { name: 'no spec.replicas, no status, no resourceVersion', object: obj({ selector: { matchLabels: { app: 'web' } } }, undefined, null), want: { specReplicas: 1, statusReplicas: 0, selector: 'app=web' } },
    { name: 'nil selector: Nothing prints empty', object: obj({ replicas: 2 }), want: { specReplicas: 2, statusReplicas: 0, selector: '', resourceVersion: '42' } },
    { name: 'empty selector: Everything prints empty', object: obj({ replicas: 2, selector: {} }), want: { specReplicas: 2, statusReplicas: 0, selector: '', resourceVersion: '42' } },
    { name: 'an operator upstream does not know', object: obj({ replicas: 2, selector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }] } }), want: { invalid: '"Equals" is not a valid label selector operator' } },
    { name: 'In without values', object: obj({ replicas: 2, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] } }), want: { invalid: "values set can't be empty" } },
    { name: 'a key that is not a label key', object: obj({ replicas: 2, selector: { matchLabels: { 'not a key': 'web' } } }), want: { invalid: 'Invalid value: "not a key"' } },
  ];

  it.each(cases)('$name', ({ object, want }) => {
    const other = obj({ replicas: 1, selector: { matchLabels: { app: 'other' } } });
    (other.metadata as { name: string }).name = 'other';
    const page = appsScalesOf({ kind: 'DeploymentList', apiVersion: 'apps/v1', metadata: { resourceVersion: '50' }, items: [object, other] }, 'Deployment');
    if ('invalid' in want) {
      expect(page.scales.has('web')).toBe(false);
      expect(page.unconvertible.get('web')).toContain(want.invalid);
    } else {
      expect(page.scales.get('web')).toEqual(want);
      expect(page.unconvertible.size).toBe(0);
    }
    // one object's selector never costs the others their scale
    expect(page.scales.get('other')).toEqual({ specReplicas: 1, statusReplicas: 0, selector: 'app=other', resourceVersion: '42' });
    expect(page.continue).toBe('');
  });

  it('reads the token of the next page, and lists of every kind', () => {
    expect(appsScalesOf({ kind: 'StatefulSetList', metadata: { continue: 'next' }, items: [] }, 'StatefulSet')).toEqual({ scales: new Map(), unconvertible: new Map(), continue: 'next' });
    expect(appsScalesOf({ kind: 'ReplicaSetList', items: [obj({ replicas: 1, selector: { matchLabels: { a: 'b' } } })] }, 'ReplicaSet').scales.get('web')).toMatchObject({ selector: 'a=b' });
  });

  it('names the field path of a malformed answer: the whole page fails, as no API server sends one', () => {
    const list = (item: unknown) => () => appsScalesOf({ kind: 'DeploymentList', items: [obj({ replicas: 1 }), item] }, 'Deployment');
    expect(list(obj({ replicas: '3' }))).toThrow('DeploymentList: items[1].spec.replicas is not a number');
    expect(list(obj({ replicas: 1 }, { replicas: true }))).toThrow('DeploymentList: items[1].status.replicas is not a number');
    expect(list(obj({ replicas: 1, selector: { matchLabels: { app: 5 } } }))).toThrow('DeploymentList: items[1].spec.selector.matchLabels.app is not a string');
    expect(list(obj({ replicas: 1, selector: { matchExpressions: {} } }))).toThrow('DeploymentList: items[1].spec.selector.matchExpressions is not a list');
    expect(list(obj({ replicas: 1, selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] } }))).toThrow('DeploymentList: items[1].spec.selector.matchExpressions[0].values[0] is not a string');
    expect(list({ metadata: {} })).toThrow('DeploymentList: items[1].metadata.name is not a string');
    expect(() => appsScalesOf({ kind: 'PodList', items: [] }, 'Deployment')).toThrow('DeploymentList: kind is not "DeploymentList" (got "PodList")');
  });
});
