// lib/cluster: EKS access for one cluster. createClusterAccess() is what the
// Lambda and the demo call; it returns a KubernetesCluster, which implements
// both ClusterAccess and ClusterMetricsApi.
import { DescribeClusterCommand, EKSClient, type Cluster } from '@aws-sdk/client-eks';
import type { STSClientConfig } from '@aws-sdk/client-sts';
import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { type Clock, ClusterApiError, type ClusterRecord } from '#sync/ports';
import {
  createEksTokenProvider,
  staticTokenProvider,
  tokenClusterId,
  type AwsCredentials,
  type CredentialsProvider,
  type StsEndpointConfig,
  type TokenProvider,
} from './eks-token.js';
import { KubernetesCluster, type ClusterConnection } from './kubernetes-cluster.js';
import type { RetryPolicy } from './request-policy.js';

export { KubernetesCluster } from './kubernetes-cluster.js';
export type { ClusterConnection } from './kubernetes-cluster.js';
export { decodeEksToken, presignEksToken, createEksTokenProvider, staticTokenProvider, stsHostname, tokenClusterId } from './eks-token.js';
export type { AwsCredentials, CredentialsProvider, StsEndpointConfig, TokenProvider } from './eks-token.js';
export type { RetryPolicy } from './request-policy.js';

export interface ClusterAccessOptions {
  /** DescribeCluster client; default: one in the cluster's region with the cluster's credentials. */
  eks?: EKSClient;
  /** Config of the STS client that assumes cluster.roleArn (endpoint, region). */
  sts?: STSClientConfig;
  /** FIPS and dual-stack of the STS hostname tokens are signed for; default: the SDK's environment and profile. */
  tokenSts?: StsEndpointConfig;
  /** Base credentials; default: the SDK's node provider chain (the Lambda role). */
  credentials?: AwsCredentials | CredentialsProvider;
  clock?: Clock;
  /** Overrides token signing entirely. */
  tokenProvider?: TokenProvider;
  /** A fixed bearer token (local API server). */
  token?: string;
  retry?: Partial<RetryPolicy>;
  podPageSize?: number;
  /** Requests in flight at once to the API server (default 8). */
  maxInFlight?: number;
  /** Page size of the Deployment, StatefulSet and ReplicaSet lists of listScales (default 500). */
  scaleListPageSize?: number;
}

const systemClock: Clock = { now: () => new Date() };

/** caData as EKS and kubeconfig give it (base64 of PEM), or PEM itself. */
export function caPemOf(caData: string): string {
  const trimmed = caData.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed;
  const pem = Buffer.from(trimmed, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('caData is neither PEM nor base64-encoded PEM');
  return pem;
}

/** Reuses temporary credentials until five minutes before they expire. */
function memoizeCredentials(provider: CredentialsProvider, clock: Clock): CredentialsProvider {
  let cached: Promise<AwsCredentials> | undefined;
  return async () => {
    const c = cached && (await cached.catch(() => undefined));
    if (c && (!c.expiration || c.expiration.getTime() - 5 * 60_000 > clock.now().getTime())) return c;
    cached = provider();
    return cached;
  };
}

function credentialsFor(cluster: ClusterRecord, opts: ClusterAccessOptions, clock: Clock): CredentialsProvider {
  const base: CredentialsProvider =
    typeof opts.credentials === 'function'
      ? opts.credentials
      : opts.credentials
        ? async () => opts.credentials as AwsCredentials
        : fromNodeProviderChain();
  if (!cluster.roleArn) return base;
  return memoizeCredentials(
    fromTemporaryCredentials({
      params: { RoleArn: cluster.roleArn, RoleSessionName: `serverless-hpa-${cluster.name}`.slice(0, 64) },
      masterCredentials: base,
      clientConfig: { region: cluster.region, ...opts.sts },
    }),
    clock,
  );
}

export function createClusterAccess(cluster: ClusterRecord, opts: ClusterAccessOptions = {}): KubernetesCluster {
  const clock = opts.clock ?? systemClock;
  const needsAws = !(opts.tokenProvider || opts.token) || !cluster.endpoint;
  const credentials = needsAws ? credentialsFor(cluster, opts, clock) : undefined;
  const tokens =
    opts.tokenProvider ??
    (opts.token !== undefined
      ? staticTokenProvider(opts.token)
      : createEksTokenProvider({
          // A local cluster on Outposts is named in its tokens by its id, which DescribeCluster gives.
          clusterId: cluster.endpoint ? cluster.name : async () => tokenClusterId(await describe(), cluster.name),
          region: cluster.region,
          credentials: credentials!,
          clock,
          sts: opts.tokenSts,
        }));

  // One DescribeCluster serves the connection and the token's cluster id; a failed one is tried again next time.
  let described: Promise<Cluster> | undefined;
  function describe(): Promise<Cluster> {
    described ??= (async () => {
      const eks = opts.eks ?? new EKSClient({ region: cluster.region, credentials });
      let out;
      try {
        out = await eks.send(new DescribeClusterCommand({ name: cluster.name }));
      } catch (err) {
        throw new ClusterApiError(`DescribeCluster ${cluster.name} in ${cluster.region} failed: ${(err as Error).message}`);
      }
      if (!out.cluster) throw new ClusterApiError(`DescribeCluster ${cluster.name}: no cluster in the answer`);
      return out.cluster;
    })().catch((err: unknown) => {
      described = undefined;
      throw err;
    });
    return described;
  }

  // Called until it succeeds once: the KubernetesCluster keeps the connection for its life.
  async function connect(): Promise<ClusterConnection> {
    if (cluster.endpoint) {
      if (!cluster.caData) throw new ClusterApiError(`cluster ${cluster.name}: endpoint is set but caData is missing`);
      return { endpoint: cluster.endpoint, caPem: caPemOf(cluster.caData) };
    }
    const out = await describe();
    const endpoint = out.endpoint;
    const ca = out.certificateAuthority?.data;
    if (!endpoint || !ca) {
      described = undefined; // still being created: ask again next time
      throw new ClusterApiError(`DescribeCluster ${cluster.name}: no endpoint or certificate authority (cluster status ${out.status ?? 'unknown'})`);
    }
    return { endpoint, caPem: caPemOf(ca) };
  }

  return new KubernetesCluster(cluster.name, {
    connect,
    tokens,
    clock,
    retry: opts.retry,
    podPageSize: opts.podPageSize,
    maxInFlight: opts.maxInFlight,
    scaleListPageSize: opts.scaleListPageSize,
  });
}

export { selectPods } from './select-pods.js';
