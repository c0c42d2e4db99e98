// The one-line explanations of store failures the CLI prints.
import { describe, expect, it } from 'vitest';
import { explainStoreError } from '../../lib/store/errors.js';
import { VersionConflictError } from '../../lib/sync/ports/autoscaler-store.js';

const target = { tableName: 'shpa', region: 'eu-west-1' };

describe('explainStoreError', () => {
  it('a lost race: what changed, that nothing was written, and to run again', () => {
    expect(explainStoreError(new VersionConflictError('prod/default/web', 3), target)).toBe(
      'prod/default/web was changed by another writer while this command ran, so nothing was written: run the command again',
    );
  });
  it('a missing table names the table and where', () => {
    const e = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    expect(explainStoreError(e, target)).toBe('DynamoDB table "shpa" does not exist at AWS region eu-west-1: for a deployed stack pass --table serverless-hpa-STAGE --region REGION (or set SHPA_TABLE and AWS_REGION); to create this table run "shpa init"');
  });
  it('anything else is left to its own message', () => expect(explainStoreError(new Error('boom'), target)).toBeUndefined());
});
