// Wall time of the sync handler per demo tick: the real handler on dynalite, the local
// Kubernetes API server and the local CloudWatch endpoint, three autoscalers, unpaced.
// Target: ≤ 40 ms per sync on average, so the default `npm start` (a day at one sync a
// virtual minute: 1,441 syncs) keeps up with its 60 s pace on a 2-core machine.
import { Writable } from 'node:stream';
import { runDemo } from '../lib/demo/run.js';
import { EXAMPLES_DIR } from '../lib/demo/scenario.js';
import { demoTrace } from '../lib/demo/demo-trace.js';

const TARGET_MS = 40;
const sink = new Writable({ write: (_c, _e, done) => done() });
const r = await runDemo({
  trace: demoTrace(new Date(Date.UTC(2026, 2, 3)), 60),
  traceName: 'bench day',
  syncPeriodSeconds: 60,
  speed: Infinity,
  examplesDir: EXAMPLES_DIR,
  out: sink,
  tty: false,
  color: false,
});
const ms = [...r.handlerMs].sort((a, b) => a - b);
const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))];
const mean = ms.reduce((s, x) => s + x, 0) / ms.length;
console.log(`demo day: ${r.ticks} syncs in ${(r.wallMs / 1000).toFixed(1)} s (setup included), ${r.errors.length} errors`);
console.log(`handler per sync: mean ${mean.toFixed(1)} ms, p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms`);
console.log(`${mean <= TARGET_MS ? 'OK' : 'SLOW'}: target ≤ ${TARGET_MS} ms mean (the day's ${r.ticks} syncs then fit in ${((r.ticks * TARGET_MS) / 1000).toFixed(0)} s)`);
if (r.errors.length > 0 || mean > TARGET_MS) process.exitCode = 1;
