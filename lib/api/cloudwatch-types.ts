// Our own kind, shpa.dev/v1 CloudWatchMetric: a named CloudWatch query that an
// HPA's External metric reads when metric.name equals this object's name (same namespace).
// Field names follow CloudWatch's MetricDataQuery in camelCase.
import type { ObjectMeta } from '#hpa';

export interface CloudWatchDimension {
  name: string;
  value: string;
}

export interface CloudWatchMetricStat {
  metric: { namespace: string; metricName: string; dimensions?: CloudWatchDimension[] };
  period: number;
  stat: string;
  unit?: string;
}

export interface CloudWatchQuery {
  id: string;
  metricStat?: CloudWatchMetricStat;
  /** Metric math over the other queries' ids. */
  expression?: string;
  label?: string;
  /** Only one query of an object returns data; it is the metric's value. */
  returnData?: boolean;
  period?: number;
}

export interface CloudWatchMetricSpec {
  queries: CloudWatchQuery[];
  region?: string;
  /** An IAM role to assume for this query (another account). */
  roleArn?: string;
  /** Seconds subtracted from now for the query's end time. */
  endTimeOffsetSeconds?: number;
  /** How many periods back the latest complete datapoint may be; default 5. */
  lookbackPeriods?: number;
  /** Used when the query returns no datapoint; without it an empty result is a metric error. */
  defaultValue?: number;
  /** A CloudWatch alarm whose state changes trigger an immediate evaluation of the autoscalers reading this metric. */
  alarmName?: string;
}

export interface CloudWatchMetric {
  apiVersion: 'shpa.dev/v1';
  kind: 'CloudWatchMetric';
  metadata: ObjectMeta;
  spec: CloudWatchMetricSpec;
}
