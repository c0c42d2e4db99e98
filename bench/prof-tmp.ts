import { startFleet } from './support/fleet.js';
import { startProfile } from './support/profile.js';
const fleet = await startFleet({ clusters: 1, namespacesPerCluster: 25, workloadsPerNamespace: 20, shardsPerCluster: 1, podsPerWorkload: 2, eks: true, jitter: 0.03 });
try {
  for (let i = 0; i < 3; i++) { const t = await fleet.tick(); console.log('tick', i, t.cycles.map((c) => [c.cpuMs.toFixed(0), c.wallMs.toFixed(0), c.autoscalers, c.scaled, c.errors]), JSON.stringify(t.counts.dynamo.calls), JSON.stringify(t.counts.k8s), t.errors.slice(0,2)); }
  await fleet.servers.setLoadFactor(2);
  const stop = await startProfile();
  const t0 = process.cpuUsage();
  const t = await fleet.tick();
  const cpu = process.cpuUsage(t0);
  const p = await stop();
  console.log('all change', t.cycles.map((c) => [c.cpuMs.toFixed(0), c.wallMs.toFixed(0), c.autoscalers, c.scaled, c.errors]), (cpu.user + cpu.system) / 1000, JSON.stringify(t.counts.dynamo.calls), JSON.stringify(t.counts.k8s), t.errors.slice(0,3));
  const t2 = await fleet.tick();
  console.log('after', t2.cycles.map((c) => [c.cpuMs.toFixed(0), c.wallMs.toFixed(0), c.autoscalers, c.scaled, c.errors]), JSON.stringify(t2.counts.dynamo.calls), JSON.stringify(t2.counts.k8s));
  console.log(p.byFile.slice(0, 45).map((f) => `${(f.share * 100).toFixed(1).padStart(5)} %  ${f.file}`).join('\n'));
  console.log(p.byFunction.slice(0, 45).map((f) => `${(f.share * 100).toFixed(1).padStart(5)} %  ${f.fn}  <- ${f.caller}`).join('\n'));
} finally { await fleet.stop(); }
