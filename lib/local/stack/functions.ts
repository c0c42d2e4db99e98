// The five functions (dispatcher, worker, evaluator, stream, events) on local parts, wired
// exactly as Lambda runs them: the real handlers and the real AWS SDK clients, with the local SQS
// endpoint as the work queue and the worker as its event source, the evaluator invoked
// asynchronously through a local Lambda Invoke endpoint (its own queue, reserved concurrency,
// event age, retries and failure destination, as serverless.yml sets them), and the table's stream
// (DynamoDB Local's real one, or for the demo on dynalite, the admin store's own writes)
// feeding the stream function. The tests, the demo, `shpa local up`, the fault suite and the
// benchmarks all run the product through this.
import type { ResolveHost } from '#transport';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Context, EventBridgeEvent, ScheduledEvent } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAdapters, type Adapters } from '../../../functions/adapters.js';
import { createDispatcherHandler, type DispatcherResult } from '../../../functions/dispatcher.js';
import { createEventsHandler } from '../../../functions/events.js';
import { createStreamHandler } from '../../../functions/stream.js';
import { createEvaluatorHandler, createWorkerHandler } from '../../../functions/worker.js';
import { createEvaluations } from '../../../functions/wiring/queue.js';
import { packageRoot } from '../../demo/package-root.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '#hpa/api';
import type { RetryPolicy } from '../../cluster/index.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../store/index.js';
import { EVALUATE_DETAIL_TYPE, EVALUATE_SOURCE, type FunctionConfig, type SyncOptions } from '#sync/messaging';
import type { Clock, ClusterConfig } from '#sync/ports';
import { eventFilter } from '../lambda/event-filter.js';
import { lambdaContexts } from '../lambda/runtime.js';
import { AsyncInvoker } from '../lambda/async-invoke.js';
import { startLocalLambda, type LocalLambda } from '../lambda/invoke-server.js';
import { sqsEventSource, type SqsEventSource } from '../sqs/event-source.js';
import { startLocalSqs, type LocalSqs } from '../sqs/server.js';
import { streamEventSource, writeFeed, type StreamEventSource, type WriteFeed } from '../dynamodb-streams/event-source.js';
import { CapturingLogger, CapturingMetrics, type LogLine } from '../lambda/telemetry-capture.js';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';
const EVALUATOR_FUNCTION = 'serverless-hpa-local-evaluator';
// From the sources (lib/local/stack/) or bundled (dist/chunks/): the package's own infra/ either way.
const STREAM_FILTER = join(packageRoot(dirname(fileURLToPath(import.meta.url))), 'infra', 'stream-filter.json');

/** A cluster of the local stack: a local API server. */
export interface LocalCluster extends ClusterConfig {
  endpoint: string;
  caData: string;
}

export interface LocalFunctionsOptions {
  clock: Clock;
  dynamoEndpoint: string;
  /** DynamoDB Local's real stream, or (the demo on dynalite) records made from the admin store's writes. */
  stream: 'dynamodb-local' | 'write-feed';
  cloudWatchEndpoint: string;
  /** The bearer token the local API servers accept. */
  clusterToken: string;
  clusters: LocalCluster[];
  tableName: string;
  periodSeconds?: number;
  options?: Partial<SyncOptions>;
  retry?: Partial<RetryPolicy>;
  /** The worker's event source: concurrent invocations (the ESM's maximum concurrency). */
  workerConcurrency?: number;
  /** The evaluator's reserved concurrency (param evaluateConcurrency, 2; 1 when workerConcurrency is 1). */
  evaluateConcurrency?: number;
  /** The worker's memory the dispatcher sizes shards for (512). */
  workerMemoryMb?: number;
  /** Every log line of every function, as it is written. */
  onLine?: (line: LogLine) => void;
  /** Local stand-ins for AMP and CloudWatch's PromQL endpoint (base URLs), for PrometheusMetric objects. */
  prometheus?: { amp?: string; cloudWatch?: string };
  /** Resolves PrometheusMetric servers' host names (a test's resolver); default: the system's. */
  resolve?: ResolveHost;
  /** The param cloudWatchPublishDelay: 'learn' (the default) or fixed seconds. */
  cloudWatchPublishDelay?: 'learn' | number;
}

export interface LocalFunctions {
  config: FunctionConfig;
  /** A store on the table, as `shpa` uses it (its writes feed the stream function with the write feed). */
  admin: DynamoStore;
  adapters: Adapters;
  sqs: LocalSqs;
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** Where the evaluator's failed or expired invocations are set aside (Lambda's on-failure destination). */
  failedEventsQueueUrl: string;
  /** The local Lambda Invoke endpoint the stream and events functions send evaluations to. */
  lambda: LocalLambda;
  /** The worker as the work queue's (ticks, delayed re-sends) event source. */
  worker: SqsEventSource;
  /** The evaluator, invoked asynchronously with each evaluation. */
  evaluator: AsyncInvoker;
  /** Log lines of all five functions, each with its `function`. */
  lines: LogLine[];
  emf: Record<string, unknown>[];
  /** The dispatcher, as the schedule invokes it for the minute of `scheduledAt`. */
  dispatch(scheduledAt?: Date): Promise<DispatcherResult>;
  /** An EventBridge event (an alarm state change, an evaluate-now) through the events function. */
  publish(event: { source: string; 'detail-type': string; detail: unknown; time?: string }): Promise<{ sent: number }>;
  evaluateNow(cluster: string, namespace: string, name: string): Promise<{ sent: number }>;
  /** A CloudWatch Logs subscription delivery (`awslogs.data`) through the events function. */
  deliverLogs(data: string): Promise<{ sent: number }>;
  /** Stream records, then every message visible now, until nothing is left to do at this time. */
  drain(): Promise<{ invocations: number; streamRecords: number }>;
  /** Real time: the worker long-polls, the stream is followed, the dispatcher runs every minute. */
  start(): void;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startLocalFunctions(o: LocalFunctionsOptions): Promise<LocalFunctions> {
  const periodSeconds = o.periodSeconds ?? 15;
  const clockMs = () => o.clock.now().getTime();
  const sqs = await startLocalSqs({ clock: clockMs, region: LOCAL_REGION });
  const stops: (() => Promise<unknown>)[] = [() => sqs.close()];
  try {
    const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    await sqsClient.send(new CreateQueueCommand({ QueueName: 'work-dlq' }));
    await sqsClient.send(new CreateQueueCommand({ QueueName: 'failed-events' }));
    // The work queue (infra/queues.cjs), failing to its dead-letter queue.
    await sqsClient.send(
      new CreateQueueCommand({
        QueueName: 'work',
        Attributes: { VisibilityTimeout: String(Math.max(30, 6 * periodSeconds)), RedrivePolicy: JSON.stringify({ deadLetterTargetArn: sqs.queueArn('work-dlq'), maxReceiveCount: 3 }) },
      }),
    );
    const config: FunctionConfig = {
      region: LOCAL_REGION,
      tableName: o.tableName,
      queueUrl: sqs.queueUrl('work'),
      evaluatorFunction: EVALUATOR_FUNCTION,
      clusters: o.clusters.map(({ endpoint: _e, caData: _c, ...c }) => c),
      syncPeriodSeconds: periodSeconds,
      options: {
        settings: DEFAULT_CONTROLLER_SETTINGS,
        dryRun: false,
        concurrency: 16,
        writeBudgetMs: 1_000,
        clusterBudgetMs: o.retry?.budgetMs ?? 8_000,
        sources: { table: true, cluster: true },
        decisionLogSeconds: 300,
        // Every namespace may read the local SQS endpoint's queues (SQSQueueMetric fails closed without a grant).
        metricAccess: { '*': { sqsQueues: [`arn:aws:sqs:${LOCAL_REGION}:${sqs.accountId}:*`] } },
        ...o.options,
      },
      autoscalerMetrics: false,
      workerMemoryMb: o.workerMemoryMb ?? 512,
      cloudWatchPublishDelay: o.cloudWatchPublishDelay ?? 'learn',
    };
    const admin = createDynamoStore({ endpoint: o.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, tableName: o.tableName });
    await ensureTable(admin.client, o.tableName, { stream: o.stream === 'dynamodb-local' });
    for (const c of o.clusters) await admin.putCluster({ ...c, managedBy: 'cli' }, o.clock.now());

    const evaluatorHandler = (event: unknown, ctx: Context) => evaluate(event, ctx);
    // serverless.yml's evaluator: reserved concurrency, maximumEventAge (infra/stack.cjs evaluateEventAge), no retry, failures aside.
    const evaluator = new AsyncInvoker({
      handler: evaluatorHandler,
      reservedConcurrency: o.evaluateConcurrency ?? Math.min(2, o.workerConcurrency ?? 8),
      maximumEventAgeSeconds: Math.min(300, Math.max(60, periodSeconds)),
      maximumRetryAttempts: 0,
      onFailure: async (record) => {
        await sqsClient.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl('failed-events'), MessageBody: JSON.stringify(record) }));
      },
      context: lambdaContexts({ functionName: EVALUATOR_FUNCTION, timeoutSeconds: periodSeconds, clock: clockMs }),
      clock: clockMs,
    });
    const lambda = await startLocalLambda({ [EVALUATOR_FUNCTION]: evaluator });
    stops.push(() => lambda.close());
    const local = { dynamoDb: o.dynamoEndpoint, lambda: lambda.endpoint, cloudWatch: o.cloudWatchEndpoint, sqs: sqs.endpoint, credentials: LOCAL_CREDENTIALS, clusterToken: o.clusterToken, prometheus: o.prometheus, ...(o.resolve ? { resolve: o.resolve } : {}) };
    const adapters = createAdapters(config, { clock: o.clock, local, retry: o.retry });
    const lines: LogLine[] = [];
    const emfDocs: Record<string, unknown>[] = [];
    const telemetry = (fn: string) => {
      const logger = new CapturingLogger({ serviceName: 'serverless-hpa', persistentKeys: { function: fn } });
      logger.onLine = (line) => {
        lines.push(line);
        o.onLine?.(line);
      };
      const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
      emf.documents = emfDocs;
      return { logger, emf };
    };
    const context = (fn: string) => lambdaContexts({ functionName: `serverless-hpa-local-${fn}`, timeoutSeconds: periodSeconds, clock: clockMs });
    const logOptions = { periodSeconds, decisionLogSeconds: config.options.decisionLogSeconds, autoscalerMetrics: false, detailedMetrics: false };

    const workerHandler = createWorkerHandler({ config, adapters: () => adapters, ...telemetry('worker'), log: logOptions });
    const worker = sqsEventSource({
      client: sqsClient,
      queueUrl: config.queueUrl,
      handler: (event, ctx) => workerHandler(event, ctx),
      batchSize: 1,
      maximumConcurrency: o.workerConcurrency ?? 8,
      reportBatchItemFailures: true,
      context: context('worker'),
      waitTimeSeconds: 1,
    });
    // A stack run one message at a time (replayable) runs evaluations one at a time too (the evaluator's concurrency above).
    const evaluate = createEvaluatorHandler({ config, adapters: () => adapters, ...telemetry('evaluator'), log: logOptions });
    const evaluations = createEvaluations(config, local);
    // The registry is the table's own on a local stack (clusters with local endpoints): no mirror.
    const dispatcher = createDispatcherHandler({ config, adapters: () => adapters, ...telemetry('dispatcher'), mirror: false });
    const streamTelemetry = telemetry('stream');
    const streamHandler = createStreamHandler({ config, queue: () => evaluations, logger: streamTelemetry.logger, now: () => o.clock.now() });
    const events = createEventsHandler({ config, queue: () => evaluations, store: () => adapters.store, ...telemetry('events'), now: () => o.clock.now() });
    const filter = eventFilter(JSON.parse(readFileSync(STREAM_FILTER, 'utf8')), STREAM_FILTER);

    let stream: StreamEventSource | WriteFeed;
    if (o.stream === 'dynamodb-local') {
      const table = await admin.client.send(new DescribeTableCommand({ TableName: o.tableName }));
      const streamArn = table.Table?.LatestStreamArn;
      if (!streamArn) throw new Error(`table ${o.tableName} has no stream`);
      stream = streamEventSource({
        client: new DynamoDBStreamsClient({ endpoint: o.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
        streamArn,
        handler: (event, ctx) => streamHandler(event, ctx),
        filter,
        startingPosition: 'TRIM_HORIZON',
        context: context('stream'),
      });
    } else {
      stream = writeFeed(admin.client, { tableName: o.tableName, handler: (event, ctx) => streamHandler(event, ctx), filter, context: context('stream'), clock: clockMs });
    }

    let timer: NodeJS.Timeout | undefined;
    const dispatcherContext = context('dispatcher');
    const eventsContext = context('events');
    const fns: LocalFunctions = {
      config,
      admin,
      adapters,
      sqs,
      queueUrl: config.queueUrl,
      deadLetterQueueUrl: sqs.queueUrl('work-dlq'),
      failedEventsQueueUrl: sqs.queueUrl('failed-events'),
      lambda,
      worker,
      evaluator,
      lines,
      emf: emfDocs,
      dispatch(scheduledAt = o.clock.now()) {
        const event = { version: '0', id: 'local', 'detail-type': 'Scheduled Event', source: 'aws.events', account: '000000000000', time: scheduledAt.toISOString(), region: LOCAL_REGION, resources: [], detail: {} };
        return dispatcher(event as ScheduledEvent, dispatcherContext());
      },
      publish(event) {
        const full = { version: '0', id: 'local', account: '000000000000', region: LOCAL_REGION, resources: [], time: o.clock.now().toISOString(), ...event };
        return events(full as EventBridgeEvent<string, unknown>, eventsContext());
      },
      deliverLogs(data) {
        return events({ awslogs: { data } }, eventsContext());
      },
      evaluateNow(cluster, namespace, name) {
        return fns.publish({ source: EVALUATE_SOURCE, 'detail-type': EVALUATE_DETAIL_TYPE, detail: { cluster, namespace, name } });
      },
      async drain() {
        let invocations = 0;
        let streamRecords = 0;
        for (;;) {
          const s = 'drain' in stream ? await stream.drain() : (await stream.idle(), { records: 0 });
          // One after the other, so that with a concurrency of 1 cycles never overlap and runs replay exactly.
          const e = await evaluator.drain();
          const w = await worker.drain();
          streamRecords += s.records;
          invocations += w.invocations + e.invocations;
          if (w.invocations + e.invocations === 0 && s.records === 0) return { invocations, streamRecords };
        }
      },
      start() {
        worker.start();
        evaluator.start();
        if ('start' in stream) stream.start();
        // The schedule: the dispatcher at every minute boundary.
        const schedule = () => {
          const now = o.clock.now().getTime();
          timer = setTimeout(() => {
            void fns.dispatch(new Date(Math.floor(o.clock.now().getTime() / 60_000) * 60_000)).catch(() => undefined);
            schedule();
          }, 60_000 - (now % 60_000));
          timer.unref?.();
        };
        void fns.dispatch().catch(() => undefined);
        schedule();
      },
      async stop() {
        clearTimeout(timer);
        await Promise.all([worker.stop(), evaluator.stop()]);
        if ('stop' in stream) await stream.stop();
      },
      async close() {
        await fns.stop();
        if ('detach' in stream) stream.detach();
        for (const stop of stops.splice(0).reverse()) await stop();
      },
    };
    return fns;
  } catch (e) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw e;
  }
}
