// PrometheusMetric objects read through the real metrics access from a real Prometheus that
// scrapes the local workload model: AMP and CloudWatch's PromQL endpoint behind a local proxy
// that checks SigV4 as AWS does, a plain server behind a bearer token from a local Secrets
// Manager. What each answer shape becomes, what a bad signature is told, and that a query is
// asked once per period however many autoscalers and environments read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrometheusMetric, PrometheusMetricSpec } from '../../lib/api/prometheus-types.js';
import { parseQuantity, toFloat } from '../../lib/hpa/api/quantity.js';
import { startLocalSecrets, type LocalSecrets } from '../../lib/local/prometheus/secrets-manager.js';
import { startQueryProxy, type QueryProxy } from '../../lib/local/prometheus/sigv4-proxy.js';
import { createMetricsAccess, type CountingMetricsAccess } from '../../lib/metrics/metrics-access.js';
import type { MetricAnswer, MetricQuery } from '../../lib/sync/ports/metrics-access.js';
import type { SharedMetricAnswer } from '../../lib/sync/ports/autoscaler-store.js';
import { PROMETHEUS_BIN, RATE_QUERY, sayIfSkipped, startPrometheusFixture, type PrometheusFixture } from '../support/prometheus.js';

sayIfSkipped('prometheus.test.ts');

const WS = 'ws-12345678-abcd-4ef0-9abc-123456789012';
const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:prometheus-token-AbCdEf';
const TOKEN = 'sesame';
const RPS = 12;

let fx: PrometheusFixture;
let amp: QueryProxy;
let cw: QueryProxy;
let bearer: QueryProxy;
let secrets: LocalSecrets;
const extra: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!PROMETHEUS_BIN) return;
  fx = await startPrometheusFixture(RPS);
  const upstream = fx.prometheus.url;
  [amp, cw, bearer, secrets] = await Promise.all([
    startQueryProxy({ upstream, workspaces: [WS], auth: { sigv4: { service: 'aps', region: REGION, credentials: CREDENTIALS } } }),
    startQueryProxy({ upstream, auth: { sigv4: { service: 'monitoring', region: REGION, credentials: CREDENTIALS } } }),
    startQueryProxy({ upstream, auth: { bearerToken: TOKEN } }),
    startLocalSecrets({ [SECRET]: `${TOKEN}\n` }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([amp?.close(), cw?.close(), bearer?.close(), secrets?.close(), ...extra.map((f) => f())]);
  await fx?.stop();
});

function access(over: { amp?: string; cloudWatch?: string; credentials?: typeof CREDENTIALS } = {}): CountingMetricsAccess {
  return createMetricsAccess({
    clusterMetrics: () => {
      throw new Error('no cluster metrics here');
    },
    cloudWatch: { clientFor: () => ({}) as never, defaultRegion: REGION },
    prometheus: {
      credentials: over.credentials ?? CREDENTIALS,
      endpoints: { amp: over.amp ?? amp.url, cloudWatch: over.cloudWatch ?? cw.url },
      secretsEndpoint: secrets.url,
      retry: { maxAttempts: 1 },
      // The local servers are loopback: reached only because their origins are granted by name.
      access: { demo: { prometheusUrls: [fx.prometheus.url, bearer.url], bearerTokenSecrets: [SECRET] } },
    },
  });
}

// A 5 s period: evaluated at most 5 s back, where the fixture's seconds-old series has its rate.
function pm(spec: Partial<PrometheusMetricSpec>, name = 'requests', namespace = 'demo'): PrometheusMetric {
  return { apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name, namespace }, spec: { query: RATE_QUERY, periodSeconds: 5, ...spec } as PrometheusMetricSpec };
}

const q = (source: PrometheusMetric): MetricQuery => ({ type: 'Prometheus', cluster: 'prod', namespace: source.metadata.namespace!, source });

async function read(m: CountingMetricsAccess, ...objects: PrometheusMetric[]): Promise<MetricAnswer[]> {
  return m.fetchAll(objects.map(q), new Date());
}

/** The answer's samples summed, as the replica calculator sums External series. */
const total = (a: MetricAnswer) => (a.result.value as { value: string }[]).reduce((s, x) => s + toFloat(parseQuantity(x.value)), 0);

describe.skipIf(!PROMETHEUS_BIN)('PromQL from a real Prometheus', () => {
  it.each([
    ['AMP (SigV4 aps)', { amp: { workspaceId: WS } }],
    ['CloudWatch PromQL (SigV4 monitoring)', { cloudWatch: {} }],
  ] as const)('%s: the summed vector is the request rate the pods serve', async (_what, endpoint) => {
    const m = access();
    const [a] = await read(m, pm(endpoint));
    expect(a.result.error).toBeUndefined();
    expect(total(a)).toBeGreaterThan(RPS * 0.85);
    expect(total(a)).toBeLessThan(RPS * 1.15);
  });

  it('a server behind a bearer token: the token comes from Secrets Manager, read once', async () => {
    const m = access();
    const server = { server: { url: bearer.url, bearerTokenSecretArn: SECRET } };
    const before = secrets.reads;
    const [a, b] = await read(m, pm(server), pm({ ...server, query: `${RATE_QUERY} * 2` }, 'double'));
    expect(total(a)).toBeGreaterThan(RPS * 0.85);
    expect(total(b)).toBeCloseTo(2 * total(a), 0);
    expect(secrets.reads - before).toBe(1);
    // Without the token the server refuses: said, not a value.
    const [c] = await read(access(), pm({ server: { url: bearer.url } }));
    expect(c.result.error).toMatch(/^PrometheusMetric demo\/requests \(Prometheus http:\/\/127\.0\.0\.1:\d+\): query failed: HTTP 401 from http:\/\/127\.0\.0\.1:\d+: an answer that is not a Prometheus API answer \(its text is not shown\)$/);
  });

  it('AMP gets the query-samples caps (safe defaults) and stats=all, and the samples processed are counted', async () => {
    const m = access();
    await read(m, pm({ amp: { workspaceId: WS, samplesProcessedErrorThreshold: 5_000_000 } }));
    const sent = amp.counts.lastForwarded!;
    expect(sent.get('max_samples_processed_warning_threshold')).toBe('1000000');
    expect(sent.get('max_samples_processed_error_threshold')).toBe('5000000');
    expect(sent.get('stats')).toBe('all');
    const stats = m.stats().prometheus;
    expect(stats.ampQueries).toBe(1);
    expect(stats.ampSamplesProcessed).toBeGreaterThan(0);
    expect(stats.samplesProcessed).toBe(stats.ampSamplesProcessed);
  });

  it.each([
    ['NaN', 'vector(0/0)', /series 1 of 1 is NaN, which is no metric value$/],
    ['+Inf', 'vector(1/0)', /series 1 of 1 is \+Inf, which is no metric value$/],
    ['-Inf', 'vector(-1/0)', /series 1 of 1 is -Inf, which is no metric value$/],
    ['a value no quantity holds', 'vector(1e20)', /series 1 of 1 is 100000000000000000000, beyond what a Kubernetes quantity holds/],
    ['an empty vector', 'sum(http_requests_total{namespace="nowhere"})', /the query returned an empty vector at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: no series matched$/],
    ['a matrix', 'http_requests_total{namespace="demo"}[1m]', /the query returned a range vector \(matrix\), not an instant vector/],
    ['a scalar', 'scalar(sum(http_requests_total))', /the query returned a scalar, not an instant vector/],
    ['a string', '"text"', /the query returned a string, not an instant vector/],
    ['bad PromQL', 'sum(', /query failed: HTTP 400 from http:\/\/127\.0\.0\.1:\d+: error bad_data \(its text is not shown\)$/],
  ])('%s is a metric failure that says so', async (_what, query, error) => {
    const [a] = await read(access(), pm({ server: { url: fx.prometheus.url }, query }));
    expect(a.result.value).toBeUndefined();
    expect(a.result.error).toMatch(/^PrometheusMetric demo\/requests \(Prometheus http:\/\/127\.0\.0\.1:\d+\): /);
    expect(a.result.error).toMatch(error);
  });

  it('a negative value is used as is, with a note', async () => {
    const [a] = await read(access(), pm({ server: { url: fx.prometheus.url }, query: 'vector(-2.5)' }));
    expect(a.result.value).toEqual([{ value: '-2500m', timestamp: expect.any(String) }]);
    expect(a.type === 'Prometheus' && a.messages).toEqual([expect.stringMatching(/^NegativeValue: series 1 of 1 is -2.5, used as is$/)]);
  });
});

describe.skipIf(!PROMETHEUS_BIN)('SigV4 refused as AWS refuses it', () => {
  it.each([
    ['a wrong region', { amp: { workspaceId: WS, region: 'eu-west-1' } }, {}, "HTTP 403: Credential should be scoped to a valid region."],
    ['an unknown key', { amp: { workspaceId: WS } }, { credentials: { accessKeyId: 'AKIDOTHER', secretAccessKey: 'x' } }, 'HTTP 403: The security token included in the request is invalid.'],
    ['a wrong secret', { amp: { workspaceId: WS } }, { credentials: { ...CREDENTIALS, secretAccessKey: 'wrong' } }, 'HTTP 403: The request signature we calculated does not match the signature you provided.'],
    ['an AMP query sent to the monitoring service', { amp: { workspaceId: WS } }, { amp: 'monitoring' }, "HTTP 403: Credential should be scoped to correct service: 'monitoring'."],
    ['an unknown workspace', { amp: { workspaceId: 'ws-00000000-abcd-4ef0-9abc-123456789012' } }, {}, 'HTTP 404: Workspace not found: ws-00000000-abcd-4ef0-9abc-123456789012'],
  ] as const)('%s', async (_what, spec, over, error) => {
    let ampUrl: string | undefined;
    if ('amp' in over && over.amp === 'monitoring') {
      const wrong = await startQueryProxy({ upstream: fx.prometheus.url, workspaces: [WS], auth: { sigv4: { service: 'monitoring', region: REGION, credentials: CREDENTIALS } } });
      extra.push(() => wrong.close());
      ampUrl = wrong.url;
    }
    const m = access({ ...('credentials' in over ? { credentials: over.credentials } : {}), ...(ampUrl ? { amp: ampUrl } : {}) });
    const [a] = await read(m, pm(spec));
    expect(a.result.error).toMatch(new RegExp(`: query failed: ${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('a clock more than 5 minutes off', async () => {
    const skewed = await startQueryProxy({ upstream: fx.prometheus.url, workspaces: [WS], auth: { sigv4: { service: 'aps', region: REGION, credentials: CREDENTIALS }, now: () => Date.now() + 6 * 60_000 } });
    extra.push(() => skewed.close());
    const [a] = await read(access({ amp: skewed.url }), pm({ amp: { workspaceId: WS } }));
    expect(a.result.error).toMatch(/query failed: HTTP 403: Signature expired: \d{8}T\d{6}Z is now earlier than the allowed skew of 5 minutes/);
    // Within the skew it passes.
    const near = await startQueryProxy({ upstream: fx.prometheus.url, workspaces: [WS], auth: { sigv4: { service: 'aps', region: REGION, credentials: CREDENTIALS }, now: () => Date.now() + 4 * 60_000 } });
    extra.push(() => near.close());
    const [b] = await read(access({ amp: near.url }), pm({ amp: { workspaceId: WS } }));
    expect(b.result.error).toBeUndefined();
  });
});

describe.skipIf(!PROMETHEUS_BIN)('once per period, across autoscalers and environments', () => {
  it('identical objects of two namespaces are one query; the same period again is none; the shared answer serves another environment', async () => {
    const m = access();
    const spec = { amp: { workspaceId: WS }, query: `${RATE_QUERY} + 0` };
    const before = amp.counts.received;
    // Both reads in the same 5 s period.
    const now = new Date(Math.floor(Date.now() / 5_000) * 5_000);
    const answers = await m.fetchAll([q(pm(spec, 'a', 'one')), q(pm(spec, 'b', 'two'))], now);
    expect(amp.counts.received - before).toBe(1);
    expect(total(answers[0])).toBe(total(answers[1]));
    await m.fetchAll([q(pm(spec, 'a', 'one'))], new Date(now.getTime() + 1_000));
    expect(amp.counts.received - before).toBe(1);
    expect(m.stats().prometheus.cacheHits).toBe(1);

    // Another environment, with the shard's kept answers: no query either.
    const shared = new Map<string, SharedMetricAnswer>();
    for (const a of answers) if (a.type === 'Prometheus' && a.shared) shared.set(a.shared.key, a.shared.answer);
    expect(shared.size).toBe(1);
    const other = access();
    const [kept] = await other.fetchAll([q(pm(spec, 'a', 'one'))], now, undefined, { shared });
    expect(amp.counts.received - before).toBe(1);
    expect(other.stats().prometheus.sharedHits).toBe(1);
    expect(total(kept)).toBe(total(answers[0]));
  });
});
