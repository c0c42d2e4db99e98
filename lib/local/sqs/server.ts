// A local SQS endpoint for tests, the demo and `shpa local up`. It speaks what the installed
// @aws-sdk/client-sqs sends: AWS JSON 1.0 (POST /, content-type application/x-amz-json-1.0,
// x-amz-target AmazonSQS.<Operation>), query-compatible errors (x-amzn-query-error:
// Code;Sender). Delays, visibility timeouts, retention and redrive follow the server's
// clock (a virtual one in tests); long polls wait in real time. Queues: queues.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { closeServer, readAwsJsonRequest } from '../shared/aws-json-protocol.js';
import { SqsError, sqsErrors } from './errors.js';
import type { Input } from './input.js';
import { SqsQueues, type PreparedReceive } from './queues.js';

export const SQS_OPERATIONS = [
  'CreateQueue',
  'GetQueueUrl',
  'GetQueueAttributes',
  'SetQueueAttributes',
  'ListQueues',
  'SendMessage',
  'SendMessageBatch',
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
  'PurgeQueue',
  'DeleteQueue',
] as const;
export type SqsOperation = (typeof SQS_OPERATIONS)[number];

/**
 * throttle: RequestThrottled (403), as SQS answers; internal-error: InternalFailure (500);
 * hang: never answer; lose-answer: act on the request, then drop the connection;
 * failEntries: those batch entries fail (InternalFailure, not the sender's fault), the others succeed.
 */
export type SqsFault = 'throttle' | 'internal-error' | 'hang' | 'lose-answer' | { failEntries: string[] };

export interface SqsRequestLogEntry {
  /** The server's clock (epoch ms) when the request arrived. */
  at: number;
  operation: string;
  input: unknown;
  /** HTTP status; 0 while pending and for requests never answered. */
  status: number;
  outcome: 'pending' | 'answered' | 'hung' | 'lost';
}

export interface LocalSqsOptions {
  /** The server's notion of now, in epoch ms (a virtual clock in tests). */
  clock?: () => number;
  region?: string;
  accountId?: string;
}

const TARGET_PREFIX = 'AmazonSQS.';
const BATCH_OPERATIONS: string[] = ['SendMessageBatch', 'DeleteMessageBatch', 'ChangeMessageVisibilityBatch'];

export class LocalSqs {
  readonly requestLog: SqsRequestLogEntry[] = [];
  readonly region: string;
  readonly accountId: string;
  private readonly queues: SqsQueues;
  private readonly clock: () => number;
  private readonly faults = new Map<string, SqsFault[]>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiting = 0;
  private closing = false;

  constructor(
    private readonly server: Server,
    readonly endpoint: string,
    options: LocalSqsOptions,
  ) {
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '000000000000';
    this.clock = options.clock ?? Date.now;
    this.queues = new SqsQueues({
      clock: this.clock,
      region: this.region,
      accountId: this.accountId,
      baseUrl: endpoint,
      onChange: (queue) => this.wake(queue),
    });
  }

  queueUrl(name: string): string {
    return this.queues.queueUrl(name);
  }

  queueArn(name: string): string {
    return this.queues.queueArn(name);
  }

  /** Requests of this operation received so far (answered or not). */
  count(operation: SqsOperation): number {
    return this.requestLog.filter((r) => r.operation === operation).length;
  }

  /** The next `times` requests of the operation meet the fault. */
  failNext(operation: SqsOperation, fault: SqsFault, times = 1): void {
    if (typeof fault === 'object' && !BATCH_OPERATIONS.includes(operation)) {
      throw new Error(`failEntries applies to ${BATCH_OPERATIONS.join(', ')}, not ${operation}`);
    }
    const list = this.faults.get(operation) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(operation, list);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  /** ReceiveMessage calls waiting in a long poll right now. */
  get waitingReceives(): number {
    return this.waiting;
  }

  close(): Promise<void> {
    this.closing = true;
    for (const set of this.waiters.values()) for (const wake of set) wake();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return closeServer(this.server);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { operation, body } = await readAwsJsonRequest(req, TARGET_PREFIX);
    const entry: SqsRequestLogEntry = { at: this.clock(), operation, input: undefined, status: 0, outcome: 'pending' };
    this.requestLog.push(entry);
    let status = 200;
    let payload: Input;
    let lose = false;
    try {
      if (req.method !== 'POST' || (req.url ?? '/') !== '/') throw sqsErrors.unknownOperation('The local SQS serves POST / only.');
      if (req.headers['content-type'] !== 'application/x-amz-json-1.0') {
        throw sqsErrors.serialization('content-type must be application/x-amz-json-1.0 (the AWS JSON protocol of @aws-sdk/client-sqs).');
      }
      const authorization = String(req.headers.authorization ?? '');
      const sender = /^AWS4-HMAC-SHA256 .*Credential=([^/,\s]+)\//.exec(authorization);
      if (!sender) throw sqsErrors.missingAuthentication();
      const input = parseBody(body);
      entry.input = input;
      if (!(SQS_OPERATIONS as readonly string[]).includes(operation)) {
        throw sqsErrors.unknownOperation(`The local SQS does not serve ${operation || 'requests without x-amz-target'}; it serves ${SQS_OPERATIONS.join(', ')}.`);
      }
      const fault = this.faults.get(operation)?.shift();
      if (fault === 'throttle') throw sqsErrors.requestThrottled();
      if (fault === 'internal-error') throw sqsErrors.internalFailure();
      if (fault === 'hang') {
        entry.outcome = 'hung';
        return; // The socket stays open until the client gives up or the server closes.
      }
      lose = fault === 'lose-answer';
      const failEntries = typeof fault === 'object' ? fault.failEntries : [];
      payload = await this.dispatch(operation as SqsOperation, input, sender[1], failEntries, res);
    } catch (e) {
      const err = e instanceof SqsError ? e : new SqsError(500, 'com.amazon.coral.service#InternalFailure', 'InternalFailure', `local SQS bug: ${String(e)}`, false);
      status = err.status;
      payload = { __type: err.type, message: err.message };
      res.setHeader('x-amzn-query-error', err.queryError);
    }
    if (lose) {
      entry.outcome = 'lost';
      res.destroy();
      return;
    }
    entry.status = status;
    entry.outcome = 'answered';
    res.statusCode = status;
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.setHeader('x-amzn-requestid', randomUUID());
    res.end(JSON.stringify(payload));
  }

  private dispatch(operation: SqsOperation, input: Input, sender: string, failEntries: string[], res: ServerResponse): Input | Promise<Input> {
    const q = this.queues;
    switch (operation) {
      case 'ReceiveMessage':
        return this.receive(q.prepareReceive(input), res);
      case 'SendMessage':
        return q.SendMessage(input, sender);
      case 'SendMessageBatch':
        return q.SendMessageBatch(input, sender, failEntries);
      case 'DeleteMessageBatch':
        return q.DeleteMessageBatch(input, failEntries);
      case 'ChangeMessageVisibilityBatch':
        return q.ChangeMessageVisibilityBatch(input, failEntries);
      default:
        return q[operation](input);
    }
  }

  /** Answers at once when messages are visible, else waits (real time) up to WaitTimeSeconds for some. */
  private async receive(r: PreparedReceive, res: ServerResponse): Promise<Input> {
    const deadline = Date.now() + r.waitSeconds * 1000;
    let gone = false;
    res.once('close', () => (gone = true));
    for (;;) {
      // A client that went away takes nothing: its messages would be hidden from everyone else.
      if (gone || this.closing) return {};
      const messages = r.take();
      const left = deadline - Date.now();
      if (messages.length || left <= 0) return messages.length ? { Messages: messages } : {};
      this.waiting++;
      try {
        await this.waitForChange(r.queue, Math.min(left, r.nextVisibleInMs() ?? left), res);
      } finally {
        this.waiting--;
      }
    }
  }

  private waitForChange(queue: string, ms: number, res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(queue) ?? new Set();
      this.waiters.set(queue, set);
      const done = () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        set.delete(done);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.timers.add(timer);
      set.add(done);
      res.once('close', done);
    });
  }

  private wake(queue: string): void {
    for (const wake of [...(this.waiters.get(queue) ?? [])]) wake();
  }
}

function parseBody(body: Buffer): Input {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    throw sqsErrors.serialization('The request body is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw sqsErrors.serialization('The request body must be a JSON object.');
  return parsed as Input;
}

export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  let instance: LocalSqs | undefined;
  const server = createServer((req, res) => {
    // Only reading the body can reject (the client went away): there is no one to answer.
    instance!.handle(req, res).catch(() => res.destroy());
  });
  // Long polls hold a request up to 20 s; the SDK's keep-alive sockets may idle longer.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  instance = new LocalSqs(server, `http://127.0.0.1:${port}`, options);
  return instance;
}
