// The functions' environment: defaults, and a clear error naming the variable and field.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { isSyncPeriod, loadFunctionConfig } from '../../lib/sync/config.js';

const base = {
  AWS_REGION: 'eu-west-1',
  SHPA_TABLE: 'shpa',
  SHPA_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/work',
  SHPA_CLUSTERS: '[{"name":"prod"},{"name":"batch","region":"us-east-1","shards":4,"namespaces":["jobs","web"]}]',
};

describe('loadFunctionConfig', () => {
  it('reads the answer cap of metric endpoints, absent by default (sized to the worker memory then)', () => {
    expect(loadFunctionConfig({ ...base, SHPA_MAX_ANSWER_BYTES: '2097152' }).maxAnswerBytes).toBe(2_097_152);
    expect(loadFunctionConfig(base).maxAnswerBytes).toBeUndefined();
  });

  it('reads the clusters and applies the defaults', () => {
    const c = loadFunctionConfig(base);
    expect(c.clusters).toEqual([
      { name: 'prod', region: 'eu-west-1', shards: 1 },
      { name: 'batch', region: 'us-east-1', shards: 4, namespaces: ['jobs', 'web'] },
    ]);
    expect(c).toMatchObject({ tableName: 'shpa', region: 'eu-west-1', syncPeriodSeconds: 15, autoscalerMetrics: false });
    expect(c.options).toMatchObject({ dryRun: false, concurrency: 32, settings: DEFAULT_CONTROLLER_SETTINGS, sources: { table: true, cluster: true }, decisionLogSeconds: 300, metricAccess: {} });
    const access = { web: { roles: ['arn:aws:iam::123456789012:role/m'], metricNamespaces: ['AWS/SQS'] } };
    expect(loadFunctionConfig({ ...base, SHPA_METRIC_ACCESS: JSON.stringify(access) }).options.metricAccess).toEqual(access);
  });

  it('overrides controller settings field by field', () => {
    const c = loadFunctionConfig({ ...base, SHPA_DRY_RUN: 'TRUE', SHPA_CONTROLLER_SETTINGS: '{"tolerance":{"scaleUp":0.05},"downscaleStabilizationWindowSeconds":600}' });
    expect(c.options.dryRun).toBe(true);
    expect(c.options.settings).toMatchObject({ tolerance: { scaleUp: 0.05, scaleDown: 0.1 }, downscaleStabilizationWindowSeconds: 600 });
    expect(DEFAULT_CONTROLLER_SETTINGS.tolerance.scaleUp).toBe(0.1);
  });

  it('the stream and events functions need no table', () => {
    const { SHPA_TABLE: _t, ...noTable } = base;
    expect(loadFunctionConfig(noTable, { table: false }).tableName).toBe('');
  });

  it.each([
    [{ AWS_REGION: undefined }, /^AWS_REGION is not set/],
    [{ SHPA_TABLE: '' }, /^SHPA_TABLE is not set/],
    [{ SHPA_QUEUE_URL: '' }, /^SHPA_QUEUE_URL is not set/],
    [{ SHPA_CLUSTERS: '' }, /^SHPA_CLUSTERS is not set/],
    [{ SHPA_CLUSTERS: '{"name":"a"}' }, /^SHPA_CLUSTERS: must be a JSON list/],
    [{ SHPA_CLUSTERS: '[{"name":"a"},{"name":"a"}]' }, /^SHPA_CLUSTERS\[1\]\.name: duplicate cluster a/],
    [{ SHPA_CLUSTERS: '[{"name":"a","region":"mars"}]' }, /^SHPA_CLUSTERS\[0\]\.region: invalid region "mars"/],
    [{ SHPA_CLUSTERS: '[{"name":"a","role":"x"}]' }, /^SHPA_CLUSTERS\[0\]: unknown field role/],
    [{ SHPA_CLUSTERS: '[{"name":"a","shards":3}]' }, /^SHPA_CLUSTERS\[0\]\.shards: must be 1, 2, 4, 8 or 16, got 3/],
    [{ SHPA_CLUSTERS: '[{"name":"a","namespaces":[]}]' }, /^SHPA_CLUSTERS\[0\]\.namespaces: must be a non-empty list/],
    [{ SHPA_CLUSTERS: '[{"name":"a","namespaces":["Kube_System"]}]' }, /^SHPA_CLUSTERS\[0\]\.namespaces\[0\]: not a namespace name/],
    [{ SHPA_SYNC_PERIOD_SECONDS: '7' }, /must divide 60 \(and be at least 5\) or be a multiple of 60 up to 900, got 7/],
    [{ SHPA_SYNC_PERIOD_SECONDS: '1000' }, /^SHPA_SYNC_PERIOD_SECONDS: must be an integer from 1 to 900/],
    [{ SHPA_CONCURRENCY: '1.5' }, /^SHPA_CONCURRENCY: must be an integer from 1 to 512, got "1\.5"/],
    [{ SHPA_DRY_RUN: 'yes' }, /^SHPA_DRY_RUN: must be true or false/],
    [{ SHPA_AUTOSCALER_SOURCES: 'table,crd' }, /^SHPA_AUTOSCALER_SOURCES: unknown source "crd"/],
    [{ SHPA_CONTROLLER_SETTINGS: '{"tolerance":{"up":1}}' }, /^SHPA_CONTROLLER_SETTINGS\.tolerance\.up: unknown field/],
    [{ SHPA_CONTROLLER_SETTINGS: '{"scaleUpLimitFactor":-1}' }, /^SHPA_CONTROLLER_SETTINGS\.scaleUpLimitFactor: must be a number ≥ 0/],
    [{ SHPA_METRIC_ACCESS: '{"web":' }, /^SHPA_METRIC_ACCESS: not JSON/],
    [{ SHPA_METRIC_ACCESS: '{"web":{"role":[]}}' }, /^SHPA_METRIC_ACCESS: web: unknown field "role" \(roles, metricNamespaces, prometheusWorkspaces, prometheusUrls, bearerTokenSecrets, sqsQueues\)/],
    [{ SHPA_METRIC_ACCESS: '{"web":{"roles":"arn"}}' }, /^SHPA_METRIC_ACCESS: web\.roles: must be a list of names/],
    [{ SHPA_METRIC_ACCESS: '{"web":{"prometheusUrls":["http://p:9090/x"]}}' }, /^SHPA_METRIC_ACCESS: web\.prometheusUrls: "http:\/\/p:9090\/x" must be an origin only/],
    [{ SHPA_MAX_ANSWER_BYTES: '100' }, /^SHPA_MAX_ANSWER_BYTES: must be an integer from 1024 to 67108864/],
  ])('%j is refused with %s', (env, message) => {
    expect(() => loadFunctionConfig({ ...base, ...env })).toThrow(message);
  });
});

it('sync periods: divisors of 60 from 5, or multiples of 60 up to 900', () => {
  expect([5, 6, 10, 12, 15, 20, 30, 60, 120, 300, 900].every(isSyncPeriod)).toBe(true);
  expect([1, 4, 7, 45, 90, 901, 1.5].some(isSyncPeriod)).toBe(false);
});
