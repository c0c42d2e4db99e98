// The logger and the EMF metrics of the functions that publish metrics (worker, dispatcher).
import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createLogger } from './logger.js';

/** The functions' Powertools logger and EMF metrics. */
export function createTelemetry(metricsNamespace = 'ServerlessHPA'): { logger: Logger; emf: Metrics } {
  return {
    logger: createLogger(),
    emf: new Metrics({ namespace: metricsNamespace, serviceName: 'serverless-hpa' }),
  };
}
