// A test file's local SQS and a real SDK client on it (one attempt a call: a fault is seen,
// not retried), started before its tests and closed after, on the clock the file moves.
import { afterAll, beforeAll } from 'vitest';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs/server.js';

export function useLocalSqs(clock: () => number): { readonly sqs: LocalSqs; readonly client: SQSClient } {
  const handle = {} as { sqs: LocalSqs; client: SQSClient };
  beforeAll(async () => {
    handle.sqs = await startLocalSqs({ clock });
    handle.client = new SQSClient({ endpoint: handle.sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 's' }, maxAttempts: 1 });
  });
  afterAll(async () => {
    handle.client?.destroy();
    await handle.sqs?.close();
  });
  return handle;
}
