// AWS clients of the metric sources (CloudWatch, SQS) by region and role, made once and reused across cycles.
import { CloudWatchClient, type CloudWatchClientConfig } from '@aws-sdk/client-cloudwatch';
import { SQSClient } from '@aws-sdk/client-sqs';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { AwsHttpHandler, withoutSdkLogging } from '#transport';

export interface CloudWatchClientOptions {
  /** A local endpoint (tests, demo); never set in production. */
  endpoint?: string;
  credentials?: CloudWatchClientConfig['credentials'];
}

interface ClientConfig {
  region: string;
  endpoint?: string;
  maxAttempts: number;
  requestHandler: AwsHttpHandler;
  credentials?: CloudWatchClientOptions['credentials'];
}

/** Clients of one service by region and role: the role's credentials come from STS through the function's own. */
function clientsByRegionAndRole<C extends CloudWatchClient | SQSClient>(make: (config: ClientConfig) => C, maxAttempts: number, options: CloudWatchClientOptions): { clientFor(region: string, roleArn?: string): C } {
  const clients = new Map<string, C>();
  return {
    clientFor(region, roleArn) {
      const key = `${region}\n${roleArn ?? ''}`;
      let client = clients.get(key);
      if (!client) {
        client = make({
          region,
          endpoint: options.endpoint,
          maxAttempts,
          // A hung endpoint must not hold an attempt longer than this (in the server's time); a few requests out at once.
          requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
          credentials: roleArn
            ? fromTemporaryCredentials({ params: { RoleArn: roleArn, RoleSessionName: 'serverless-hpa' }, masterCredentials: options.credentials, clientConfig: { region } })
            : options.credentials,
        });
        withoutSdkLogging(client);
        clients.set(key, client);
      }
      return client;
    },
  };
}

/** CloudWatch: retries are ours (throttling is retried with backoff within the cycle's deadline). */
export function cloudWatchClients(options: CloudWatchClientOptions = {}): { clientFor(region: string, roleArn?: string): CloudWatchClient } {
  return clientsByRegionAndRole((c) => new CloudWatchClient(c), 1, options);
}

/** SQS: one GetQueueAttributes a queue a tick; the SDK's standard retries (throttling) within the cycle's abort signal. */
export function sqsClients(options: CloudWatchClientOptions = {}): { clientFor(region: string, roleArn?: string): SQSClient } {
  return clientsByRegionAndRole((c) => new SQSClient(c), 3, options);
}
