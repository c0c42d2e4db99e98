// The DynamoDB store: what the functions, the local stack and the CLI import.
export { createDynamoStore, DynamoStore, type ApplyOutcome, type DynamoStoreOptions, type RegisteredCluster, type StoredSpec } from './dynamo-store.js';
export { createDynamoClient, type DynamoClientOptions } from './dynamo-client.js';
export { DEFAULT_TABLE_NAME, ensureTable, type TableOptions } from './table.js';
export { explainStoreError, type StoreTarget } from './errors.js';
export { DEFAULT_WRITE_POLICY, needsWrite, type CompactState, type WritePolicy } from './history.js';
export { KIND_CLOUDWATCH, KIND_HPA, KIND_PROMETHEUS, type SpecKind } from './items.js';
