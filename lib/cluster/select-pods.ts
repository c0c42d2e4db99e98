// Pods are listed once per namespace; each autoscaler then picks its own with
// the scale's status.selector, parsed as upstream labels.Parse does.
import { matchesLabels, parseSelector, type PodInfo } from '#hpa';

/** Throws SelectorError (naming the input) when the selector is malformed. */
export function selectPods(pods: readonly PodInfo[], selector: string): PodInfo[] {
  const sel = parseSelector(selector);
  return pods.filter((p) => matchesLabels(sel, p.labels));
}
