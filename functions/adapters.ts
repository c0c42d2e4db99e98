// The worker's adapters, whole: DynamoDB, EKS, CloudWatch, SQS with the function role's
// credentials; or, for tests, the demo and `shpa local up`, the same clients pointed at local
// servers. Made once per Lambda container and kept (clients, tokens). The other functions
// take only the pieces they use (functions/wiring/), so their bundles carry no EKS or
// CloudWatch client.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RetryPolicy } from '../lib/cluster/index.js';
import type { DynamoStore } from '../lib/store/index.js';
import type { FunctionConfig } from '#sync/messaging';
import type { Clock } from '#sync/ports';
import type { WorkerDeps } from '#sync';
import type { SourceStats } from './log.js';
import { createClusterAdapters } from './wiring/cluster.js';
import { systemClock, type LocalEndpoints } from './wiring/options.js';
import { createWorkQueue } from './wiring/queue.js';
import { createStore } from './wiring/store.js';

export type { LocalEndpoints } from './wiring/options.js';

export interface AdapterOptions {
  clock?: Clock;
  local?: LocalEndpoints;
  retry?: Partial<RetryPolicy>;
}

export interface Adapters extends WorkerDeps {
  store: DynamoStore;
  sqs: SQSClient;
  sourceStats(): SourceStats;
}

export function createAdapters(config: FunctionConfig, options: AdapterOptions = {}): Adapters {
  const { clock = systemClock, local, retry } = options;
  const store = createStore(config, local);
  const { sqs, queue } = createWorkQueue(config, local);
  return { store, sqs, queue, clock, ...createClusterAdapters(config, store, { clock, local, retry }) };
}
