// CloudWatch clients by region and role, made once and reused across cycles.
import { CloudWatchClient, type CloudWatchClientConfig } from '@aws-sdk/client-cloudwatch';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { AwsHttpHandler, withoutSdkLogging } from '#transport';

export interface CloudWatchClientOptions {
  /** A local endpoint (tests, demo); never set in production. */
  endpoint?: string;
  credentials?: CloudWatchClientConfig['credentials'];
}

export function cloudWatchClients(options: CloudWatchClientOptions = {}): { clientFor(region: string, roleArn?: string): CloudWatchClient } {
  const clients = new Map<string, CloudWatchClient>();
  return {
    clientFor(region, roleArn) {
      const key = `${region}\n${roleArn ?? ''}`;
      let client = clients.get(key);
      if (!client) {
        client = new CloudWatchClient({
          region,
          endpoint: options.endpoint,
          // Retries are ours: throttling is retried with backoff within the cycle's deadline.
          maxAttempts: 1,
          // A hung endpoint must not hold an attempt longer than this (in the server's time); a few requests out at once.
          requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
          credentials: roleArn
            ? fromTemporaryCredentials({
                params: { RoleArn: roleArn, RoleSessionName: 'serverless-hpa' },
                masterCredentials: options.credentials,
                clientConfig: { region },
              })
            : options.credentials,
        });
        withoutSdkLogging(client);
        clients.set(key, client);
      }
      return client;
    },
  };
}
