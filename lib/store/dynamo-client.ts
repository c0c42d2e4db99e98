// The DynamoDB client every part uses: bounded in time and in requests in flight. A hung
// endpoint must never hang a cycle: each attempt has a timeout measured in the server's time
// (lib/transport), retries back off with jitter (SDK standard mode), and callers pass an
// AbortSignal for their own deadline.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentity } from '@smithy/types';
import { AwsHttpHandler, withoutSdkLogging } from '#transport';

export interface DynamoClientOptions {
  endpoint?: string;
  region?: string;
  credentials?: AwsCredentialIdentity;
  /** Attempts per request (SDK standard retry mode: throttling and transient errors, with jittered backoff). Default 4. */
  maxAttempts?: number;
  /** Per attempt, connecting and waiting for the answer, in the server's time (lib/transport/server-timer.ts). Default 3,000. */
  requestTimeoutMs?: number;
  /** Requests in flight at once; more wait their turn, in order. Default 8. */
  maxInFlight?: number;
}

export const DEFAULT_DYNAMO_TIMEOUTS = { requestTimeoutMs: 3_000, maxAttempts: 4, maxInFlight: 8 };

export function createDynamoClient(o: DynamoClientOptions): DynamoDBClient {
  const client = new DynamoDBClient({
    region: o.region ?? 'us-east-1',
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.credentials ? { credentials: o.credentials } : {}),
    maxAttempts: o.maxAttempts ?? DEFAULT_DYNAMO_TIMEOUTS.maxAttempts,
    retryMode: 'standard',
    requestHandler: new AwsHttpHandler({
      maxInFlight: o.maxInFlight ?? DEFAULT_DYNAMO_TIMEOUTS.maxInFlight,
      attemptTimeoutMs: o.requestTimeoutMs ?? DEFAULT_DYNAMO_TIMEOUTS.requestTimeoutMs,
    }),
  });
  withoutSdkLogging(client);
  return client;
}
