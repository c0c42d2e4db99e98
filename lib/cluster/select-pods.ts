// Pods are listed once per namespace; each autoscaler then picks its own with
// the scale's status.selector, parsed as upstream labels.Parse does.
import type { PodInfo } from '../hpa/types.js';
import { matchesLabels, parseSelector } from '../hpa/selector.js';

/** Throws SelectorError (naming the input) when the selector is malformed. */
export function selectPods(pods: readonly PodInfo[], selector: string): PodInfo[] {
  const sel = parseSelector(selector);
  return pods.filter((p) => matchesLabels(sel, p.labels));
}
