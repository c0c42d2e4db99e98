// What the pieces of the composition root share: the system clock, and on local stacks the
// local servers in place of AWS. Types and one constant only, so that any function's wiring
// can take them without importing another piece.
import type { ResolveHost } from '#transport';
import type { AwsCredentials } from '../../lib/cluster/index.js';
import type { Clock } from '#sync/ports';

export const systemClock: Clock = { now: () => new Date() };

/** Local servers in place of AWS (tests, demo, shpa local up): never set in the Lambda. */
export interface LocalEndpoints {
  dynamoDb: string;
  cloudWatch: string;
  sqs: string;
  /** Lambda's Invoke API (the evaluator's asynchronous invocations, lib/local/lambda/invoke-server.ts). */
  lambda?: string;
  credentials: AwsCredentials;
  /** Bearer token of clusters registered with an endpoint and caData. */
  clusterToken: string;
  /** Local stand-ins for AMP and CloudWatch's PromQL endpoint (base URLs). */
  prometheus?: { amp?: string; cloudWatch?: string };
  /** A resolver for server host names (tests mapping a name to an address); default: the system's. */
  resolve?: ResolveHost;
}
