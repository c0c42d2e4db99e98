// kubectl's --dry-run=client|server and the outcome a write would have, computed without writing.
import { isDeepStrictEqual } from 'node:util';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ApplyOutcome, StoredSpec } from '../store/index.js';

/**
 * none: write. client: check the input, read the table for the outcome, write nothing. server: also
 * everything a write checks (the cluster registered, warnings against the table), and write nothing.
 */
export type DryRun = 'none' | 'client' | 'server';

function parseDryRun(v: string): DryRun {
  if (v === 'none' || v === 'client' || v === 'server') return v;
  throw new InvalidArgumentError(`must be "none", "server", or "client", not ${JSON.stringify(v)}`);
}

/** `--dry-run[=STRATEGY]`; a bare --dry-run is client, as kubectl reads it. */
export function addDryRun(cmd: Command): Command {
  return cmd.addOption(
    new Option('--dry-run [strategy]', 'client: check and print, write nothing; server: also every check of the table a write makes').preset('client').argParser(parseDryRun),
  );
}

/** What kubectl appends to an outcome line. */
export function dryRunSuffix(d: DryRun | undefined): string {
  return d === 'client' ? ' (dry run)' : d === 'server' ? ' (server dry run)' : '';
}

/** Equal as JSON: key order and undefined fields do not count. */
export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
}

/** What the user wrote: the server-set metadata left out, the namespace defaulted. */
function userFields(o: StoredSpec): unknown {
  const { uid: _u, creationTimestamp: _c, generation: _g, resourceVersion: _r, ...metadata } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { ...metadata, namespace: metadata.namespace ?? 'default' }, spec: o.spec };
}

/** The outcome applying `obj` over the stored `old` would have, as the store decides it. */
export function plannedOutcome(old: StoredSpec | undefined, obj: StoredSpec): ApplyOutcome {
  if (!old) return 'created';
  return sameJson(userFields(old), userFields(obj)) ? 'unchanged' : 'configured';
}
