// `sqs send|receive|list`, typed into `shpa local up`, against the local SQS endpoint: the
// messages really arrive and leave (read back with the real SDK client), and bad input is
// refused with what is wrong.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { command, registerLocal } from '../../lib/cli/local.js';
import { forgetLocalQueues, parseSqsArgs, rememberLocalQueues, type LocalQueues } from '../../lib/cli/local-sqs.js';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs/server.js';

let sqs: LocalSqs;
let client: SQSClient;
let queues: LocalQueues;
const up = () => ({ cloudWatch: undefined as never, setLoad: () => undefined, queues });
const run = (line: string) => command(up(), line.split(' '));
const counts = async (name: string) => {
  const a = (await client.send(new GetQueueAttributesCommand({ QueueUrl: sqs.queueUrl(name), AttributeNames: ['All'] }))).Attributes!;
  return [a.ApproximateNumberOfMessages, a.ApproximateNumberOfMessagesNotVisible].map(Number);
};

beforeAll(async () => {
  sqs = await startLocalSqs();
  client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  for (const QueueName of ['work', 'orders']) await client.send(new CreateQueueCommand({ QueueName }));
  await client.send(new CreateQueueCommand({ QueueName: 'payments.fifo', Attributes: { FifoQueue: 'true' } }));
  queues = { endpoint: sqs.endpoint, region: 'us-east-1', internal: ['work'] };
});
afterAll(async () => {
  client.destroy();
  await sqs.close();
});

describe('sqs commands of shpa local up', () => {
  it('sends N messages to a named queue, in batches, and says what the queue holds', async () => {
    expect(await run('sqs send orders --count 50')).toBe('sent 50 messages to orders; orders now: 50 visible, 0 in flight, 0 delayed');
    expect(await counts('orders')).toEqual([50, 0]);
    expect(sqs.count('SendMessageBatch')).toBe(5);
  });

  it('receives and deletes N messages, or keeps them in flight with --keep; says when fewer were there', async () => {
    expect(await run('sqs receive orders --count 10')).toBe('received and deleted 10 messages; orders now: 40 visible, 0 in flight, 0 delayed');
    expect(await run('sqs receive orders --count 5 --keep')).toBe('received (kept in flight until their visibility timeout) 5 messages; orders now: 35 visible, 5 in flight, 0 delayed');
    expect(await run('sqs receive orders -n 100')).toBe('received and deleted 35 messages (100 asked; no more visible now); orders now: 0 visible, 5 in flight, 0 delayed');
  });

  it('sends to a FIFO queue in one message group, each message kept (a fresh deduplication id)', async () => {
    expect(await run('sqs send payments.fifo --count 12')).toBe('sent 12 messages to payments.fifo (group local); payments.fifo now: 12 visible, 0 in flight, 0 delayed');
    // One group: one receive takes what it can, and the group waits for those to be deleted.
    expect(await run('sqs receive payments.fifo --count 3 --keep')).toMatch(/^received \(kept in flight until their visibility timeout\) 3 messages; payments.fifo now: 9 visible, 3 in flight/);
    expect(await run('sqs receive payments.fifo --count 3')).toMatch(/^received and deleted 0 messages \(3 asked; no more visible now\)/);
  });

  it('lists the tenant queues with their counts, never the functions\' own', async () => {
    const text = await run('sqs list');
    expect(text).toContain('orders: 0 visible, 5 in flight, 0 delayed');
    expect(text).toContain('payments.fifo: 9 visible, 3 in flight');
    expect(text).not.toContain('work');
  });

  it('refuses a queue that does not exist (naming those that do), the functions\' own queue, and bad options', async () => {
    await expect(run('sqs send order --count 5')).rejects.toThrow('no queue order on the local SQS (queues: orders, payments.fifo)');
    await expect(run('sqs send work')).rejects.toThrow("queue work is the functions' own (work); send to a tenant queue (sqs list)");
    expect(() => parseSqsArgs(['send', 'orders', '--count', '0'])).toThrow('--count must be a whole number from 1 to 10000, got 0');
    expect(() => parseSqsArgs(['send', 'orders', '--count', 'many'])).toThrow('--count must be a whole number');
    expect(() => parseSqsArgs(['send'])).toThrow(/^sqs send needs a queue name/);
    expect(() => parseSqsArgs(['purge', 'orders'])).toThrow(/^type sqs send QUEUE/);
    expect(() => parseSqsArgs(['receive', 'orders', '--group', 'a'])).toThrow('--group and --body go with sqs send, not sqs receive');
    expect(() => parseSqsArgs(['send', 'orders', '--fast'])).toThrow(/Unknown option '--fast'.*type sqs send QUEUE/);
    expect(() => parseSqsArgs(['send', 'orders', 'extra'])).toThrow(/^unexpected extra/);
    expect(await counts('orders')).toEqual([0, 5]);
  });

  it('`shpa local sqs …` in another terminal acts on the running session found beside its kubeconfig, and says when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-local-sqs-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const cli = () => {
      const program = new Command().exitOverride();
      registerLocal(program);
      return program;
    };
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    try {
      const file = rememberLocalQueues(kubeconfig, queues);
      await cli().parseAsync(['node', 'shpa', 'local', 'sqs', 'send', 'orders', '--count', '3', '--kubeconfig', kubeconfig]);
      expect(written.join('')).toBe('sent 3 messages to orders; orders now: 3 visible, 5 in flight, 0 delayed\n');
      forgetLocalQueues(file);
      await expect(cli().parseAsync(['node', 'shpa', 'local', 'sqs', 'list', '--kubeconfig', kubeconfig])).rejects.toThrow(`no shpa local up session beside ${kubeconfig}`);
    } finally {
      spy.mockRestore();
    }
  });
});
