// The logger and the EMF metrics of the functions that publish metrics (worker, dispatcher).
import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createLogger } from './logger.js';

/** The functions' Powertools logger and EMF metrics; `stage` a dimension of every metric, so two stages in one account never share an alarm. */
export function createTelemetry(metricsNamespace = 'ServerlessHPA', stage?: string): { logger: Logger; emf: Metrics } {
  return {
    logger: createLogger(),
    emf: new Metrics({ namespace: metricsNamespace, serviceName: 'serverless-hpa', ...(stage ? { defaultDimensions: { stage } } : {}) }),
  };
}
