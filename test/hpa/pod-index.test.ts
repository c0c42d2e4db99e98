// PodSelectorIndex: the pods of a namespace by selector, and the autoscalers selecting each
// pod, with exactly the answers of a plain scan (labels.Parse then Matches over every pod),
// and with work that grows with the pods an autoscaler selects, not with its namespace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { PodSelectorIndex, type AutoscalerSelector } from '../../lib/hpa/pod-index.js';
import { reconcile, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import { matchesLabels, parseSelector, SelectorError } from '../../lib/hpa/selector.js';
import type { PodInfo } from '../../lib/hpa/types.js';

const pod = (name: string, labels?: Record<string, string>): PodInfo => ({ name, phase: 'Running', containers: [], ...(labels ? { labels } : {}) });

/** What the index must answer: every pod scanned. */
const scan = (pods: PodInfo[], selector: string) => {
  const sel = parseSelector(selector);
  return pods.filter((p) => matchesLabels(sel, p.labels));
};

const pods = [
  pod('web-1', { app: 'web', tier: 'front' }),
  pod('web-2', { app: 'web', tier: 'front', track: 'canary' }),
  pod('api-1', { app: 'api', tier: 'back' }),
  pod('db-0', { app: 'db' }),
  pod('bare'),
  pod('odd', { app: '', tier: 'front' }),
];

describe('PodSelectorIndex.select', () => {
  it.each([
    'app=web',
    'app==web',
    'app in (web,api)',
    'app in (api,web),tier=front',
    'app=web,!track',
    'app!=web',
    'app notin (web)',
    'app',
    '!app',
    'tier=front,app in (web,db)',
    'app=',
    'app in (,db)',
    'app=nope',
    'app=web,tier=back',
    'x>1',
    '',
  ])('%j selects what a scan of every pod selects, in pod order', (selector) => {
    expect(new PodSelectorIndex(pods).select(selector)).toEqual(scan(pods, selector));
  });

  it('throws the SelectorError of a malformed selector, every time it is asked', () => {
    const index = new PodSelectorIndex(pods);
    expect(() => index.select('app in (web')).toThrow(SelectorError);
    expect(() => index.select('app in (web')).toThrow(SelectorError);
  });

  it('agrees with a scan for any selector over any pods', () => {
    const value = fc.constantFrom('', 'a', 'b', 'c');
    const labels = fc.dictionary(fc.constantFrom('x', 'y', 'z'), value, { maxKeys: 3 });
    const requirement = fc.oneof(
      fc.tuple(fc.constantFrom('x', 'y', 'z'), fc.constantFrom('=', '==', '!='), value).map(([k, op, v]) => `${k}${op}${v}`),
      fc.tuple(fc.constantFrom('x', 'y', 'z'), fc.constantFrom('in', 'notin'), fc.uniqueArray(value, { minLength: 1, maxLength: 3 })).map(([k, op, vs]) => `${k} ${op} (${vs.join(',')})`),
      fc.tuple(fc.constantFrom('', '!'), fc.constantFrom('x', 'y', 'z')).map(([not, k]) => `${not}${k}`),
    );
    fc.assert(
      fc.property(fc.array(fc.option(labels, { nil: undefined }), { maxLength: 8 }), fc.array(requirement, { minLength: 1, maxLength: 3 }), (podLabels, reqs) => {
        const list = podLabels.map((l, i) => pod(`p-${i}`, l));
        const selector = reqs.join(',');
        expect(new PodSelectorIndex(list).select(selector)).toEqual(scan(list, selector));
      }),
    );
  });
});

describe('PodSelectorIndex.selectingAutoscalers', () => {
  const selectors: AutoscalerSelector[] = [
    { namespace: 'shop', name: 'front', selector: 'tier=front' },
    { namespace: 'shop', name: 'broken', selector: 'app in (web' },
    { namespace: 'other', name: 'web', selector: 'app=web' },
    { namespace: 'shop', name: 'web', selector: 'app=web' },
  ];

  it('maps each pod to the autoscalers of the namespace selecting it, by position; an unparsable selector selects nothing', () => {
    const owners = new PodSelectorIndex(pods).selectingAutoscalers(selectors, 'shop');
    expect(Object.fromEntries(owners)).toEqual({ 'web-1': [0, 3], 'web-2': [0, 3], odd: [0] });
  });

  it('works the map out once for the same array and namespace', () => {
    const index = new PodSelectorIndex(pods);
    const first = index.selectingAutoscalers(selectors, 'shop');
    expect(index.selectingAutoscalers(selectors, 'shop')).toBe(first);
    expect(index.selectingAutoscalers([...selectors], 'shop')).not.toBe(first);
    expect(Object.fromEntries(index.selectingAutoscalers(selectors, 'other'))).toEqual({ 'web-1': [2], 'web-2': [2] });
  });
});

// ---- AmbiguousSelector (upstream validateAndParseSelector) through reconcile ----

const now = new Date('2026-03-01T12:00:00Z');

function input(name: string, selector: string, namespacePods: PodInfo[], others: readonly AutoscalerSelector[], index?: PodSelectorIndex): ReconcileInput {
  return {
    hpa: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name, namespace: 'shop' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }] },
      status: { currentReplicas: 1, desiredReplicas: 1 },
    },
    scale: { value: { specReplicas: 1, statusReplicas: 1, selector } },
    pods: namespacePods,
    ...(index ? { podIndex: index } : {}),
    metrics: [{ podCustomMetrics: { value: [] } }],
    history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    otherHpaSelectors: others,
    settings: DEFAULT_CONTROLLER_SETTINGS,
    now,
  };
}

const ambiguity = (r: ReturnType<typeof reconcile>) => r.events.find((e) => e.reason === 'AmbiguousSelector')?.message;

describe('AmbiguousSelector', () => {
  const shared: AutoscalerSelector[] = [
    { namespace: 'shop', name: 'tiers', selector: 'tier in (front,back)' },
    { namespace: 'shop', name: 'web', selector: 'app=web' },
    { namespace: 'shop', name: 'typo', selector: 'app in (web' },
    { namespace: 'other', name: 'everything', selector: 'app' },
    { namespace: 'shop', name: 'canary', selector: 'track=canary' },
    { namespace: 'shop', name: 'db', selector: 'app=db' },
  ];

  it.each([
    // our own entry is skipped; others in the order given; an unparsable one and other namespaces' never count
    ['web', 'app=web', 'pods by selector app=web are controlled by multiple HPAs: [shop/web shop/tiers shop/canary]'],
    ['db', 'app=db', undefined],
    ['api', 'app=api', 'pods by selector app=api are controlled by multiple HPAs: [shop/api shop/tiers]'],
    ['typo', 'app=db', 'pods by selector app=db are controlled by multiple HPAs: [shop/typo shop/db]'],
    ['lonely', 'app=nope', undefined],
  ])('%s with selector %j: %j', (name, selector, message) => {
    const index = new PodSelectorIndex(pods);
    const r = reconcile(input(name, selector, pods, shared, index));
    expect(ambiguity(r)).toBe(message);
    if (message) expect(r.conditions.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'AmbiguousSelector' });
    // the same without the shared index
    expect(ambiguity(reconcile(input(name, selector, pods, shared)))).toBe(message);
  });

  /** Every autoscaler of a namespace of n, each with its own 3 pods, through one index and one array; what they read, counted. */
  function namespaceOf(n: number) {
    const counts = { labelReads: 0, entryReads: 0 };
    const counted = (labels: Record<string, string>) =>
      new Proxy(labels, {
        get(target, key, receiver) {
          counts.labelReads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const all: PodInfo[] = [];
    const entries: AutoscalerSelector[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < 3; j++) all.push(pod(`app-${i}-${j}`, counted({ app: `app-${i}`, 'pod-template-hash': `h${i}`, team: `t${i % 5}` })));
      entries.push({ namespace: 'shop', name: `app-${i}`, selector: `app=app-${i},team=t${i % 5}` });
    }
    const selectors = new Proxy(entries, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) counts.entryReads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const index = new PodSelectorIndex(all);
    for (let i = 0; i < n; i++) {
      const r = reconcile(input(`app-${i}`, `app=app-${i},team=t${i % 5}`, all, selectors, index));
      expect(ambiguity(r)).toBeUndefined();
    }
    return { labelReads: counts.labelReads / n, entryReads: counts.entryReads / n };
  }

  it('costs each autoscaler the same whatever the size of its namespace: no selector or pod of the others is looked at again', () => {
    const small = namespaceOf(20);
    const large = namespaceOf(400);
    // per autoscaler: its pods' labels indexed once and matched once; its entry read once for the map, once per pod in its own check
    expect(large).toEqual(small);
    expect(small.entryReads).toBeLessThanOrEqual(1 + 3);
    expect(small.labelReads).toBeLessThanOrEqual(3 * (3 + 2));
  });
});
