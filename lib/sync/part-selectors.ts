// A shard holding a part of a namespace reads only its own targets' pods and pod metrics, as
// upstream reads each HPA's by its selector: the targets' selectors folded into a few list
// selectors ("app in (a,b,c)") whose union holds every target's pods. Each autoscaler still
// picks its own pods by its full selector, so a wider list changes nothing but its size.
import { parseSelector, type Requirement } from '#hpa';

/** Past this many values (a long URL, a part almost the namespace), the namespace is listed whole. */
const MAX_VALUES = 250;
/** Past this many lists (selectors without a common key), the namespace is listed whole. */
const MAX_LISTS = 4;

/**
 * List selectors whose union covers the pods each of the given scale selectors selects; undefined
 * when the namespace must be read whole (a selector with no "key=value" or "key in (...)" term,
 * one that does not parse, or too many values).
 */
export function coveringSelectors(selectors: readonly string[]): string[] | undefined {
  const positives: Requirement[][] = [];
  for (const s of selectors) {
    let reqs: Requirement[];
    try {
      reqs = parseSelector(s).requirements.filter((r) => (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length > 0 && !r.values.includes(''));
    } catch {
      return undefined;
    }
    if (reqs.length === 0) return undefined;
    positives.push(reqs);
  }
  // Each selector is covered by one of its terms, chosen on the key most selectors share, so the lists are few.
  const keyUse = new Map<string, number>();
  for (const reqs of positives) for (const k of new Set(reqs.map((r) => r.key))) keyUse.set(k, (keyUse.get(k) ?? 0) + 1);
  const byKey = new Map<string, Set<string>>();
  for (const reqs of positives) {
    const best = reqs.reduce((a, b) => ((keyUse.get(b.key) ?? 0) > (keyUse.get(a.key) ?? 0) ? b : a));
    let values = byKey.get(best.key);
    if (!values) byKey.set(best.key, (values = new Set()));
    for (const v of best.values) values.add(v);
  }
  let total = 0;
  for (const v of byKey.values()) total += v.size;
  if (byKey.size > MAX_LISTS || total > MAX_VALUES) return undefined;
  return [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k} in (${[...v].sort().join(',')})`);
}
