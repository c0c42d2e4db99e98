// The DynamoDB store: what the Lambda, the demo and the CLI import.
export { createDynamoClient, createDynamoStore, DynamoStore, type ApplyOutcome, type DynamoStoreOptions, type StoredSpec } from './dynamo-store.js';
export { DEFAULT_TABLE_NAME, ensureTable } from './table.js';
export { explainStoreError, type StoreTarget } from './errors.js';
export { DEFAULT_WRITE_POLICY, needsWrite, type CompactState, type WritePolicy } from './history.js';
export { KIND_CLOUDWATCH, KIND_HPA, type SpecKind } from './items.js';
