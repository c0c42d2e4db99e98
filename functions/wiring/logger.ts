// What every function needs before anything else: its logger, and the guard that turns a bad
// configuration into a handler that fails with its message. No EMF here: the stream and
// events functions never publish a metric, so they do not carry Powertools metrics.
import { Logger } from '@aws-lambda-powertools/logger';
import { errorText } from '../../lib/shared/error-text.js';

/** The functions' Powertools logger (level from POWERTOOLS_LOG_LEVEL). */
export function createLogger(): Logger {
  return new Logger({ serviceName: 'serverless-hpa' });
}

/** Wraps a handler factory: a bad configuration fails every invocation with its message (and a log line), never silently. */
export function withConfig<H extends (...args: never[]) => Promise<unknown>>(logger: Logger, make: () => H): H {
  try {
    return make();
  } catch (e) {
    const message = errorText(e);
    return (async () => {
      logger.error('configuration error', { configError: message });
      throw new Error(`serverless-hpa configuration: ${message}`);
    }) as unknown as H;
  }
}
