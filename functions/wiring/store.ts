// The table (DynamoDB): the worker's store, and the dispatcher's cluster registry.
import { createDynamoStore, type DynamoStore } from '../../lib/store/index.js';
import type { FunctionConfig } from '#sync/messaging';
import type { LocalEndpoints } from './options.js';

export function createStore(config: Pick<FunctionConfig, 'region' | 'tableName'>, local?: LocalEndpoints): DynamoStore {
  return createDynamoStore({
    region: config.region,
    tableName: config.tableName,
    ...(local ? { endpoint: local.dynamoDb, credentials: local.credentials } : {}),
  });
}
