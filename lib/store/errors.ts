// One-line explanations, with the fix, of the ways talking to DynamoDB fails.
import { VersionConflictError } from '#sync/ports';

export interface StoreTarget {
  tableName: string;
  /** The endpoint in use, or undefined for AWS's regional one. */
  endpoint?: string;
  region: string;
}

const CREDENTIAL_ERRORS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'MissingAuthenticationTokenException',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'CredentialsProviderError',
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A message naming what failed and how to fix it, or undefined when the error is not one of these. */
export function explainStoreError(e: unknown, target: StoreTarget): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const where = target.endpoint ?? `AWS region ${target.region}`;
  const code = (e as { code?: string }).code ?? '';
  const name = e.name;
  if (e instanceof VersionConflictError) {
    return `${e.key} was changed by another writer while this command ran, so nothing was written: run the command again`;
  }
  if (name === 'ResourceNotFoundException') {
    // The usual cause is the CLI's default table rather than the deployed stack's (serverless-hpa-<stage>).
    return `DynamoDB table "${target.tableName}" does not exist at ${where}: for a deployed stack pass --table serverless-hpa-STAGE --region REGION (or set SHPA_TABLE and AWS_REGION); to create this table run "shpa init"`;
  }
  if (CREDENTIAL_ERRORS.has(name) || CREDENTIAL_ERRORS.has(code)) {
    return `DynamoDB at ${where} rejected the AWS credentials (${name}): set valid credentials (AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)`;
  }
  if (name === 'AccessDeniedException') {
    return `access to DynamoDB table "${target.tableName}" was denied: grant the caller dynamodb:* on it (see infra/)`;
  }
  if (UNREACHABLE_CODES.has(code) || UNREACHABLE_CODES.has(name) || name === 'TimeoutError' || /ECONNREFUSED|ENOTFOUND|socket hang up/.test(e.message)) {
    return `DynamoDB is unreachable at ${where} (${code || name}): check --endpoint / SHPA_DYNAMODB_ENDPOINT and --region, and that the server is running`;
  }
  return undefined;
}
