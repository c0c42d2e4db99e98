// The pods of one namespace, with the pods each selector matches worked out once, and the
// autoscalers selecting each pod worked out once: every autoscaler of the namespace selects
// its pods, and checks the others' selectors against them (upstream's AmbiguousSelector).
// Scanning every pod for every selector, and every other selector for every autoscaler, grows
// with the square of the autoscalers per namespace; here a selector with an equality (or `in`)
// requirement looks only at the pods carrying one of its values, and an autoscaler's check
// looks only at its own pods. Pure; made per namespace per cycle.
import type { PodInfo } from './types.js';
import { matchesLabels, parseSelector, SelectorError, type Selector } from './selector.js';

/** An autoscaler's pod selector (upstream's string form), as the controller last saw it. */
export interface AutoscalerSelector {
  namespace: string;
  name: string;
  selector: string;
}

export class PodSelectorIndex {
  private readonly matched = new Map<string, PodInfo[] | SelectorError>();
  /** label key → value → positions in `pods`, ascending; built on the first selection. */
  private byLabel?: Map<string, Map<string, number[]>>;
  private owners?: { selectors: readonly AutoscalerSelector[]; namespace: string; byPod: Map<string, number[]> };

  constructor(readonly pods: readonly PodInfo[]) {}

  /** The pods a label selector (upstream's string form) matches, in the order of `pods`; throws SelectorError when it does not parse. */
  select(selector: string): PodInfo[] {
    let hit = this.matched.get(selector);
    if (hit === undefined) {
      try {
        const sel = parseSelector(selector);
        hit = this.candidates(sel).filter((p) => matchesLabels(sel, p.labels));
      } catch (e) {
        if (!(e instanceof SelectorError)) throw e;
        hit = e;
      }
      this.matched.set(selector, hit);
    }
    if (hit instanceof SelectorError) throw hit;
    return hit;
  }

  /**
   * Pod name → the positions in `selectors` (ascending) of the autoscalers of `namespace` whose
   * selector matches that pod; a selector that does not parse selects nothing, as upstream
   * registers only parsed selectors. Worked out once for the same array and namespace: pass one
   * shared array for every autoscaler of the namespace.
   */
  selectingAutoscalers(selectors: readonly AutoscalerSelector[], namespace: string): ReadonlyMap<string, readonly number[]> {
    if (this.owners?.selectors === selectors && this.owners.namespace === namespace) return this.owners.byPod;
    const byPod = new Map<string, number[]>();
    for (let i = 0; i < selectors.length; i++) {
      const s = selectors[i];
      if (s.namespace !== namespace) continue;
      let pods: PodInfo[];
      try {
        pods = this.select(s.selector);
      } catch (e) {
        if (e instanceof SelectorError) continue;
        throw e;
      }
      for (const p of pods) {
        const list = byPod.get(p.name);
        if (list) list.push(i);
        else byPod.set(p.name, [i]);
      }
    }
    this.owners = { selectors, namespace, byPod };
    return byPod;
  }

  /**
   * The pods that can match: those carrying a value of the selector's most selective equality
   * or `in` requirement (a pod without one cannot match), else every pod. Kept in pod order.
   */
  private candidates(sel: Selector): readonly PodInfo[] {
    if (sel.nothing) return [];
    let best: number[] | undefined;
    for (const r of sel.requirements) {
      if (r.operator !== '=' && r.operator !== '==' && r.operator !== 'in') continue;
      const values = this.labelIndex().get(r.key);
      const lists = r.values.map((v) => values?.get(v) ?? []);
      const size = lists.reduce((n, l) => n + l.length, 0);
      if (best !== undefined && size >= best.length) continue;
      // a pod has one value per key, so the lists of distinct values never share a pod
      best = lists.length === 1 ? lists[0] : lists.flat().sort((a, b) => a - b);
      if (best.length === 0) return [];
    }
    if (best === undefined) return this.pods;
    return best.map((i) => this.pods[i]);
  }

  private labelIndex(): Map<string, Map<string, number[]>> {
    if (this.byLabel) return this.byLabel;
    const byLabel = new Map<string, Map<string, number[]>>();
    this.pods.forEach((p, i) => {
      const labels = p.labels ?? {};
      for (const key of Object.keys(labels)) {
        const value = labels[key];
        // matchesLabels reads only string values; anything else is no label
        if (typeof value !== 'string') continue;
        let values = byLabel.get(key);
        if (!values) byLabel.set(key, (values = new Map()));
        const list = values.get(value);
        if (list) list.push(i);
        else values.set(value, [i]);
      }
    });
    this.byLabel = byLabel;
    return byLabel;
  }
}
