// PrometheusMetric documents: what validation refuses (field by field, as apply reports it), and
// what the deploy's metric allowlist refuses of valid ones.
import { describe, expect, it } from 'vitest';
import { parseMetricAccess, prometheusAccessProblem } from '../../lib/api/metric-access.js';
import type { PrometheusMetric } from '../../lib/api/prometheus-types.js';
import { validatePrometheusMetric } from '../../lib/api/prometheus-validation.js';
import { formatFieldError } from '../../lib/hpa/api/validation.js';

const WS = 'ws-12345678-abcd-4ef0-9abc-123456789012';
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:prom-AbCdEf';
const ROLE = 'arn:aws:iam::123456789012:role/metrics';

const doc = (spec: Record<string, unknown>, namespace = 'web'): PrometheusMetric =>
  ({ apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name: 'requests', namespace }, spec: { query: 'sum(up)', ...spec } }) as unknown as PrometheusMetric;

const errorsOf = (input: unknown): string[] => {
  const r = validatePrometheusMetric(input);
  return r.valid ? [] : r.errors.map(formatFieldError);
};

describe('validatePrometheusMetric', () => {
  it.each([
    ['AMP', { amp: { workspaceId: WS, region: 'eu-west-1', samplesProcessedWarningThreshold: 10, samplesProcessedErrorThreshold: 20 }, roleArn: ROLE }],
    ['CloudWatch PromQL', { cloudWatch: {} }],
    ['a server with a token', { server: { url: 'https://prometheus.monitoring:9090/prom', bearerTokenSecretArn: SECRET }, periodSeconds: 30 }],
  ])('accepts %s', (_what, spec) => {
    expect(errorsOf(doc(spec))).toEqual([]);
  });

  it.each([
    ['no endpoint', {}, 'spec: Required value: exactly one of amp, cloudWatch or server must be set'],
    ['two endpoints', { cloudWatch: {}, server: { url: 'http://p:9090' } }, 'spec: Forbidden: exactly one of amp, cloudWatch or server must be set, found cloudWatch, server'],
    ['no query', { query: undefined, cloudWatch: {} }, 'spec.query: Required value'],
    ['a blank query', { query: '  ', cloudWatch: {} }, 'spec.query: Required value: must not be blank'],
    ['a bad workspace id', { amp: { workspaceId: 'my-workspace' } }, 'spec.amp.workspaceId: Invalid value: "my-workspace": must be an AMP workspace id such as ws-12345678-abcd-4ef0-9abc-123456789012'],
    ['a warning cap above the error cap', { amp: { workspaceId: WS, samplesProcessedWarningThreshold: 20_000_000 } }, 'spec.amp.samplesProcessedWarningThreshold: Invalid value: 20000000: must not exceed samplesProcessedErrorThreshold (10000000)'],
    ['a cap of 0', { amp: { workspaceId: WS, samplesProcessedErrorThreshold: 0 } }, 'spec.amp.samplesProcessedErrorThreshold: Invalid value: 0: must be between 1 and 1000000000000'],
    ['a bad region', { cloudWatch: { region: 'Europe' } }, 'spec.cloudWatch.region: Invalid value: "Europe": must be an AWS region such as us-east-1'],
    ['a URL with credentials', { server: { url: 'http://u:p@prom:9090' } }, 'spec.server.url: Invalid value: "http://u:p@prom:9090": must not carry credentials (use bearerTokenSecretArn)'],
    ['a URL with a query', { server: { url: 'http://prom:9090/?x=1' } }, 'spec.server.url: Invalid value: "http://prom:9090/?x=1": must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)'],
    ['an empty query', { server: { url: 'http://prom:9090/internal/admin/users?' } }, 'spec.server.url: Invalid value: "http://prom:9090/internal/admin/users?": must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)'],
    ['an empty fragment', { server: { url: 'http://prom:9090/internal#' } }, 'spec.server.url: Invalid value: "http://prom:9090/internal#": must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)'],
    ['the EC2 metadata endpoint', { server: { url: 'http://169.254.169.254/latest' } }, 'spec.server.url: Invalid value: "http://169.254.169.254/latest": must not point at 169.254.169.254, the EC2 instance metadata endpoint'],
    ['the metadata endpoint as a number', { server: { url: 'http://2852039166' } }, 'spec.server.url: Invalid value: "http://2852039166": must not point at 169.254.169.254, the EC2 instance metadata endpoint'],
    ['the metadata endpoint over IPv6', { server: { url: 'http://[fd00:ec2::254]' } }, 'spec.server.url: Invalid value: "http://[fd00:ec2::254]": must not point at fd00:ec2::254, the EC2 instance metadata endpoint'],
    ['the ECS credentials endpoint', { server: { url: 'http://169.254.170.2/v2' } }, 'spec.server.url: Invalid value: "http://169.254.170.2/v2": must not point at 169.254.170.2, the ECS task credentials endpoint'],
    ['the EKS Pod Identity endpoint', { server: { url: 'http://169.254.170.23' } }, 'spec.server.url: Invalid value: "http://169.254.170.23": must not point at 169.254.170.23, the EKS Pod Identity credentials endpoint'],
    ['the EKS Pod Identity endpoint over IPv6', { server: { url: 'http://[fd00:ec2::23]' } }, 'spec.server.url: Invalid value: "http://[fd00:ec2::23]": must not point at fd00:ec2::23, the EKS Pod Identity credentials endpoint'],
    ['an IPv4-mapped metadata address', { server: { url: 'http://[::ffff:169.254.169.254]' } }, 'spec.server.url: Invalid value: "http://[::ffff:169.254.169.254]": must not point at ::ffff:a9fe:a9fe, the EC2 instance metadata endpoint'],
    ['a link-local IPv6 address', { server: { url: 'http://[fe80::1]:9090' } }, 'spec.server.url: Invalid value: "http://[fe80::1]:9090": must not point at fe80::1, a link-local, unspecified or multicast address'],
    ['another link-local address', { server: { url: 'http://169.254.1.1:9090' } }, 'spec.server.url: Invalid value: "http://169.254.1.1:9090": must not point at 169.254.1.1, a link-local, unspecified or multicast address'],
    ['a host in octal', { server: { url: 'http://0177.0.0.1:9090' } }, 'spec.server.url: Invalid value: "http://0177.0.0.1:9090": must write its host as 127.0.0.1 (the form a URL parser reads it as)'],
    ['a file URL', { server: { url: 'file:///etc/passwd' } }, 'spec.server.url: Invalid value: "file:///etc/passwd": must be an http or https URL'],
    ['a bad secret ARN', { server: { url: 'http://prom:9090', bearerTokenSecretArn: 'prom-token' } }, expect.stringMatching(/^spec\.server\.bearerTokenSecretArn: Invalid value: "prom-token": must be a Secrets Manager secret ARN/)],
    ['a role for a server', { server: { url: 'http://prom:9090' }, roleArn: ROLE }, 'spec.roleArn: Forbidden: applies to amp and cloudWatch (a server is not signed with AWS credentials)'],
    ['a period of 1 s', { cloudWatch: {}, periodSeconds: 1 }, 'spec.periodSeconds: Invalid value: 1: must be between 5 and 3600'],
    ['an unknown field', { cloudWatch: {}, step: '1m' }, 'spec.step: Unsupported value: null: unknown field "step"'],
  ])('refuses %s', (_what, spec, error) => {
    expect(errorsOf(doc(spec))).toEqual([error]);
  });
});

describe('the metric allowlist applies to PrometheusMetric objects', () => {
  const access = parseMetricAccess(
    JSON.stringify({
      web: { roles: [ROLE], prometheusWorkspaces: [WS], prometheusUrls: ['http://prometheus.monitoring:9090'], bearerTokenSecrets: [SECRET] },
      audited: { metricNamespaces: ['AWS/SQS'], prometheusUrls: ['http://prometheus.monitoring:9090'] },
      open: { prometheusUrls: ['*', 'https://named.example.com'], bearerTokenSecrets: [SECRET] },
    }),
  );
  it.each([
    ['an allowed workspace and role', doc({ amp: { workspaceId: WS }, roleArn: ROLE }), undefined],
    ['another workspace', doc({ amp: { workspaceId: 'ws-00000000-abcd-4ef0-9abc-123456789012' } }), /^spec\.amp\.workspaceId ws-00000000-.* is not a workspace namespace web may query/],
    ['a role of another namespace', doc({ amp: { workspaceId: WS }, roleArn: ROLE }, 'audited'), /^spec\.roleArn .* is not one the deploy allows PrometheusMetric objects of namespace audited to assume/],
    ['an allowed server with its secret', doc({ server: { url: 'http://prometheus.monitoring:9090', bearerTokenSecretArn: SECRET } }), undefined],
    ['another server', doc({ server: { url: 'http://evil:9090' } }), /^spec\.server\.url: origin http:\/\/evil:9090 is not a Prometheus server namespace web may query \(param metricAccess, prometheusUrls: http:\/\/prometheus\.monitoring:9090\)$/],
    ['a port-prefix neighbour', doc({ server: { url: 'http://prometheus.monitoring:90901' } }), /^spec\.server\.url: origin http:\/\/prometheus\.monitoring:90901 is not a Prometheus server/],
    ['a host-prefix neighbour', doc({ server: { url: 'http://prometheus.monitoring.evil:9090' } }), /is not a Prometheus server namespace web may query/],
    ['another scheme', doc({ server: { url: 'https://prometheus.monitoring:9090' } }), /is not a Prometheus server namespace web may query/],
    ['the same origin under a path, default port spelled out', doc({ server: { url: 'HTTP://Prometheus.Monitoring:9090/prom/' } }), undefined],
    ['a server where none is granted (fail closed)', doc({ server: { url: 'http://p:9090' } }, 'other'), /origin http:\/\/p:9090 is not a Prometheus server namespace other may query \(param metricAccess, prometheusUrls: none\)/],
    ['any public server under "*"', doc({ server: { url: 'https://prom.example.com' } }, 'open'), undefined],
    ['a bearer token under "*" only', doc({ server: { url: 'https://prom.example.com', bearerTokenSecretArn: SECRET } }, 'open'), /a bearer token is sent only to an origin granted by name, and https:\/\/prom\.example\.com is granted to namespace open only through "\*"/],
    ['a secret not granted', doc({ server: { url: 'http://prometheus.monitoring:9090', bearerTokenSecretArn: SECRET } }, 'audited'), /bearerTokenSecretArn .* is not a secret namespace audited may send/],
    ['CloudWatch PromQL where metric namespaces are listed', doc({ cloudWatch: {} }, 'audited'), /^a CloudWatch PromQL query reads any metric of the account/],
    ['CloudWatch PromQL elsewhere', doc({ cloudWatch: {} }, 'other'), undefined],
  ])('%s', (_what, o, problem) => {
    const got = prometheusAccessProblem(o, access);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(problem);
  });

  it.each([
    ['a path', '{"web":{"prometheusUrls":["http://p:9090/prom"]}}', 'web.prometheusUrls: "http://p:9090/prom" must be an origin only (scheme://host[:port]): servers are granted whole, compared by scheme, host and port'],
    ['no scheme', '{"web":{"prometheusUrls":["p:9090"]}}', 'web.prometheusUrls: "p:9090" is not an http(s) origin such as http://prometheus.monitoring:9090'],
    ['a secret with no origin', `{"web":{"bearerTokenSecrets":["${SECRET}"]}}`, 'web.bearerTokenSecrets: grant the origins each token may be sent to, by name, in web.prometheusUrls'],
    ['a secret with "*" only', `{"web":{"prometheusUrls":["*"],"bearerTokenSecrets":["${SECRET}"]}}`, 'web.bearerTokenSecrets: grant the origins each token may be sent to, by name, in web.prometheusUrls'],
  ])('parseMetricAccess refuses %s', (_what, text, error) => {
    expect(() => parseMetricAccess(text)).toThrow(error);
  });

  it('parseMetricAccess names the fields it knows', () => {
    expect(() => parseMetricAccess('{"web":{"workspaces":[]}}')).toThrow('web: unknown field "workspaces" (roles, metricNamespaces, prometheusWorkspaces, prometheusUrls, bearerTokenSecrets, sqsQueues)');
  });
});
