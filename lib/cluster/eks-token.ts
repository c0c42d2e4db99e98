// EKS bearer tokens as aws-iam-authenticator builds them: a SigV4-presigned
// STS GetCallerIdentity URL bound to the cluster by the signed header x-k8s-aws-id.
import { Sha256 } from '@aws-crypto/sha256-js';
import { STSClient, type STSClientConfig } from '@aws-sdk/client-sts';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Clock } from '#sync/ports';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; a token must not outlive them. */
  expiration?: Date;
}

export type CredentialsProvider = () => Promise<AwsCredentials>;

export interface TokenProvider {
  /** A valid bearer token, from cache while it is fresh. */
  getToken(): Promise<string>;
  /** Drops the cached token (after a 401) so the next getToken signs a new one. */
  invalidate(): void;
}

export const TOKEN_PREFIX = 'k8s-aws-v1.';
/** aws-iam-authenticator sets X-Amz-Expires=60 "for legacy reasons"; the server honours tokens for 15 min from X-Amz-Date. */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** We re-sign well inside the server's 15 minute window (the authenticator's own client uses 14 min). */
export const TOKEN_REFRESH_SECONDS = 10 * 60;
/** Temporary credentials are re-read this long before they expire. */
const CREDENTIALS_MARGIN_SECONDS = 60;

/** What may change the STS endpoint a token names: FIPS and dual-stack (booleans, or the SDK's providers). */
export type StsEndpointConfig = Pick<STSClientConfig, 'useFipsEndpoint' | 'useDualstackEndpoint'>;

/**
 * The regional STS hostname tokens for `region` are signed for, as the SDK's own endpoint rules
 * resolve it: partition (aws, aws-cn, aws-us-gov, the ISO partitions), FIPS and dual-stack from
 * `config` or else from the environment and profile (AWS_USE_FIPS_ENDPOINT, AWS_USE_DUALSTACK_ENDPOINT).
 * Never the global endpoint, nor a custom endpoint URL: the cluster's authenticator accepts only
 * its partition's STS hostnames (aws-iam-authenticator pkg/token, stsHostsForPartition).
 */
export async function stsHostname(region: string, config: StsEndpointConfig = {}): Promise<string> {
  const resolved = new STSClient({ region, ...config }).config;
  const [UseFIPS, UseDualStack] = await Promise.all([resolved.useFipsEndpoint(), resolved.useDualstackEndpoint()]);
  return resolved.endpointProvider({ Region: region, UseFIPS, UseDualStack, UseGlobalEndpoint: false }).url.hostname;
}

/**
 * The x-k8s-aws-id a cluster's tokens carry: its name, or for an EKS local cluster on
 * Outposts (DescribeCluster gives `outpostConfig`) its id (aws-iam-authenticator's clusterID).
 */
export function tokenClusterId(cluster: { id?: string; outpostConfig?: unknown }, name: string): string {
  if (!cluster.outpostConfig) return name;
  if (!cluster.id) throw new Error(`cluster ${name} runs on Outposts but DescribeCluster gave no id: its tokens must carry the cluster id`);
  return cluster.id;
}

// RFC 3986 encoding, as SigV4 canonicalises the query string.
function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Signs one token for a cluster with the given credentials at signingDate. */
export async function presignEksToken(args: {
  /** x-k8s-aws-id: the cluster's name, or its id for a local cluster on Outposts (tokenClusterId). */
  clusterId: string;
  region: string;
  credentials: AwsCredentials;
  signingDate: Date;
  /** Default: stsHostname(region). */
  hostname?: string;
}): Promise<string> {
  const hostname = args.hostname ?? (await stsHostname(args.region));
  const signer = new SignatureV4({
    credentials: args.credentials,
    region: args.region,
    service: 'sts',
    sha256: Sha256,
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, 'x-k8s-aws-id': args.clusterId },
  });
  const signed = await signer.presign(request, {
    expiresIn: PRESIGN_EXPIRES_SECONDS,
    signingDate: args.signingDate,
  });
  const query = Object.entries(signed.query ?? {})
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : v == null ? [] : [[k, v] as const]))
    .map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`)
    .sort()
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

/** What a token says, decoded (for tests, diagnostics and the local API server). */
export interface DecodedEksToken {
  url: URL;
  signedHeaders: string[];
  expiresSeconds: number;
  amzDate: string;
}

export function decodeEksToken(token: string): DecodedEksToken {
  if (!token.startsWith(TOKEN_PREFIX)) throw new Error(`token does not start with ${TOKEN_PREFIX}`);
  const body = token.slice(TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new Error('token body is not unpadded base64url');
  const url = new URL(Buffer.from(body, 'base64url').toString('utf8'));
  const q = url.searchParams;
  return {
    url,
    signedHeaders: (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean),
    expiresSeconds: Number(q.get('X-Amz-Expires')),
    amzDate: q.get('X-Amz-Date') ?? '',
  };
}

const systemClock: Clock = { now: () => new Date() };

/** Caches one token per cluster and re-signs it before the server or the credentials would reject it. */
export function createEksTokenProvider(args: {
  /** x-k8s-aws-id, or a function finding it (a local cluster on Outposts: its id, known after DescribeCluster). */
  clusterId: string | (() => Promise<string>);
  region: string;
  credentials: CredentialsProvider;
  clock?: Clock;
  /** FIPS and dual-stack for the STS hostname; default: the SDK's environment and profile. */
  sts?: StsEndpointConfig;
}): TokenProvider {
  const clock = args.clock ?? systemClock;
  const clusterId = typeof args.clusterId === 'string' ? async () => args.clusterId as string : args.clusterId;
  let hostname: Promise<string> | undefined;
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function sign(): Promise<string> {
    hostname ??= stsHostname(args.region, args.sts).catch((e: unknown) => {
      hostname = undefined;
      throw e;
    });
    const [credentials, id, host] = await Promise.all([args.credentials(), clusterId(), hostname]);
    const now = clock.now();
    const token = await presignEksToken({ clusterId: id, region: args.region, credentials, signingDate: now, hostname: host });
    let refreshAt = now.getTime() + TOKEN_REFRESH_SECONDS * 1000;
    if (credentials.expiration) {
      refreshAt = Math.min(refreshAt, credentials.expiration.getTime() - CREDENTIALS_MARGIN_SECONDS * 1000);
    }
    cached = { token, refreshAt };
    return token;
  }

  return {
    async getToken() {
      if (cached && clock.now().getTime() < cached.refreshAt) return cached.token;
      // One signing at a time: concurrent callers share it.
      pending ??= sign().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

/** A fixed token (local API server, tests). */
export function staticTokenProvider(token: string): TokenProvider {
  return { getToken: async () => token, invalidate: () => undefined };
}
