// One PromQL instant query over HTTP: the URL of each kind of endpoint, SigV4 for AMP (service
// "aps") and CloudWatch's PromQL endpoint (service "monitoring"), a bearer token for a server,
// and the Prometheus API's JSON envelope read into a typed answer or a PrometheusHttpError that
// says in our words what failed (HTTP status, errorType, origin), never what the server wrote.
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { type BoundedFetchOptions, fetchBounded, HttpFetchError } from '#transport';
import { DEFAULT_SAMPLES_ERROR_THRESHOLD, DEFAULT_SAMPLES_WARNING_THRESHOLD, type PrometheusMetricSpec } from '#api';

export type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** Base URLs replacing the AWS hosts (tests and the local stack); never set in production. */
export interface PrometheusEndpoints {
  amp?: string;
  cloudWatch?: string;
}

/** What an instant query returned: the API's data and its notes. */
export interface InstantAnswer {
  resultType: string;
  result: unknown;
  /** stats=all: the samples the query processed (AMP bills by them). */
  samplesProcessed?: number;
  warnings: string[];
}

/** A refused or failed query: the HTTP status and the API's errorType when it said them. */
export class PrometheusHttpError extends Error {
  override readonly name = 'PrometheusHttpError';
  constructor(
    message: string,
    readonly status?: number,
    readonly errorType?: string,
    /** A request refused or dropped on our side (address, redirect, too large): asking again gets the same. */
    readonly refused = false,
  ) {
    super(message);
  }
}

/** How to send one object's query: where, with which parameters, signed for which service or with which token. */
export interface QueryTarget {
  url: URL;
  params: Record<string, string>;
  sign?: { service: 'aps' | 'monitoring'; region: string };
  bearerTokenSecretArn?: string;
  /** Whether the endpoint bills by query samples processed (AMP). */
  billedBySamples: boolean;
  /** A server: whether its origin is granted by name, so loopback and private addresses may be reached. */
  allowPrivate?: boolean;
}

/** Where and how an object's query goes at evaluation time `time` (epoch seconds). */
export function queryTarget(spec: PrometheusMetricSpec, time: number, region: string | undefined, endpoints: PrometheusEndpoints = {}): QueryTarget {
  const base = { query: spec.query, time: String(time) };
  if (spec.amp) {
    const r = spec.amp.region ?? region;
    if (!r) throw new Error('no region: set spec.amp.region or configure a default region');
    const host = endpoints.amp ?? `https://aps-workspaces.${r}.amazonaws.com`;
    return {
      url: new URL(`${host.replace(/\/$/, '')}/workspaces/${spec.amp.workspaceId}/api/v1/query`),
      params: {
        ...base,
        stats: 'all',
        max_samples_processed_warning_threshold: String(spec.amp.samplesProcessedWarningThreshold ?? DEFAULT_SAMPLES_WARNING_THRESHOLD),
        max_samples_processed_error_threshold: String(spec.amp.samplesProcessedErrorThreshold ?? DEFAULT_SAMPLES_ERROR_THRESHOLD),
      },
      sign: { service: 'aps', region: r },
      billedBySamples: true,
    };
  }
  if (spec.cloudWatch) {
    const r = spec.cloudWatch.region ?? region;
    if (!r) throw new Error('no region: set spec.cloudWatch.region or configure a default region');
    const host = endpoints.cloudWatch ?? `https://monitoring.${r}.amazonaws.com`;
    return { url: new URL(`${host.replace(/\/$/, '')}/api/v1/query`), params: base, sign: { service: 'monitoring', region: r }, billedBySamples: false };
  }
  if (!spec.server) throw new Error('no endpoint: set spec.amp, spec.cloudWatch or spec.server');
  return {
    url: new URL(`${spec.server.url.replace(/\/$/, '')}/api/v1/query`),
    params: { ...base, stats: 'all' },
    bearerTokenSecretArn: spec.server.bearerTokenSecretArn,
    billedBySamples: false,
  };
}

// RFC 3986, as SigV4 canonicalises the query string: the URL sent is encoded the same way.
function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Sends the query and reads the envelope; throws PrometheusHttpError for any answer that is not a success. */
export async function sendInstantQuery(
  target: QueryTarget,
  auth: { credentials?: Credentials; bearerToken?: string },
  signal: AbortSignal,
  fetch: Omit<BoundedFetchOptions, 'headers' | 'signal'> = {},
  signingDate = new Date(),
): Promise<InstantAnswer> {
  const { url, params } = target;
  const search = Object.keys(params)
    .sort()
    .map((k) => `${encodeRfc3986(k)}=${encodeRfc3986(params[k])}`)
    .join('&');
  let headers: Record<string, string> = { host: url.host, accept: 'application/json' };
  if (target.sign) {
    if (!auth.credentials) throw new PrometheusHttpError('no AWS credentials to sign the query with');
    const signer = new SignatureV4({ credentials: auth.credentials, region: target.sign.region, service: target.sign.service, sha256: Sha256 });
    const request = new HttpRequest({
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: params,
      headers,
    });
    headers = (await signer.sign(request, { signingDate })).headers;
  } else if (auth.bearerToken !== undefined) {
    headers = { ...headers, authorization: `Bearer ${auth.bearerToken}` };
  }
  const { host: _host, ...sent } = headers;
  const answer = await fetchBounded(new URL(`${url.origin}${url.pathname}?${search}`), { ...fetch, headers: sent, signal }).catch((e: unknown) => {
    if (e instanceof HttpFetchError) throw new PrometheusHttpError(e.message, e.status, undefined, e.reason !== 'unreachable');
    throw e;
  });
  return readEnvelope(answer.status, answer.body, target);
}

/** Prometheus's own errorType values (web/api/v1): any other is named "unknown", not echoed. */
const ERROR_TYPES = new Set(['timeout', 'canceled', 'execution', 'bad_data', 'internal', 'unavailable', 'not_found', 'not_acceptable']);
/** An AWS error code (x-amzn-ErrorType, `__type`): a name, not a message. */
const AWS_ERROR_CODE = /^[A-Za-z]{1,64}(Exception|Error)?$/;

/** The API's envelope read into an answer, or a PrometheusHttpError in our words: status, errorType, origin. */
export function readEnvelope(status: number, text: string, target: QueryTarget): InstantAnswer {
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // said below
  }
  const origin = target.url.origin;
  if (!body || body.status !== 'success') {
    const said = typeof body?.errorType === 'string' ? body.errorType : typeof body?.__type === 'string' ? body.__type.split('#').pop() : undefined;
    const errorType = said === undefined ? undefined : ERROR_TYPES.has(said) || (target.sign && AWS_ERROR_CODE.test(said)) ? said : 'unknown';
    if (target.sign) {
      // AWS's own endpoints (never a tenant's pick): their message says what to fix (a region, a signature).
      const message = typeof body?.message === 'string' ? body.message : typeof body?.error === 'string' ? body.error : undefined;
      throw new PrometheusHttpError(`HTTP ${status}${errorType ? ` ${errorType}` : ''}${message ? `: ${message.slice(0, 300)}` : ''}`, status, errorType);
    }
    const what = body?.status === 'error' ? `error${errorType ? ` ${errorType}` : ''}` : 'an answer that is not a Prometheus API answer';
    throw new PrometheusHttpError(`HTTP ${status} from ${origin}: ${what} (its text is not shown)`, status, errorType);
  }
  const data = (body.data ?? {}) as { resultType?: unknown; result?: unknown; stats?: { samples?: { totalQueryableSamples?: unknown } } };
  const samples = data.stats?.samples?.totalQueryableSamples;
  const notes = [...(Array.isArray(body.warnings) ? body.warnings : []), ...(Array.isArray(body.infos) ? body.infos : [])].map(String);
  return {
    resultType: String(data.resultType ?? ''),
    result: data.result,
    ...(typeof samples === 'number' ? { samplesProcessed: samples } : {}),
    // AWS's endpoints' notes are AWS's words; a server's are its own, only counted.
    warnings: target.sign || notes.length === 0 ? notes : [`${origin} returned ${notes.length} warning(s) or info(s), not shown`],
  };
}
