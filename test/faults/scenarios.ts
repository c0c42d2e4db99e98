// The faults, each injected between the real clients and the local servers: the Kubernetes
// API server's fault injector (status, Retry-After, hang, reset, killed), the DynamoDB fault
// proxy, the CloudWatch endpoint's faults, hand-made items, and worker containers that die or
// overlap. docs/faults.md says what an operator sees for each.
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalFault } from '../../lib/local/cloudwatch/server.js';
import type { Fault as ApiFault, RequestRecord } from '../../lib/local/kubernetes/api-server.js';
import { bucketPk, KIND_HPA, shardCycleKey, specSk, stateSk } from '../../lib/store/items.js';
import { bucketOf } from '../../lib/sync/shards.js';
import type { FaultRule } from '../support/dynamo-faults.js';
import { CLUSTER, FLEET, inShard, key, PERIOD_SECONDS, RISE, SHARD0, SHARDS as SHARD_COUNT } from './fleet.js';
import { PERIOD_MS, type FaultStack } from './stack.js';
import type { ActiveFault, Scenario } from './suite.js';

const ALL = FLEET.map(key);
const SHOP = /\/namespaces\/shop\//;
const CART_SCALE = /\/namespaces\/shop\/deployments\/cart\/scale$/;
const SHARD0_NAMESPACES = [...new Set(inShard(SHARD0).map((k) => k.split('/')[0]))];
const SHARD0_SCALE = new RegExp(`/namespaces/(${SHARD0_NAMESPACES.join('|')})/deployments/[^/]+/scale$`);
/** Keys of the items a shard-0 request names: its cycle item, its bucket partitions (as they appear in a request's JSON). */
const SHARD0_KEYS = [`"shard#${SHARD0}"`, ...SHARD0_NAMESPACES.map((ns) => `"${bucketPk(CLUSTER, bucketOf(ns))}"`)];
const touchesShard0 = (r: { body: string }) => SHARD0_KEYS.some((k) => r.body.includes(k));
/** State writes (UpdateItem of an `st#` item) of shard 0. */
const shard0StateWrite = (r: { body: string }) => touchesShard0(r) && r.body.includes('"st#');
const QUEUE_METRIC = 'QueueBacklog';

const tickBody = (shard: string, atMs: number) => JSON.stringify({ kind: 'tick', shard, tick: new Date(atMs).toISOString().replace(/\.\d{3}Z$/, 'Z'), periodSeconds: PERIOD_SECONDS });

function apiFault(fault: ApiFault): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const from = s.k8s.requestLog.length;
    const remove = s.k8s.faults.add(fault);
    const matches = (r: RequestRecord) => (!fault.method || r.method === fault.method) && (typeof fault.path === 'string' ? r.path === fault.path : fault.path.test(r.path));
    // What the server did with it: not answered (-1), answered with the fault's status, or served with its answer lost.
    const met = (r: RequestRecord) => (fault.hang || fault.reset === 'request' ? r.status === -1 : fault.reset === 'answer' ? r.status < 300 : r.status === fault.status);
    const hit = (r: RequestRecord) => matches(r) && met(r);
    return { tried: () => Math.min(fault.times ?? Infinity, s.k8s.requestLog.slice(from).filter(hit).length), stop: remove };
  };
}

function dynamoFault(rule: FaultRule): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const before = s.dynamo.injected[rule.fault] ?? 0;
    return { tried: () => (s.dynamo.injected[rule.fault] ?? 0) - before, stop: s.dynamo.add(rule) };
  };
}

function cloudWatchFault(fault: LocalFault): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const from = s.cloudWatch.requests.length;
    const remove = s.cloudWatch.failWhile(fault, QUEUE_METRIC);
    return { tried: () => s.cloudWatch.requests.slice(from).filter((r) => r.fault === fault).length, stop: remove };
  };
}

/** apps/queue's CloudWatch metric answers `value` (undefined: no datapoint) while the fault is on. */
function metricValue(value: number | undefined): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const from = s.cloudWatch.requests.length;
    s.metricOverride.set('apps/queue', value);
    const reads = () => s.cloudWatch.requests.slice(from).filter((r) => JSON.stringify(r.body).includes(QUEUE_METRIC)).length;
    return { tried: reads, stop: () => void s.metricOverride.delete('apps/queue') };
  };
}

/** Something done to the table by hand at the start of the window (and undone after it, if `undo`). */
function tableEdit(edit: (s: FaultStack) => Promise<(() => Promise<void>) | void>): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const undo = await edit(s);
    return { tried: () => 1, stop: undo ?? undefined };
  };
}

const kubernetes: Scenario[] = [
  {
    name: 'Kubernetes 500',
    hits: 'every call in namespace shop',
    targets: ['shop/cart'],
    inject: apiFault({ path: SHOP, status: 500, reason: 'InternalError', message: 'etcdserver: request timed out' }),
    error: /etcdserver: request timed out/,
  },
  {
    name: 'Kubernetes 429 with Retry-After',
    hits: 'every call in namespace shop',
    targets: ['shop/cart'],
    inject: apiFault({ path: SHOP, status: 429, reason: 'TooManyRequests', retryAfterSeconds: 2, message: 'Too many requests, please try again later.' }),
    error: /Too many requests/,
  },
  {
    name: 'Kubernetes 409 on /scale',
    hits: 'writes of shop/cart /scale',
    targets: ['shop/cart'],
    inject: apiFault({ method: 'PATCH', path: CART_SCALE, status: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on deployments.apps "cart": the object has been modified; please apply your changes to the latest version and try again' }),
    error: /the object has been modified/,
  },
  {
    name: 'Kubernetes hang',
    hits: 'every call in namespace shop',
    targets: ['shop/cart'],
    inject: apiFault({ path: SHOP, hang: true }),
    error: /no answer within/,
  },
  {
    name: 'Kubernetes connection reset',
    hits: 'every call in namespace shop',
    targets: ['shop/cart'],
    inject: apiFault({ path: SHOP, reset: 'request' }),
    error: /socket hang up|ECONNRESET/,
  },
  {
    name: 'Kubernetes /scale answer lost',
    hits: 'writes of shop/cart /scale: applied, then the connection reset',
    targets: ['shop/cart'],
    inject: apiFault({ method: 'PATCH', path: CART_SCALE, reset: 'answer' }),
    error: /answer to the scale write was lost/,
  },
  {
    name: 'Kubernetes API server killed and restarted',
    hits: 'the whole cluster, for two ticks',
    targets: ALL,
    inject: async (s) => {
      await s.k8s.kill();
      return { tried: () => 1, stop: () => s.k8s.restart() };
    },
    error: /ECONNREFUSED/,
  },
];

const dynamodb: Scenario[] = [
  {
    name: 'DynamoDB conditional-check failure',
    hits: 'state writes of edge/gateway',
    targets: ['edge/gateway'],
    inject: dynamoFault({ operation: 'UpdateItem', fault: 'conditionalCheckFailed', when: (r) => r.body.includes(`"${stateSk('edge', 'gateway')}"`) }),
    error: /changed by another writer/,
  },
  {
    name: 'DynamoDB throttling',
    hits: `every request of shard ${SHARD0}`,
    targets: inShard(SHARD0),
    inject: dynamoFault({ fault: 'throttle', when: touchesShard0 }),
    error: /ProvisionedThroughputExceeded|throughput/,
  },
  {
    name: 'DynamoDB 500',
    hits: `every request of shard ${SHARD0}`,
    targets: inShard(SHARD0),
    inject: dynamoFault({ fault: 'internalError', when: touchesShard0 }),
    error: /InternalServerError|Internal server error/,
  },
  {
    name: 'DynamoDB lost request',
    hits: `state writes of shard ${SHARD0}`,
    targets: inShard(SHARD0),
    inject: dynamoFault({ operation: 'UpdateItem', fault: 'dropRequest', when: shard0StateWrite }),
    error: /socket hang up|ECONNRESET/,
  },
  {
    name: 'DynamoDB lost answer',
    hits: `state writes of shard ${SHARD0}: written, then the connection reset`,
    targets: inShard(SHARD0),
    inject: dynamoFault({ operation: 'UpdateItem', fault: 'dropResponse', when: shard0StateWrite }),
    error: /socket hang up|ECONNRESET/,
  },
  {
    name: 'DynamoDB endpoint down',
    hits: 'every request: connections refused',
    targets: ALL,
    inject: async (s) => {
      await s.dynamo.down();
      return { tried: () => 1, stop: () => s.dynamo.up() };
    },
    error: /ECONNREFUSED/,
  },
  {
    name: 'DynamoDB endpoint hung',
    hits: `every request of shard ${SHARD0}, for one tick`,
    targets: inShard(SHARD0),
    window: [RISE, RISE],
    inject: dynamoFault({ fault: 'hang', when: touchesShard0 }),
    error: /timed? ?out|no answer/i,
  },
];

const cloudWatch: Scenario[] = [
  { name: 'CloudWatch 5xx', hits: `metric ${QUEUE_METRIC}`, targets: ['apps/queue'], inject: cloudWatchFault('InternalError'), error: /InternalServiceFault|Internal service error/ },
  { name: 'CloudWatch throttling', hits: `metric ${QUEUE_METRIC}`, targets: ['apps/queue'], inject: cloudWatchFault('Throttling'), error: /Throttling|Rate exceeded/ },
  { name: 'CloudWatch AccessDenied', hits: `metric ${QUEUE_METRIC}`, targets: ['apps/queue'], inject: cloudWatchFault('AccessDenied'), error: /not authorized|AccessDenied/ },
  { name: 'CloudWatch PartialData', hits: `metric ${QUEUE_METRIC}`, targets: ['apps/queue'], inject: cloudWatchFault('PartialData'), error: /PartialData/ },
  { name: 'CloudWatch hang', hits: `metric ${QUEUE_METRIC}`, targets: ['apps/queue'], inject: cloudWatchFault('Hang'), error: /queuebacklog answered \(still waiting\)|no answer within/ },
];

const metrics: Scenario[] = [
  // While the workload is above its minimum and demand is high. A negative value is a value (metric math goes below
  // zero; upstream uses it): the fewer replicas it asks for are no harm, but the decision must say it at WARN.
  { name: 'metric value negative', hits: `metric ${QUEUE_METRIC}: -50`, targets: ['apps/queue'], window: [RISE + 3, RISE + 4], inject: metricValue(-50), error: /negative value/i },
  { name: 'metric value NaN', hits: `metric ${QUEUE_METRIC}: NaN`, targets: ['apps/queue'], inject: metricValue(NaN), invalidInputs: true, error: /not a finite number/ },
  // Before demand rises: a huge value asks for the maximum.
  { name: 'metric value huge', hits: `metric ${QUEUE_METRIC}: 1e300`, targets: ['apps/queue'], window: [0, 1], inject: metricValue(1e300), invalidInputs: true, error: /1e\+?300|out of range|too large|overflow/i },
  { name: 'metric value missing', hits: `metric ${QUEUE_METRIC}: no datapoint`, targets: ['apps/queue'], inject: metricValue(undefined), invalidInputs: true, error: /no datapoint/ },
];

const cycles: Scenario[] = [
  {
    name: 'worker killed mid-cycle',
    hits: `the cycle of shard ${SHARD0}, between its state write and its /scale write`,
    targets: inShard(SHARD0),
    window: [RISE, RISE],
    inject: async (s) => {
      let killed = 0;
      return {
        tried: () => killed,
        async tick() {
          // A container takes shard 0's tick off the queue; dead, it never deletes it (back after the visibility timeout).
          const sqs = s.fns.adapters.sqs;
          const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: s.fns.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
          let body: string | undefined;
          for (const m of got.Messages ?? []) {
            if (!body && m.Body === tickBody(SHARD0, s.clock.t)) body = m.Body;
            else await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: s.fns.queueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
          }
          if (!body) throw new Error(`no tick of shard ${SHARD0} at ${s.clock.now().toISOString()} in the queue`);
          const doomed = s.container({ clock: s.clock, killOnScaleWrite: true });
          if (await Promise.race([doomed.killed.then(() => true), doomed.invoke(body).then(() => false)])) killed++;
          await s.fns.drain();
        },
      };
    },
    error: /never reached|still running/,
  },
  {
    name: 'overlapping cycles: a cycle outlives its lease',
    hits: `shard ${SHARD0}: its /scale writes applied late, after a second worker on the shard read the scales`,
    targets: inShard(SHARD0),
    window: [RISE, RISE],
    inject: async (s) => {
      let overlapped = 0;
      return {
        tried: () => overlapped,
        async tick() {
          const from = s.k8s.requestLog.length;
          let open!: () => void;
          // An API server that holds the first worker's /scale writes (and any other) until the gate opens...
          const held = s.k8s.faults.add({ method: 'PATCH', path: SHARD0_SCALE, waitFor: new Promise<void>((resolve) => (open = resolve)) });
          try {
            const first = s.fns.drain();
            await until(() => s.k8s.requestLog.slice(from).some((r) => r.method === 'PATCH' && SHARD0_SCALE.test(r.path)));
            // ...while a second worker, two periods later by its clock, finds the first one's lease expired and reads the scales.
            const later = s.clock.t + 2 * PERIOD_MS;
            const read = s.k8s.requestLog.length;
            const second = s.container({ clock: { now: () => new Date(later) } }).invoke(tickBody(SHARD0, later));
            await until(() => s.k8s.requestLog.slice(read).filter((r) => r.method === 'GET' && r.status === 200 && SHARD0_SCALE.test(r.path)).length >= inShard(SHARD0).length);
            overlapped++;
            open();
            await Promise.all([first, second]);
          } finally {
            open();
            held();
          }
        },
      };
    },
    error: /lease\b.*\b(expired|taken over)|overlap/i,
  },
  {
    name: 'overlapping cycles: one tick delivered twice at once',
    hits: `shard ${SHARD0}: each tick also to a second worker`,
    targets: inShard(SHARD0),
    inject: async (s) => {
      let duplicated = 0;
      return {
        tried: () => duplicated,
        async tick() {
          duplicated++;
          await Promise.all([s.runTick(), s.container({ clock: s.clock }).invoke(tickBody(SHARD0, s.clock.t))]);
        },
      };
    },
    error: /already ran|still running/,
  },
];

const specKey = { pk: bucketPk(CLUSTER, bucketOf('apps')), sk: specSk(KIND_HPA, 'apps', 'web') };
const stateKey = { pk: bucketPk(CLUSTER, bucketOf('edge')), sk: stateSk('edge', 'gateway') };

const items: Scenario[] = [
  {
    name: 'corrupt spec item',
    hits: 'the spec of apps/web (restored after the window)',
    targets: ['apps/web'],
    inject: tableEdit(async (s) => {
      const original = (await s.db.send(new GetCommand({ TableName: s.table, Key: specKey }))).Item!;
      await s.db.send(new PutCommand({ TableName: s.table, Item: { ...original, doc: '{"spec": tru' } }));
      return async () => void (await s.db.send(new PutCommand({ TableName: s.table, Item: original })));
    }),
    error: /cannot be read/,
  },
  {
    name: 'corrupt state item',
    hits: 'the state of edge/gateway',
    targets: ['edge/gateway'],
    window: [RISE + 1, RISE + 1],
    historyReset: true,
    inject: tableEdit(async (s) => {
      const state = (await s.db.send(new GetCommand({ TableName: s.table, Key: stateKey }))).Item!;
      await s.db.send(new PutCommand({ TableName: s.table, Item: { ...state, rec: '{oops', up: JSON.stringify([[s.clock.t, 2_000_000_000]]) } }));
    }),
    error: /the stored history could not all be trusted \(scale-up events dropped .*recommendations dropped \(rec is not JSON\)\): .*held until/,
  },
  {
    name: 'corrupt marker item',
    hits: `the cycle marker of shard ${SHARD0}: a day ahead`,
    targets: inShard(SHARD0),
    inject: tableEdit(async (s) => {
      await s.db.send(
        new UpdateCommand({ TableName: s.table, Key: shardCycleKey(SHARD0), UpdateExpression: 'SET #at = :at', ExpressionAttributeNames: { '#at': 'at' }, ExpressionAttributeValues: { ':at': s.clock.t + 86_400_000 } }),
      );
    }),
    error: /cycle marker is in the future/,
  },
  {
    name: 'corrupt lease item',
    hits: `the lease of shard ${SHARD0}: an expiry of the wrong type, then a year ahead with a tick from the future`,
    targets: inShard(SHARD0),
    inject: async (s) => {
      let edits = 0;
      return {
        tried: () => edits,
        async tick() {
          const attrs = edits === 0 ? { owner: 'ghost', exp: 'tomorrow' } : { owner: 'ghost', exp: s.clock.t + 365 * 86_400_000, tick: s.clock.t + 86_400_000 };
          const names = Object.keys(attrs);
          await s.db.send(
            new UpdateCommand({
              TableName: s.table,
              Key: shardCycleKey(SHARD0),
              UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
              ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
              ExpressionAttributeValues: Object.fromEntries(Object.entries(attrs).map(([n, v]) => [`:${n}`, v])),
            }),
          );
          edits++;
          await s.runTick();
        },
      };
    },
    error: /had an expiry that/,
  },
];

/**
 * SQS failing while the dispatcher sends its minute's ticks (at tick 0, the run's one minute):
 * what it did not take is sent again, each tick keeping its second, and the dispatch line says so.
 */
function dispatchFault(fault: Parameters<FaultStack['fns']['sqs']['failNext']>[1], times: number): (s: FaultStack) => Promise<ActiveFault> {
  return async (s) => {
    const before = s.fns.sqs.count('SendMessageBatch');
    s.fns.sqs.failNext('SendMessageBatch', fault, times);
    // A clean send is a call per ten ticks; the calls beyond those met the fault (or resent what it refused).
    const clean = Math.ceil((SHARD_COUNT * (60 / PERIOD_SECONDS)) / 10);
    return { tried: () => Math.min(times, Math.max(0, s.fns.sqs.count('SendMessageBatch') - before - clean)), stop: () => s.fns.sqs.clearFaults() };
  };
}

const queue: Scenario[] = [
  {
    name: "SQS failing the dispatcher's batch",
    hits: "the dispatcher's first SendMessageBatch of the minute, every attempt the SDK makes",
    targets: FLEET.map(key),
    window: [0, 0],
    inject: dispatchFault('internal-error', 3),
    error: /SQS SendMessageBatch failed/,
  },
  {
    name: "SQS refusing entries of the dispatcher's batch",
    hits: "three ticks of the dispatcher's first SendMessageBatch of the minute",
    targets: FLEET.map(key),
    window: [0, 0],
    inject: dispatchFault({ failEntries: ['0', '3', '7'] }, 1),
    error: /InternalFailure/,
  },
];

export const GROUPS = { kubernetes, dynamodb, cloudWatch, metrics, cycles, items, queue };
export const SCENARIOS: Scenario[] = Object.values(GROUPS).flat();

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error('the workers did not reach the point the scenario waits for within 5 s');
}
