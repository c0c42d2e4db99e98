// `sqs send|receive|list`, typed into `shpa local up`: messages onto a queue of the local SQS and
// off it again, through the real SDK client, so an SQSQueueMetric sees a backlog arrive and drain.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';

/** The local SQS the commands act on, and the functions' own queues, which they leave alone. */
export interface LocalQueues {
  endpoint: string;
  region: string;
  /** Names of queues the functions use (ticks, evaluations, dead letters). */
  internal: string[];
}

/** Where a `shpa local up` session notes its SQS, beside its kubeconfig. */
const sessionFile = (kubeconfig: string) => join(dirname(kubeconfig), 'sqs.json');

/** Notes the session's SQS beside its kubeconfig (for `shpa local sqs` in another terminal); returns the file. */
export function rememberLocalQueues(kubeconfig: string, q: LocalQueues): string {
  const file = sessionFile(kubeconfig);
  writeFileSync(file, `${JSON.stringify(q)}\n`);
  return file;
}

export function forgetLocalQueues(file: string): void {
  rmSync(file, { force: true });
}

/** The SQS of the running session whose kubeconfig this is, or an error saying to start one. */
export function readLocalQueues(kubeconfig: string): LocalQueues {
  const file = sessionFile(kubeconfig);
  let q: Partial<LocalQueues>;
  try {
    q = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalQueues>;
  } catch {
    throw new Error(`no shpa local up session beside ${kubeconfig} (${file} is missing or unreadable): start one with npm run local`);
  }
  if (typeof q.endpoint !== 'string' || typeof q.region !== 'string' || !Array.isArray(q.internal)) throw new Error(`${file}: not what shpa local up writes; restart it`);
  return { endpoint: q.endpoint, region: q.region, internal: q.internal.map(String) };
}

export const SQS_USAGE =
  'sqs send QUEUE [--count N] [--group ID] [--body TEXT] | sqs receive QUEUE [--count N] [--keep] | sqs list (e.g. sqs send orders --count 50)';
/** The most messages one command moves: enough for any demo, bounded so a typo cannot hang the session. */
const MAX_COUNT = 10_000;
const BATCH = 10;

const clients = new Map<string, SQSClient>();
function clientOf(q: LocalQueues): SQSClient {
  let c = clients.get(q.endpoint);
  if (!c) {
    c = new SQSClient({ endpoint: q.endpoint, region: q.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    clients.set(q.endpoint, c);
  }
  return c;
}

/** Closes the clients the commands opened (a one-shot `shpa local sqs` then exits at once). */
export function closeSqsClients(): void {
  for (const c of clients.values()) c.destroy();
  clients.clear();
}

interface SqsArgs {
  verb: 'send' | 'receive' | 'list';
  queue?: string;
  count: number;
  group?: string;
  body?: string;
  keep: boolean;
}

/** The typed words after `sqs`, checked; the error names what is wrong and what the command takes. */
export function parseSqsArgs(words: string[]): SqsArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: words,
      allowPositionals: true,
      options: { count: { type: 'string', short: 'n' }, group: { type: 'string' }, body: { type: 'string' }, keep: { type: 'boolean' } },
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}; type ${SQS_USAGE}`);
  }
  const [verb, queue, ...rest] = parsed.positionals;
  if (verb !== 'send' && verb !== 'receive' && verb !== 'list') throw new Error(`type ${SQS_USAGE}`);
  if (verb !== 'list' && !queue) throw new Error(`sqs ${verb} needs a queue name; type ${SQS_USAGE}`);
  if (rest.length || (verb === 'list' && queue)) throw new Error(`unexpected ${[...(verb === 'list' ? [queue] : []), ...rest].join(' ')}; type ${SQS_USAGE}`);
  const v = parsed.values;
  const count = v.count === undefined ? 1 : Number(v.count);
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new Error(`--count must be a whole number from 1 to ${MAX_COUNT}, got ${v.count}`);
  if (verb !== 'send' && (v.group !== undefined || v.body !== undefined)) throw new Error(`--group and --body go with sqs send, not sqs ${verb}`);
  if (verb !== 'receive' && v.keep) throw new Error('--keep goes with sqs receive');
  return { verb, queue, count, group: v.group, body: v.body, keep: v.keep ?? false };
}

/** Runs one `sqs …` command on the local SQS: what it did and the queue's counts after, or an error naming the problem. */
export async function runSqsCommand(q: LocalQueues, words: string[]): Promise<string> {
  const args = parseSqsArgs(words);
  const client = clientOf(q);
  if (args.verb === 'list') return listQueues(q, client);
  const name = args.queue!;
  if (q.internal.includes(name)) throw new Error(`queue ${name} is the functions' own (${q.internal.join(', ')}); send to a tenant queue (sqs list)`);
  const url = await queueUrlOf(q, client, name);
  const done = args.verb === 'send' ? await sendMessages(client, url, name, args) : await receiveMessages(client, url, args);
  return `${done}; ${name} now: ${await describeCounts(client, url)}`;
}

async function queueUrlOf(q: LocalQueues, client: SQSClient, name: string): Promise<string> {
  try {
    return (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
  } catch (e) {
    if (e instanceof QueueDoesNotExist) throw new Error(`no queue ${name} on the local SQS (${await tenantQueues(q, client)})`);
    throw e;
  }
}

async function tenantQueues(q: LocalQueues, client: SQSClient): Promise<string> {
  const urls = (await client.send(new ListQueuesCommand({}))).QueueUrls ?? [];
  const names = urls.map((u) => u.slice(u.lastIndexOf('/') + 1)).filter((n) => !q.internal.includes(n));
  return names.length ? `queues: ${names.join(', ')}` : 'it has no queue but the functions\' own';
}

async function listQueues(q: LocalQueues, client: SQSClient): Promise<string> {
  const urls = (await client.send(new ListQueuesCommand({}))).QueueUrls ?? [];
  const lines: string[] = [];
  for (const url of urls) {
    const name = url.slice(url.lastIndexOf('/') + 1);
    if (!q.internal.includes(name)) lines.push(`${name}: ${await describeCounts(client, url)}`);
  }
  return lines.length ? lines.join('\n') : "no queue on the local SQS but the functions' own";
}

async function sendMessages(client: SQSClient, url: string, name: string, a: SqsArgs): Promise<string> {
  const fifo = name.endsWith('.fifo');
  // A FIFO queue needs a group: one group keeps the demo's order; a fresh deduplication id keeps every copy.
  const group = a.group ?? (fifo ? 'local' : undefined);
  let sent = 0;
  while (sent < a.count) {
    const n = Math.min(BATCH, a.count - sent);
    const Entries = Array.from({ length: n }, (_, i) => ({
      Id: `m${i}`,
      MessageBody: a.body ?? `message ${sent + i + 1} of ${a.count}`,
      ...(group !== undefined ? { MessageGroupId: group } : {}),
      ...(fifo ? { MessageDeduplicationId: randomUUID() } : {}),
    }));
    const out = await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries }));
    const failed = out.Failed ?? [];
    if (failed.length) throw new Error(`sent ${sent + (out.Successful?.length ?? 0)} of ${a.count}, then SQS refused one: ${failed[0].Code}`);
    sent += n;
  }
  return `sent ${sent} message${sent === 1 ? '' : 's'} to ${name}${group !== undefined ? ` (group ${group})` : ''}`;
}

async function receiveMessages(client: SQSClient, url: string, a: SqsArgs): Promise<string> {
  let received = 0;
  while (received < a.count) {
    const out = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: Math.min(BATCH, a.count - received), WaitTimeSeconds: 0 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) break;
    received += messages.length;
    if (!a.keep) {
      const Entries = messages.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle! }));
      const del = await client.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries }));
      if (del.Failed?.length) throw new Error(`received ${received}, then could not delete ${del.Failed.length} of them: ${del.Failed[0].Code}`);
    }
  }
  const what = a.keep ? 'received (kept in flight until their visibility timeout)' : 'received and deleted';
  const short = received < a.count ? ` (${a.count} asked; no more visible now)` : '';
  return `${what} ${received} message${received === 1 ? '' : 's'}${short}`;
}

async function describeCounts(client: SQSClient, url: string): Promise<string> {
  const a = (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }))).Attributes ?? {};
  return `${a.ApproximateNumberOfMessages ?? '?'} visible, ${a.ApproximateNumberOfMessagesNotVisible ?? '?'} in flight, ${a.ApproximateNumberOfMessagesDelayed ?? '?'} delayed`;
}
