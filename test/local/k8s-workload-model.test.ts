import { describe, expect, it } from 'vitest';
import { WorkloadModel, toQuantity } from '../../lib/local/kubernetes/workload-model.js';
import { VirtualClock } from '../cluster/fixture.js';

function setup() {
  const clock = new VirtualClock();
  const model = new WorkloadModel({ clock, startDelaySeconds: 1, readyDelaySeconds: 4, terminationGraceSeconds: 10, baseline: { cpu: 0, memory: 0 } });
  return { clock, model };
}
const names = (pods: Record<string, unknown>[]) => pods.map((p) => (p.metadata as { name: string }).name);
const deleting = (pods: Record<string, unknown>[]) => pods.filter((p) => (p.metadata as { deletionTimestamp?: string }).deletionTimestamp);

describe('WorkloadModel', () => {
  it('keeps StatefulSet ordinals: new pods take the lowest free, scale-down removes the highest', () => {
    const { clock, model } = setup();
    const sts = model.typeOf('apps', 'StatefulSet')!;
    model.addWorkload({ kind: 'StatefulSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'db', replicas: 3, selector: { app: 'db' } });
    expect(names(model.podObjects('ns'))).toEqual(['db-0', 'db-1', 'db-2']);
    model.setReplicas('ns', sts, 'db', 1);
    expect(names(deleting(model.podObjects('ns')))).toEqual(['db-1', 'db-2']);
    expect(model.scale('ns', sts, 'db')).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1, selector: 'app=db' } });
    clock.advance(10);
    expect(names(model.podObjects('ns'))).toEqual(['db-0']);
    model.setReplicas('ns', sts, 'db', 2);
    expect(names(model.podObjects('ns'))).toEqual(['db-0', 'db-1']);
  });

  it('removes pending, then unready, then the newest pods of a Deployment first', () => {
    const { clock, model } = setup();
    const dep = model.typeOf('apps', 'Deployment')!;
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 2, selector: { app: 'web' } });
    const original = names(model.podObjects('ns'));
    clock.advance(5); // ready
    model.setReplicas('ns', dep, 'web', 4);
    clock.advance(2); // the two new pods run, unready
    model.setReplicas('ns', dep, 'web', 3);
    model.setReplicas('ns', dep, 'web', 5); // two pending ones
    model.setReplicas('ns', dep, 'web', 2);
    const gone = names(deleting(model.podObjects('ns')));
    expect(gone).toHaveLength(4); // one at 4→3, three at 5→2
    expect(gone.some((n) => original.includes(n))).toBe(false);
  });

  it("with a scrape loop, serves each pod's load and time of its last scrape, its node's offset after the loop's start", () => {
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    const offsets: Record<string, number> = { web: 0, api: 1_500 };
    const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, baseline: { cpu: 0, memory: 0 }, scrape: { resolutionSeconds: 15, phaseMs: 4_000, offsetMs: (_ns, w) => offsets[w], sampleSpreadMs: 0 } });
    const start = clock.now().getTime();
    for (const name of ['web', 'api']) model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name, replicas: 1, selector: { app: name }, load: (at) => ({ cpu: at.getTime() - start < 20_000 ? 0.5 : 1 }) });
    clock.advance(20);
    const read = () => model.podMetrics('ns').map((m) => [(m.metadata as { labels: { app: string } }).labels.app, m.timestamp, (m.containers as { usage: { cpu: string } }[])[0].usage.cpu]);
    // at 20 s: web scraped at 19 s, api at 20.5 s not yet (5.5 s); both still at the load before 20 s
    expect(read()).toEqual([
      ['web', '2026-01-01T00:00:19Z', '500000000n'],
      ['api', '2026-01-01T00:00:05Z', '500000000n'],
    ]);
    clock.advance(1);
    expect(read()).toEqual([
      ['web', '2026-01-01T00:00:19Z', '500000000n'],
      ['api', '2026-01-01T00:00:20Z', '1000000000n'],
    ]);
  });

  it("with loopMs, serves the whole loop at once when it is stored (metrics-server's Store after Scrape), each pod as its node's scrape saw it", () => {
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    const offsets: Record<string, number> = { web: 0, api: 1_500 };
    const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, baseline: { cpu: 0, memory: 0 }, scrape: { resolutionSeconds: 15, phaseMs: 4_000, loopMs: 2_000, offsetMs: (_ns, w) => offsets[w], sampleSpreadMs: 0 } });
    const start = clock.now().getTime();
    const dep = model.typeOf('apps', 'Deployment')!;
    for (const name of ['web', 'api']) model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name, replicas: 1, selector: { app: name }, load: (at) => ({ cpu: at.getTime() - start < 20_000 ? 0.5 : 1 }) });
    clock.advance(20.5);
    const read = () => model.podMetrics('ns').map((m) => [(m.metadata as { labels: { app: string } }).labels.app, m.timestamp, (m.containers as { usage: { cpu: string } }[])[0].usage.cpu]);
    // at 20.5 s: the loop started at 19 s (web at 19 s, api at 20.5 s) is not stored before 21 s
    const before = [
      ['web', '2026-01-01T00:00:04Z', '500000000n'],
      ['api', '2026-01-01T00:00:05Z', '500000000n'],
    ];
    expect(read()).toEqual(before);
    // a new pod has no answer, and the others keep theirs, until a loop that scraped it is stored
    model.setReplicas('ns', dep, 'web', 2);
    expect(read()).toEqual(before);
    clock.advance(0.5);
    expect(read()).toEqual([
      ['web', '2026-01-01T00:00:19Z', '500000000n'],
      ['api', '2026-01-01T00:00:20Z', '1000000000n'],
    ]);
    clock.advance(15);
    expect(read().filter(([app]) => app === 'web')).toEqual([
      ['web', '2026-01-01T00:00:34Z', '500000000n'],
      ['web', '2026-01-01T00:00:34Z', '500000000n'],
    ]);
  });

  it('by default stamps each pod with its earliest container sample, up to a housekeeping interval before the scrape, and changes the answer only at the scrape', () => {
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, baseline: { cpu: 0, memory: 0 }, scrape: { resolutionSeconds: 15, phaseMs: 4_000 } });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 20, selector: { app: 'web' }, load: () => ({ cpu: 1 }) });
    clock.advance(20);
    const stamps = () => model.podMetrics('ns').map((m) => Date.parse(m.timestamp as string) - Date.parse('2026-01-01T00:00:00Z'));
    const first = stamps();
    // scraped at 19 s: every sample within the 10 s before it (stamped in whole seconds), and not all at one time
    expect(first.every((t) => t <= 19_000 && t >= 9_000)).toBe(true);
    expect(new Set(first).size).toBeGreaterThan(5);
    clock.advance(13.9);
    expect(stamps()).toEqual(first);
    clock.advance(0.1);
    const second = stamps();
    expect(second.every((t) => t <= 34_000 && t >= 24_000)).toBe(true);
  });

  it("stamps a pod of several containers with the earliest of their samples (each from its own housekeeping loop): older than a one-container pod's", () => {
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, baseline: { cpu: 0, memory: 0 }, scrape: { resolutionSeconds: 15, phaseMs: 4_000, sampleSpreadMs: 10_000 } });
    const sidecars = [{ name: 'app', requests: { cpu: '100m' } }, { name: 'proxy', requests: { cpu: '50m' } }, { name: 'log', requests: { cpu: '10m' } }];
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'one', replicas: 30, selector: { app: 'one' } });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'three', replicas: 30, selector: { app: 'three' }, containers: sidecars });
    clock.advance(20);
    const ages = (app: string) => model.podMetrics('ns', (l) => l.app === app).map((m) => 19_000 - (Date.parse(m.timestamp as string) - Date.parse('2026-01-01T00:00:00Z')));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    for (const app of ['one', 'three']) expect(ages(app).every((a) => a >= 0 && a <= 10_000)).toBe(true);
    // the oldest of three uniform ages averages 7.5 s, one alone 5 s
    expect(mean(ages('three'))).toBeGreaterThan(mean(ages('one')) + 1_000);
  });

  it('divides the load over ready pods and reports no metrics for pending pods', () => {
    const { clock, model } = setup();
    const dep = model.typeOf('apps', 'Deployment')!;
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 2, selector: { app: 'web' }, load: () => ({ cpu: 0.8, memory: 2048 }) });
    expect(model.podMetrics('ns')).toEqual([]);
    clock.advance(5);
    model.setReplicas('ns', dep, 'web', 4);
    clock.advance(1);
    const usage = model.podMetrics('ns').map((m) => (m.containers as { usage: { cpu: string; memory: string } }[])[0].usage);
    expect(usage).toEqual([
      { cpu: '400000000n', memory: '1Ki' },
      { cpu: '400000000n', memory: '1Ki' },
      { cpu: '0n', memory: '0Ki' },
      { cpu: '0n', memory: '0Ki' },
    ]);
  });

  it('at zero replicas: no pods once their grace is over, the selector kept, empty metrics, an Available workload; back up from zero', () => {
    const { clock, model } = setup();
    const dep = model.typeOf('apps', 'Deployment')!;
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'jobs', replicas: 2, selector: { app: 'jobs' }, load: () => ({ cpu: 1, memory: 1024 }) });
    clock.advance(5);
    model.setReplicas('ns', dep, 'jobs', 0);
    expect(deleting(model.podObjects('ns'))).toHaveLength(2);
    clock.advance(11);
    expect(model.podObjects('ns')).toEqual([]);
    expect(model.podMetrics('ns')).toEqual([]);
    expect(model.scale('ns', dep, 'jobs')).toMatchObject({ spec: { replicas: 0 }, status: { replicas: 0, selector: 'app=jobs' } });
    expect(model.workloadObjects('ns')[0]).toMatchObject({ spec: { replicas: 0 }, status: { conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing' }] } });
    model.setReplicas('ns', dep, 'jobs', 1);
    clock.advance(5);
    expect(model.podMetrics('ns').map((m) => (m.containers as { usage: { cpu: string } }[])[0].usage.cpu)).toEqual(['1000000000n']);
  });

  it('serves settable custom and external metric values, functions of time and pod', () => {
    const { clock, model } = setup();
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 1, selector: { app: 'web' } });
    clock.advance(1);
    model.setPodsMetric('ns', 'rps', (pod) => pod.length);
    model.setExternalMetric('ns', 'queue', (now) => now.getUTCSeconds() + 0.25);
    expect(model.podsMetricValues('ns', 'rps')[0].value).toBe(String(names(model.podObjects('ns'))[0].length));
    expect(model.externalMetricValues('ns', 'queue')).toEqual([{ metricLabels: undefined, value: '1250m' }]);
    expect(toQuantity(2)).toBe('2');
    expect(() => model.addWorkload({ kind: 'Foo', apiVersion: 'x.io/v1', namespace: 'ns', name: 'f', replicas: 1 })).toThrow('unknown kind Foo');
  });

  it('builds apps/v1 objects with status from the pods, and the ReplicaSet a Deployment owns', () => {
    const { clock, model } = setup();
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 3, selector: { app: 'web' } });
    model.addWorkload({ kind: 'StatefulSet', apiVersion: 'apps/v1', namespace: 'other', name: 'db', replicas: 1, selector: { app: 'db' } });
    const kinds = (objects: Record<string, unknown>[]) => objects.map((o) => `${String(o.kind)}/${(o.metadata as { name: string }).name}`);
    expect(kinds(model.workloadObjects('ns'))).toEqual(['Deployment/web', expect.stringMatching(/^ReplicaSet\/web-[a-z0-9]{10}$/)]);
    expect(model.workloadObjects('ns')[0]).toMatchObject({ spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } }, status: { replicas: 3, updatedReplicas: 3, unavailableReplicas: 3 } });
    expect((model.workloadObjects('ns')[0].status as Record<string, unknown>).readyReplicas).toBeUndefined();
    clock.advance(5);
    expect(model.workloadObjects('ns')[0]).toMatchObject({ status: { readyReplicas: 3, availableReplicas: 3, conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing' }] } });
    const rs = model.workloadObjects('ns')[1];
    const pod = model.podObjects('ns')[0];
    expect((pod.metadata as { ownerReferences: unknown[] }).ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', name: (rs.metadata as { name: string }).name, uid: (rs.metadata as { uid: string }).uid });
    expect(kinds(model.workloadObjects())).toContain('StatefulSet/db');
    expect(model.namespaces().map((n) => n.name)).toEqual(['ns', 'other']);
  });

  it('stamps each apps/v1 object so that exactly the objects that changed have a new stamp', () => {
    const { clock, model } = setup();
    const dep = model.typeOf('apps', 'Deployment')!;
    for (const name of ['web', 'api']) model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name, replicas: 2, selector: { app: name } });
    const stamps = () => new Map(model.workloadViews('ns').map((v) => [`${v.kind}/${v.name}`, v.stamp]));
    const json = () => new Map(model.workloadViews('ns').map((v) => [`${v.kind}/${v.name}`, JSON.stringify(v.object())]));
    const changed = (a: Map<string, string>, b: Map<string, string>) => [...a.keys()].filter((k) => a.get(k) !== b.get(k)).map((k) => k.split('-')[0]);
    let [s0, j0] = [stamps(), json()];
    expect(model.workloadViews('ns').map((v) => JSON.stringify(v.object()))).toEqual(model.workloadObjects('ns').map((o) => JSON.stringify(o)));
    model.setReplicas('ns', dep, 'web', 3); // spec, generation and a new pod
    expect(changed(s0, stamps())).toEqual(changed(j0, json()));
    expect(changed(s0, stamps())).toEqual(['Deployment/web', 'ReplicaSet/web']);
    [s0, j0] = [stamps(), json()];
    clock.advance(5); // every pod ready: both workloads' status
    expect(changed(s0, stamps())).toEqual(changed(j0, json()));
    expect(changed(s0, stamps())).toHaveLength(4);
    [s0, j0] = [stamps(), json()];
    clock.advance(5); // nothing moves
    expect(changed(s0, stamps())).toEqual([]);
    expect(changed(j0, json())).toEqual([]);
  });

  it('tells an API server what changed: revisions per namespace, pod states and the next transition', () => {
    const { clock, model } = setup();
    const dep = model.typeOf('apps', 'Deployment')!;
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: 'web', replicas: 1, selector: { app: 'web' } });
    const start = clock.now().getTime();
    expect([model.revisionOf('ns'), model.revisionOf('other')]).toEqual([1, 0]);
    expect(model.nextChangeMs('ns')).toBe(start + 1000); // running after startDelaySeconds
    expect(model.podViews('ns').map((v) => v.state)).toEqual([0]);
    clock.advance(1);
    expect([model.podViews('ns')[0].state, model.nextChangeMs('ns')]).toEqual([1, start + 5000]);
    clock.advance(4);
    expect([model.podViews('ns')[0].state, model.nextChangeMs('ns')]).toEqual([2, Number.POSITIVE_INFINITY]);
    model.setReplicas('ns', dep, 'web', 0);
    expect(model.revisionOf('ns')).toBe(2);
    expect([model.podViews('ns')[0].state, model.nextChangeMs('ns')]).toEqual([5, clock.now().getTime() + 10_000]); // terminating for the grace period
    expect(model.podViews('ns')[0].object()).toMatchObject({ status: { containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }], podIPs: [{ ip: expect.any(String) }] } });
  });
});
