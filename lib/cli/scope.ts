// -n, -A and -l, as kubectl reads them: which objects a command looks at.
import { matchesLabels, parseSelector, type Selector, SelectorError } from '#hpa';
import { CliError } from './context.js';

export interface ScopeOptions {
  namespace: string;
  allNamespaces?: boolean;
  selector?: string;
}

export interface Scope {
  includes(namespace: string, labels: Record<string, string> | undefined): boolean;
  /** kubectl's "No resources found in default namespace." */
  none: string;
}

export function scopeOf(opts: ScopeOptions): Scope {
  let selector: Selector | undefined;
  if (opts.selector !== undefined) {
    try {
      selector = parseSelector(opts.selector);
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      throw new CliError(`-l ${JSON.stringify(opts.selector)}: ${e.message}: write a selector such as app=web, tier!=db, env in (a,b)`);
    }
  }
  return {
    includes: (ns, labels) => (opts.allNamespaces === true || ns === opts.namespace) && (!selector || matchesLabels(selector, labels ?? {})),
    none: opts.allNamespaces ? 'No resources found\n' : `No resources found in ${opts.namespace} namespace.\n`,
  };
}

