// The logger and the EMF metrics of the functions that publish metrics (worker, dispatcher).
import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createLogger } from './logger.js';

/**
 * EMF metrics that publish only when there is something to publish. Our counts are sent only when non-zero (no
 * data is no error, and is not billed), so most invocations have none, and Powertools would warn at each flush
 * of the logMetrics middleware ("No application metrics to publish"): a log line per quiet invocation.
 */
export class SparseMetrics extends Metrics {
  override publishStoredMetrics(): this {
    return this.hasStoredMetrics() ? super.publishStoredMetrics() : this;
  }
}

/** The functions' Powertools logger and EMF metrics; `stage` a dimension of every metric, so two stages in one account never share an alarm. */
export function createTelemetry(metricsNamespace = 'ServerlessHPA', stage?: string): { logger: Logger; emf: Metrics } {
  return {
    logger: createLogger(),
    emf: new SparseMetrics({ namespace: metricsNamespace, serviceName: 'serverless-hpa', ...(stage ? { defaultDimensions: { stage } } : {}) }),
  };
}
