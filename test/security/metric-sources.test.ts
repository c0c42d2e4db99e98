// An attacker who may create PrometheusMetric objects in one namespace aims the worker at what it
// should never reach, through the real sync (runShardCycle), the real store on dynalite and the
// real metrics access, against local servers: a listener posing as the metadata endpoint, host
// names a test resolver maps to metadata addresses, a redirecting server, a 300 MB answer, servers
// echoing secrets, a port-prefix neighbour, the Lambda runtime API. Every attempt is refused with
// a reason in our words, the servers that must not be reached receive nothing, and no text of
// theirs appears in the report, the decision line, the status and events written, or the table.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decisionLine } from '../../functions/log.js';
import type { MetricAccess } from '../../lib/api/metric-access.js';
import type { PrometheusMetric, PrometheusMetricSpec } from '../../lib/api/prometheus-types.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { PodInfo } from '../../lib/hpa/types.js';
import { createMetricsAccess } from '../../lib/metrics/metrics-access.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle } from '../../lib/sync/cycle.js';
import type { ClusterConfig, KubernetesAutoscaler } from '../../lib/sync/ports/cluster-access.js';
import type { AutoscalerReport } from '../../lib/sync/report.js';
import type { ResolveHost } from '../../lib/transport/bounded-fetch.js';
import { startDynalite, TEST_REGION, TEST_CREDENTIALS, type DynamoServer } from '../support/dynamo.js';
import { FakeCluster } from '../sync/fakes.js';
import { hugeAnswer, metadataPoser, otherTenantPrometheus, redirector, secretEcho, SECRETS, startAttacker, type Attacker } from './attackers.js';

const NS = 'attacker';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'us-east-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: false, cluster: true }, decisionLogSeconds: 300 };
const clock = { now: () => new Date() };

/** The cluster with PrometheusMetric objects listed beside the autoscalers, as the API server lists them. */
class Cluster extends FakeCluster {
  readonly prometheusObjects: PrometheusMetric[] = [];
  override listAutoscalerObjects(namespaces: string[] | undefined, signal?: AbortSignal) {
    return super.listAutoscalerObjects(namespaces, signal).then((r) => ({ ...r, prometheusMetrics: structuredClone(this.prometheusObjects) }));
  }
}

/** The test's resolver: names an attacker controls, mapped to what they would point at. */
function resolver(map: Record<string, string[][]>): ResolveHost & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (host: string) => {
    asked.push(host);
    const answers = map[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    // Each lookup the next answer (a rebinding resolver), the last one repeated.
    const next = answers[Math.min(asked.filter((h) => h === host).length - 1, answers.length - 1)];
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { asked });
}

let db: DynamoServer;
let store: DynamoStore;
let cluster: Cluster;
let table = 0;
const servers: Attacker[] = [];

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `attack-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new Cluster();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(start: Promise<Attacker>): Promise<Attacker> {
  const s = await start;
  servers.push(s);
  return s;
}

/** The autoscaler (a cluster object) reading the attacker's PrometheusMetric, and the pods it scales. */
function plant(server: PrometheusMetricSpec['server']): void {
  cluster.prometheusObjects.push({ apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name: 'loot', namespace: NS }, spec: { query: 'sum(up)', server } as PrometheusMetricSpec });
  const o: KubernetesAutoscaler = {
    metadata: { name: 'web', namespace: NS, uid: 'uid-web', generation: 1, creationTimestamp: new Date(Date.now() - 3_600_000).toISOString() },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [{ type: 'External', external: { metric: { name: 'loot' }, target: { type: 'AverageValue', averageValue: '1' } } }],
    },
  };
  cluster.objects.push(o);
  cluster.addTarget(NS, 'web', 2);
  const long = new Date(Date.now() - 3_600_000).toISOString();
  const pods: PodInfo[] = [0, 1].map((i) => ({ name: `web-${i}`, labels: {}, phase: 'Running', ready: 'True', readyTransitionTime: long, startTime: long, containers: [{ name: 'app', requests: { cpu: '1' } }] }));
  cluster.pods.set(NS, pods);
}

/** One cycle; the autoscaler's report and every text we wrote or logged about it. */
async function attack(access: MetricAccess, resolve?: ResolveHost, maxAnswerBytes?: number): Promise<{ report: AutoscalerReport; written: string }> {
  const metrics = createMetricsAccess({
    clusterMetrics: () => cluster,
    cloudWatch: { clientFor: () => ({}) as never, defaultRegion: 'us-east-1' },
    prometheus: { access, retry: { maxAttempts: 3, baseDelayMs: 1 }, ...(resolve ? { resolve } : {}), ...(maxAnswerBytes ? { maxAnswerBytes } : {}) },
    clock,
  });
  const now = clock.now();
  const r = await runShardCycle(
    { store, cluster, metrics, clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: now }, deadline: new Date(now.getTime() + 8_000), periodSeconds: 15, options: { ...options, metricAccess: access } },
  );
  const [report] = r.autoscalers;
  const items = await store.client.send(new ScanCommand({ TableName: store.tableName }));
  const written = JSON.stringify({
    report,
    line: decisionLine(report, { shard: 'prod', startedAt: now.toISOString(), trigger: 'tick' }),
    status: cluster.statusWrites,
    events: cluster.events,
    table: items.Items,
  });
  return { report, written };
}

/** Refused for `reason`, not scaled on it, and nothing the servers wrote anywhere. */
function expectRefused({ report, written }: { report: AutoscalerReport; written: string }, reason: RegExp): void {
  expect(report.outcome).not.toBe('scaled');
  expect(written).toMatch(reason);
  // The reason reaches the status's conditions and a Warning event, not only the log.
  expect(JSON.stringify(cluster.statusWrites)).toMatch(reason);
  expect(JSON.stringify(cluster.events.map((e) => e.entry.message))).toMatch(reason);
  for (const s of SECRETS) expect(written).not.toContain(s);
}

describe('the metadata endpoints, whatever is granted', () => {
  it.each([
    ['IPv4', 'metadata.attacker.test', ['169.254.169.254'], /refused http:\/\/metadata\.attacker\.test:\d+: 169\.254\.169\.254, the EC2 instance metadata endpoint \(metadata\.attacker\.test resolves to it\)/],
    ['IPv6', 'metadata6.attacker.test', ['fd00:ec2::254'], /fd00:ec2::254, the EC2 instance metadata endpoint \(metadata6\.attacker\.test resolves to it\)/],
    ['ECS credentials', 'ecs.attacker.test', ['169.254.170.2'], /169\.254\.170\.2, the ECS task credentials endpoint/],
    ['EKS Pod Identity', 'pod-identity.attacker.test', ['169.254.170.23'], /169\.254\.170\.23, the EKS Pod Identity credentials endpoint/],
    ['EKS Pod Identity over IPv6', 'pod-identity6.attacker.test', ['fd00:ec2::23'], /fd00:ec2::23, the EKS Pod Identity credentials endpoint/],
    ['IPv4-mapped IPv6', 'mapped.attacker.test', ['::ffff:169.254.169.254'], /::ffff:169\.254\.169\.254, the EC2 instance metadata endpoint/],
    ['one bad address among good ones', 'both.attacker.test', ['127.0.0.1', '169.254.169.254'], /169\.254\.169\.254, the EC2 instance metadata endpoint \(both\.attacker\.test resolves to it\)/],
    ['link-local', 'link.attacker.test', ['169.254.7.7'], /169\.254\.7\.7, a link-local, unspecified or multicast address/],
  ])('a host name resolving to it (%s) is refused before any connection, even granted by name', async (_what, host, addresses, reason) => {
    const poser = await serve(metadataPoser());
    const url = `http://${host}:${poser.port}`;
    plant({ url });
    const resolve = resolver({ [host]: [addresses] });
    expectRefused(await attack({ [NS]: { prometheusUrls: [url] } }, resolve), reason);
    expect(resolve.asked).toEqual([host]);
    expect(poser.requests).toEqual([]);
  });

  it('a resolver that rebinds after the check: the socket goes to the address checked, once', async () => {
    const good = await serve(otherTenantPrometheus());
    const url = `http://rebind.attacker.test:${good.port}`;
    plant({ url });
    // First answer loopback (granted by name), every later one the metadata address.
    const resolve = resolver({ 'rebind.attacker.test': [['127.0.0.1'], ['169.254.169.254']] });
    const { report } = await attack({ [NS]: { prometheusUrls: [url] } }, resolve);
    // Asked once, connected to 127.0.0.1: the second answer never used.
    expect(resolve.asked).toEqual(['rebind.attacker.test']);
    expect(good.requests).toHaveLength(1);
    expect(report.errors.map((e) => e.message).join()).not.toMatch(/169\.254/);
  });
});

describe('loopback and private addresses: only an origin granted by name', () => {
  it('a listener on loopback is refused under "*", the grant that opts out for public servers', async () => {
    const poser = await serve(metadataPoser());
    plant({ url: poser.url });
    expectRefused(await attack({ [NS]: { prometheusUrls: ['*'] } }), /refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback or private address, which only an origin granted by name in param metricAccess may reach/);
    expect(poser.requests).toEqual([]);
  });

  it('a host name resolving to loopback is refused under "*" too', async () => {
    const poser = await serve(metadataPoser());
    plant({ url: `http://internal.attacker.test:${poser.port}` });
    expectRefused(await attack({ [NS]: { prometheusUrls: ['*'] } }, resolver({ 'internal.attacker.test': [['10.0.0.1']] })), /10\.0\.0\.1 is a loopback or private address \(internal\.attacker\.test resolves to it\)/);
    expect(poser.requests).toEqual([]);
  });

  it('with no grant at all, a server is refused before anything is resolved (fail closed)', async () => {
    const poser = await serve(metadataPoser());
    plant({ url: poser.url });
    const resolve = resolver({});
    expectRefused(await attack({}, resolve), /origin http:\/\/127\.0\.0\.1:\d+ is not a Prometheus server namespace attacker may query \(param metricAccess, prometheusUrls: none\)/);
    expect(poser.requests).toEqual([]);
  });

  it('a port-prefix neighbour of a granted origin is another origin: refused', async () => {
    // The neighbour's port starts with the granted one's digits (5123 → 51237), as a string prefix would admit.
    const neighbour = await serve(otherTenantPrometheus());
    const granted = `http://127.0.0.1:${Math.floor(neighbour.port / 10)}`;
    expect(neighbour.url.startsWith(granted)).toBe(true);
    plant({ url: neighbour.url });
    expectRefused(await attack({ [NS]: { prometheusUrls: [granted] } }), new RegExp(`origin http://127\\.0\\.0\\.1:${neighbour.port} is not a Prometheus server namespace attacker may query \\(param metricAccess, prometheusUrls: ${granted.replace(/\./g, '\\.')}\\)`));
    expect(neighbour.requests).toEqual([]);
  });

  it('the Lambda runtime API is never reached, even granted by name', async () => {
    const runtime = await serve(metadataPoser());
    const before = process.env.AWS_LAMBDA_RUNTIME_API;
    process.env.AWS_LAMBDA_RUNTIME_API = `127.0.0.1:${runtime.port}`;
    try {
      plant({ url: runtime.url });
      expectRefused(await attack({ [NS]: { prometheusUrls: [runtime.url] } }), /127\.0\.0\.1:\d+ is the Lambda runtime API/);
    } finally {
      if (before === undefined) delete process.env.AWS_LAMBDA_RUNTIME_API;
      else process.env.AWS_LAMBDA_RUNTIME_API = before;
    }
    expect(runtime.requests).toEqual([]);
  });

  it('a URL the spec check refuses (an empty ? turning /api/v1/query into a query string) sends nothing', async () => {
    const admin = await serve(otherTenantPrometheus());
    plant({ url: `${admin.url}/internal/admin/users?` });
    expectRefused(await attack({ [NS]: { prometheusUrls: [admin.url] } }), /must not have a query or fragment, not even an empty \? or #/);
    expect(admin.requests).toEqual([]);
  });
});

describe('what a granted server answers', () => {
  it('a redirect is refused, not followed: the other tenant’s server receives nothing', async () => {
    const other = await serve(otherTenantPrometheus());
    const hop = await serve(redirector(() => other.url));
    plant({ url: hop.url });
    expectRefused(await attack({ [NS]: { prometheusUrls: [hop.url, other.url] } }), /redirect refused: http:\/\/127\.0\.0\.1:\d+ answered HTTP 302 pointing elsewhere/);
    // Refused on our side: not asked again (retries are for throttling, 5xx and lost connections).
    expect(hop.requests).toHaveLength(1);
    expect(other.requests).toEqual([]);
  });

  it.each([
    ['declared up front (Content-Length)', true],
    ['streamed (chunked)', false],
  ])('a 300 MB answer %s is dropped past the cap, read no further', async (_what, declare) => {
    const huge = await serve(hugeAnswer(declare));
    plant({ url: huge.url });
    const rss = process.memoryUsage().rss;
    expectRefused(await attack({ [NS]: { prometheusUrls: [huge.url] } }, undefined, 1024 * 1024), /answer too large from http:\/\/127\.0\.0\.1:\d+ \(over 1048576 bytes\)/);
    // The server stopped writing long before 300 MB: the socket was closed on it.
    expect(huge.sent).toBeLessThan(64 * 1024 * 1024);
    expect(huge.requests).toHaveLength(1);
    expect(process.memoryUsage().rss - rss).toBeLessThan(128 * 1024 * 1024);
  });

  it.each([
    ['an error envelope with a message and an unknown errorType', 'error', /HTTP 500 from http:\/\/127\.0\.0\.1:\d+: error unknown \(its text is not shown\)/],
    ['a body that is no Prometheus answer', 'plain', /HTTP 200 from http:\/\/127\.0\.0\.1:\d+: an answer that is not a Prometheus API answer \(its text is not shown\)/],
    ['labels of a series that is no value', 'labels', /series 1 of 1 is NaN, which is no metric value/],
  ] as const)('a server echoing secrets (%s): refused in our words, nothing of it echoed', async (_what, shape, reason) => {
    const echo = await serve(secretEcho(shape));
    plant({ url: echo.url });
    expectRefused(await attack({ [NS]: { prometheusUrls: [echo.url] } }), reason);
    // A 5xx is retried (the cycle's attempts), a bad answer is not.
    expect(echo.requests).toHaveLength(shape === 'error' ? 3 : 1);
  });

  it('a server’s warnings are counted, not shown, on an answer that scales', async () => {
    const echo = await serve(secretEcho('warnings'));
    plant({ url: echo.url });
    const { report, written } = await attack({ [NS]: { prometheusUrls: [echo.url] } });
    expect(written).toMatch(/returned 1 warning\(s\) or info\(s\), not shown/);
    expect(report.errors).toEqual([]);
    for (const s of SECRETS) expect(written).not.toContain(s);
  });

  it('a server whose port is closed: said as a code, the origin named', async () => {
    const gone = await startAttacker(() => undefined);
    await gone.close();
    plant({ url: gone.url });
    expectRefused(await attack({ [NS]: { prometheusUrls: [gone.url] } }), /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });
});
