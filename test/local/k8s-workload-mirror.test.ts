import { describe, expect, it } from 'vitest';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { WorkloadMirror } from '../../lib/local/kubernetes/workload-mirror.js';
import { ObjectStore } from '../../lib/local/kubernetes/object-store.js';
import { VirtualClock } from '../cluster/fixture.js';

/** What a client sees of a namespace's pods and apps objects, but for resourceVersions (store-assigned). */
function contents(store: ObjectStore): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['/pods', 'apps/deployments', 'apps/statefulsets', 'apps/replicasets']) {
    out[key] = store
      .list(key, { namespace: 'ns' })
      .items.map((o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }
  return out;
}

describe('WorkloadMirror', () => {
  it.each([10, 0])('copies after each /scale write only what changed, and agrees with a full copy (grace %is)', (grace) => {
    const clock = new VirtualClock();
    const model = new WorkloadModel({ clock, startDelaySeconds: 1, readyDelaySeconds: 4, terminationGraceSeconds: grace });
    for (let i = 0; i < 20; i++) model.addWorkload({ kind: i % 2 ? 'StatefulSet' : 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: `w${i}`, replicas: 2, selector: { app: `w${i}` } });
    const store = new ObjectStore();
    const mirror = new WorkloadMirror(model, store);
    clock.advance(60_000);
    mirror.sync();
    const before = model.revisionOf('ns');
    const deployment = model.typeOf('apps', 'Deployment')!;
    const sts = model.typeOf('apps', 'StatefulSet')!;
    model.setReplicas('ns', deployment, 'w0', 4);
    mirror.written('ns');
    model.setReplicas('ns', sts, 'w1', 1);
    mirror.written('ns');
    // the model hands over only the two workloads written since (a Deployment's ReplicaSet with it)
    const changed = model.workloadViews('ns', before).map((v) => `${v.kind}/${v.name.split('-')[0]}`);
    expect(changed.sort()).toEqual(['Deployment/w0', 'ReplicaSet/w0', 'StatefulSet/w1']);
    expect(model.podViews('ns', before).every((p) => p.name.startsWith('w0-') || p.name.startsWith('w1-'))).toBe(true);
    for (const step of [0, 2_000, 3_000, 10_000]) {
      clock.advance(step);
      mirror.written('ns');
      const fresh = new ObjectStore();
      new WorkloadMirror(model, fresh).sync();
      expect(contents(store)).toEqual(contents(fresh));
    }
  });
});
