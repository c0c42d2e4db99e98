// Bench-only: where a process's CPU time goes, from V8's sampling profiler (node:inspector):
// self time summed by source file, and the top functions.
import { Session } from 'node:inspector/promises';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by file (repository-relative, or the package), largest first. */
  byFile: { file: string; ms: number; share: number }[];
  /** Self time by function, with the caller it spent most of it under. */
  byFunction: { fn: string; ms: number; share: number; caller: string }[];
}

function fileOf(url: string): string {
  if (!url) return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return `npm:${pkg[1]}`;
  const repo = /\/work\/[^/]+\/(.*)$/.exec(path);
  return repo ? repo[1] : path.startsWith('node:') ? path : path.split('/').slice(-2).join('/');
}

export interface RawProfile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** V8's sampling profiler on this process; the stop gives its profile as DevTools reads it (.cpuprofile). */
export async function startRawProfile(): Promise<() => Promise<RawProfile>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: RawProfile };
    session.disconnect();
    return profile;
  };
}

export async function startProfile(): Promise<() => Promise<ProfileSummary>> {
  const stop = await startRawProfile();
  return async () => {
    const profile = await stop();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parentOf = new Map<number, Node>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n);
    const label = (n: Node | undefined) => (n ? `${n.callFrame.functionName || '(anonymous)'} (${fileOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1})` : '(root)');
    const callers = new Map<string, Map<string, number>>();
    // The profiler's own work (node:inspector and what it calls) is not the program's.
    const profiler = new Set<number>();
    const mark = (n: Node, inside: boolean) => {
      const here = inside || n.callFrame.url.startsWith('node:inspector');
      if (here) profiler.add(n.id);
      for (const c of n.children ?? []) mark(byId.get(c)!, here);
    };
    mark(profile.nodes[0], false);
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
    const files = new Map<string, number>();
    const fns = new Map<string, number>();
    let totalMs = 0;
    for (const [id, ms] of self) {
      if (profiler.has(id)) continue;
      const n = byId.get(id)!;
      const name = n.callFrame.functionName || '(anonymous)';
      if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
        if (name !== '(idle)') {
          files.set(name, (files.get(name) ?? 0) + ms);
          totalMs += ms;
        }
        continue;
      }
      totalMs += ms;
      const file = fileOf(n.callFrame.url);
      files.set(file, (files.get(file) ?? 0) + ms);
      const key = label(n);
      fns.set(key, (fns.get(key) ?? 0) + ms);
      const by = callers.get(key) ?? new Map<string, number>();
      const caller = label(parentOf.get(id));
      by.set(caller, (by.get(caller) ?? 0) + ms);
      callers.set(key, by);
    }
    const rank = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, ms]) => ({ k, ms, share: ms / totalMs }));
    return {
      totalMs,
      byFile: rank(files).map(({ k, ms, share }) => ({ file: k, ms, share })),
      byFunction: rank(fns).map(({ k, ms, share }) => ({ fn: k, ms, share, caller: rank(callers.get(k)!)[0]?.k ?? '' })),
    };
  };
}
