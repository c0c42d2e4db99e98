// The functions' Powertools logger and EMF metrics, keeping each line they would print: on
// local stacks they are what the demo shows, what tests read, and what `shpa local up` prints.
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

export type LogLine = Record<string, unknown> & { level?: string; message?: string };

/** A Logger that keeps each JSON line it would have printed (and passes it on, when asked). */
export class CapturingLogger extends Logger {
  lines: LogLine[] = [];
  onLine?: (line: LogLine) => void;
  protected override printLog(_level: number, log: LogItem): void {
    log.prepareForPrint();
    const line = JSON.parse(JSON.stringify(log.getAttributes(), this.getJsonReplacer())) as LogLine;
    this.lines.push(line);
    this.onLine?.(line);
  }
}

/** EMF metrics kept as the JSON documents CloudWatch would receive, not printed. */
export class CapturingMetrics extends Metrics {
  documents: Record<string, unknown>[] = [];
  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics()) this.documents.push(this.serializeMetrics() as unknown as Record<string, unknown>);
    this.clearMetrics();
    return this;
  }
}

export function capturingTelemetry(): { logger: CapturingLogger; emf: CapturingMetrics } {
  return {
    logger: new CapturingLogger({ serviceName: 'serverless-hpa' }),
    emf: new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' }),
  };
}
