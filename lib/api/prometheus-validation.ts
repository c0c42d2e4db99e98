// Validation of shpa.dev/v1 PrometheusMetric documents, with field paths as for HPAs: the
// endpoint rules of each kind of server, checked before anything is stored.
import type { FieldError } from '#hpa/api';
import { isAwsRegion, isRoleArn } from '../shared/aws-patterns.cjs';
import { serverUrlProblem } from './endpoint-address.js';
import { FieldCollector } from './field-collector.js';

export { serverUrlProblem };
import { DEFAULT_SAMPLES_ERROR_THRESHOLD, DEFAULT_SAMPLES_WARNING_THRESHOLD, type PrometheusMetric } from './prometheus-types.js';

export type PrometheusMetricValidation = { valid: true; object: PrometheusMetric } | { valid: false; errors: FieldError[] };

export const WORKSPACE_ID = /^ws-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SECRET_ARN = /^arn:aws(-cn|-us-gov)?:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/;
const ENDPOINTS = ['amp', 'cloudWatch', 'server'] as const;
/** AMP's largest query-samples threshold is far below this; a cap beyond it is a typo. */
const MAX_SAMPLES = 1e12;

function validateRegion(c: FieldCollector, path: string, v: unknown): void {
  const region = c.string(path, v, false, 64);
  if (region !== undefined && !isAwsRegion(region)) c.add(path, 'Invalid', 'must be an AWS region such as us-east-1', region);
}

function validateAmp(c: FieldCollector, path: string, v: unknown): void {
  const amp = c.object(path, v, true);
  if (!amp) return;
  c.unknownFields(path, amp, ['workspaceId', 'region', 'samplesProcessedWarningThreshold', 'samplesProcessedErrorThreshold']);
  const id = c.string(`${path}.workspaceId`, amp.workspaceId, true, 64);
  if (id && !WORKSPACE_ID.test(id)) c.add(`${path}.workspaceId`, 'Invalid', 'must be an AMP workspace id such as ws-12345678-abcd-4ef0-9abc-123456789012', id);
  validateRegion(c, `${path}.region`, amp.region);
  c.integer(`${path}.samplesProcessedWarningThreshold`, amp.samplesProcessedWarningThreshold, 1, MAX_SAMPLES);
  c.integer(`${path}.samplesProcessedErrorThreshold`, amp.samplesProcessedErrorThreshold, 1, MAX_SAMPLES);
  // Compared only when both are good (or defaulted): a bad one is said once, above.
  const good = (v: unknown, dflt: number) => (v === undefined ? dflt : typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_SAMPLES ? v : undefined);
  const warning = good(amp.samplesProcessedWarningThreshold, DEFAULT_SAMPLES_WARNING_THRESHOLD);
  const error = good(amp.samplesProcessedErrorThreshold, DEFAULT_SAMPLES_ERROR_THRESHOLD);
  if (warning !== undefined && error !== undefined && warning > error) {
    c.add(`${path}.samplesProcessedWarningThreshold`, 'Invalid', `must not exceed samplesProcessedErrorThreshold (${error})`, warning);
  }
}

function validateServer(c: FieldCollector, path: string, v: unknown): void {
  const server = c.object(path, v, true);
  if (!server) return;
  c.unknownFields(path, server, ['url', 'bearerTokenSecretArn']);
  const url = c.string(`${path}.url`, server.url, true, 2048);
  const problem = url ? serverUrlProblem(url) : undefined;
  if (problem) c.add(`${path}.url`, 'Invalid', problem, url);
  const secret = c.string(`${path}.bearerTokenSecretArn`, server.bearerTokenSecretArn, false, 2048);
  if (secret !== undefined && !SECRET_ARN.test(secret)) {
    c.add(`${path}.bearerTokenSecretArn`, 'Invalid', 'must be a Secrets Manager secret ARN such as arn:aws:secretsmanager:us-east-1:123456789012:secret:prometheus-token-AbCdEf', secret);
  }
}

/** Validates a decoded PrometheusMetric document; on success returns it typed (not defaulted). */
export function validatePrometheusMetric(input: unknown): PrometheusMetricValidation {
  const c = new FieldCollector();
  const spec = c.envelope(input, 'PrometheusMetric');
  if (spec) {
    c.unknownFields('spec', spec, ['query', 'amp', 'cloudWatch', 'server', 'roleArn', 'periodSeconds']);
    const query = c.string('spec.query', spec.query, true, 10_000);
    if (query !== undefined && query.trim() === '' && query.length > 0) c.add('spec.query', 'Required', 'must not be blank');
    const set = ENDPOINTS.filter((k) => spec[k] !== undefined && spec[k] !== null);
    if (set.length !== 1) {
      c.add('spec', set.length === 0 ? 'Required' : 'Forbidden', `exactly one of amp, cloudWatch or server must be set${set.length > 1 ? `, found ${set.join(', ')}` : ''}`);
    }
    if (set.includes('amp')) validateAmp(c, 'spec.amp', spec.amp);
    if (set.includes('cloudWatch')) {
      const cw = c.object('spec.cloudWatch', spec.cloudWatch, true);
      if (cw) {
        c.unknownFields('spec.cloudWatch', cw, ['region']);
        validateRegion(c, 'spec.cloudWatch.region', cw.region);
      }
    }
    if (set.includes('server')) validateServer(c, 'spec.server', spec.server);
    const role = c.string('spec.roleArn', spec.roleArn, false, 2048);
    if (role !== undefined && !isRoleArn(role)) c.add('spec.roleArn', 'Invalid', 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name', role);
    else if (role !== undefined && set.length === 1 && set[0] === 'server') c.add('spec.roleArn', 'Forbidden', 'applies to amp and cloudWatch (a server is not signed with AWS credentials)');
    c.integer('spec.periodSeconds', spec.periodSeconds, 5, 3_600);
  }
  return c.errors.length ? { valid: false, errors: c.errors } : { valid: true, object: input as PrometheusMetric };
}
