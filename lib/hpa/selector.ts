// Label selectors as upstream apimachinery labels.Parse and metav1.LabelSelectorAsSelector.
// CONTRACT (owned by the behavior helper): keep these exports and signatures.
import type { LabelSelector } from './types.js';

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Requirement {
  key: string;
  operator: '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
  values: string[];
}

export interface Selector {
  requirements: Requirement[];
}

/** Parses a selector string ("app=web,tier in (a,b),!canary"); throws SelectorError on malformed input. "" selects everything. */
export function parseSelector(input: string): Selector {
  throw new SelectorError(input, 'not implemented');
}

/** metav1.LabelSelectorAsSelector; throws SelectorError when invalid. */
export function fromLabelSelector(ls: LabelSelector | undefined): Selector {
  throw new Error('not implemented');
}

export function matchesLabels(sel: Selector, labels: Record<string, string> | undefined): boolean {
  throw new Error('not implemented');
}

/** Canonical string form, as upstream Selector.String() (sorted by key). */
export function selectorToString(sel: Selector): string {
  throw new Error('not implemented');
}
