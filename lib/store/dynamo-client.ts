// The DynamoDB client every part uses: bounded in time. A hung endpoint must never hang a
// cycle: each attempt has a connection and a request timeout, retries back off with
// jitter (SDK standard mode), and callers pass an AbortSignal for their own deadline.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentity } from '@smithy/types';

export interface DynamoClientOptions {
  endpoint?: string;
  region?: string;
  credentials?: AwsCredentialIdentity;
  /** Attempts per request (SDK standard retry mode: throttling and transient errors, with jittered backoff). */
  maxAttempts?: number;
  /** Per attempt: connecting, and waiting for the answer. */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export const DEFAULT_DYNAMO_TIMEOUTS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 4 };

export function createDynamoClient(o: DynamoClientOptions): DynamoDBClient {
  return new DynamoDBClient({
    region: o.region ?? 'us-east-1',
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.credentials ? { credentials: o.credentials } : {}),
    maxAttempts: o.maxAttempts ?? DEFAULT_DYNAMO_TIMEOUTS.maxAttempts,
    retryMode: 'standard',
    requestHandler: {
      connectionTimeout: o.connectionTimeoutMs ?? DEFAULT_DYNAMO_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: o.requestTimeoutMs ?? DEFAULT_DYNAMO_TIMEOUTS.requestTimeoutMs,
      // Without it the SDK only logs a warning when the request timeout passes.
      throwOnRequestTimeout: true,
    },
  });
}
