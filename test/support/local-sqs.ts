// A test file's local SQS and a real SDK client on it (one attempt a call: a fault is seen,
// not retried), started before its tests and closed after, on the clock the file moves.
import { afterAll, beforeAll } from 'vitest';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs/server.js';

/** Another real SDK client on the endpoint (one attempt a call unless `extra` says otherwise). */
export function localSqsClient(sqs: LocalSqs, extra: Partial<SQSClientConfig> = {}): SQSClient {
  return new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 's' }, maxAttempts: 1, ...extra });
}

export function useLocalSqs(clock: () => number, opts: { accountId?: string } = {}): { readonly sqs: LocalSqs; readonly client: SQSClient } {
  const handle = {} as { sqs: LocalSqs; client: SQSClient };
  beforeAll(async () => {
    handle.sqs = await startLocalSqs({ clock, ...opts });
    handle.client = localSqsClient(handle.sqs);
  });
  afterAll(async () => {
    handle.client?.destroy();
    await handle.sqs?.close();
  });
  return handle;
}
