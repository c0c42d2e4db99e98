// The real sync handler (functions/sync.ts) wired to the local parts, its log lines
// captured instead of printed: they are what the demo shows and reports.
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { awsAdapters, createSyncHandler, type SyncResult } from '../../functions/sync.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../hpa/defaults.js';
import type { InvocationConfig } from '../sync/invocation.js';
import type { ClusterRecord } from '../sync/ports.js';
import type { VirtualClock } from './local-stack.js';

/** Local servers take any signature; these keep the SDK from looking for real credentials. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

export type LogLine = Record<string, unknown> & { level?: string; message?: string };

/** A Logger that keeps each JSON line it would have printed. */
class CapturingLogger extends Logger {
  lines: LogLine[] = [];
  protected override printLog(_level: number, log: LogItem): void {
    log.prepareForPrint();
    this.lines.push(JSON.parse(JSON.stringify(log.getAttributes(), this.getJsonReplacer())) as LogLine);
  }
}

export interface LocalHandlerOptions {
  cluster: ClusterRecord;
  /** The local API server's bearer token (EKS would get one signed with the role's credentials). */
  token: string;
  tableName: string;
  dynamoEndpoint: string;
  cloudWatchEndpoint: string;
  clock: VirtualClock;
  syncPeriodSeconds: number;
}

export interface LocalInvocation {
  result: SyncResult;
  /** Everything the handler logged, in order. */
  lines: LogLine[];
}

export async function localSyncHandler(o: LocalHandlerOptions): Promise<{ invoke(requestId: string): Promise<LocalInvocation> }> {
  // One cycle per invocation: the demo's loop plays the schedule.
  const config: InvocationConfig = {
    clusters: [o.cluster],
    syncPeriodSeconds: o.syncPeriodSeconds,
    scheduleIntervalSeconds: o.syncPeriodSeconds,
    options: { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 1_000 },
    safetyMarginMs: 5_000,
  };
  // The Lambda's own adapters, pointed at the local servers.
  const local = { dynamoDb: o.dynamoEndpoint, cloudWatch: o.cloudWatchEndpoint, credentials: LOCAL_CREDENTIALS, clusterToken: o.token };
  const adapters = () => awsAdapters({ ...config, tableName: o.tableName, region: LOCAL_REGION }, { clock: o.clock, local, maxAttempts: 1 });
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
  // EMF lines would go straight to stdout: off for the demo (read when Metrics objects are made, as in the handler's cold start).
  const emf = await metricsOff(() => new Metrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' }));
  const handler = createSyncHandler({ config, adapters, logger, emf, autoscalerMetrics: false });
  return {
    async invoke(requestId) {
      logger.lines = [];
      const context = {
        awsRequestId: requestId,
        functionName: 'serverless-hpa-demo-sync',
        functionVersion: '$LATEST',
        invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:serverless-hpa-demo-sync',
        memoryLimitInMB: '512',
        getRemainingTimeInMillis: () => 60_000,
      } as unknown as Context;
      const result = await metricsOff(() => handler({} as ScheduledEvent, context));
      return { result, lines: logger.lines };
    },
  };
}

/** Runs fn with POWERTOOLS_METRICS_DISABLED set (the cold-start metric makes its own Metrics object), then restores it. */
async function metricsOff<T>(fn: () => T | Promise<T>): Promise<T> {
  const before = process.env.POWERTOOLS_METRICS_DISABLED;
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
    else process.env.POWERTOOLS_METRICS_DISABLED = before;
  }
}
