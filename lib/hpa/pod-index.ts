// The pods of one namespace, with the pods each selector matches worked out once: every
// autoscaler of the namespace selects its pods, and checks the others' selectors against
// them (upstream's AmbiguousSelector), so without this the work grows with the square of
// the autoscalers per namespace. Pure; made per namespace per cycle.
import type { PodInfo } from './types.js';
import { matchesLabels, parseSelector, SelectorError } from './selector.js';

export class PodSelectorIndex {
  private readonly matched = new Map<string, PodInfo[] | SelectorError>();

  constructor(readonly pods: readonly PodInfo[]) {}

  /** The pods a label selector (upstream's string form) matches; throws SelectorError when it does not parse. */
  select(selector: string): PodInfo[] {
    let hit = this.matched.get(selector);
    if (hit === undefined) {
      try {
        const sel = parseSelector(selector);
        hit = this.pods.filter((p) => matchesLabels(sel, p.labels));
      } catch (e) {
        if (!(e instanceof SelectorError)) throw e;
        hit = e;
      }
      this.matched.set(selector, hit);
    }
    if (hit instanceof SelectorError) throw hit;
    return hit;
  }
}
