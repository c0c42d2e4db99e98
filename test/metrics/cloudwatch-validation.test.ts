import { describe, expect, it } from 'vitest';
import { validateCloudWatchMetric } from '../../lib/api/cloudwatch-validation.js';
import { statisticProblem } from '../../lib/api/cloudwatch-statistic.js';
import { queueMetric, mathMetric, stat } from './cloudwatch-fixtures.js';

function errorsOf(input: unknown): string[] {
  const r = validateCloudWatchMetric(input);
  return r.valid ? [] : r.errors.map((e) => `${e.field}: ${e.type}: ${e.message}`);
}

function fields(input: unknown): string[] {
  const r = validateCloudWatchMetric(input);
  return r.valid ? [] : r.errors.map((e) => e.field);
}

describe('validateCloudWatchMetric', () => {
  it('accepts the documented example and returns it typed', () => {
    const doc = queueMetric('jobs-backlog', 'jobs');
    const r = validateCloudWatchMetric(doc);
    expect(r).toEqual({ valid: true, object: doc });
  });

  it('accepts metric math with one returning expression, role, offset, lookback and default', () => {
    const doc = mathMetric('ratio', [stat('errors', 'Errors', 'api'), stat('total', 'Requests', 'api'), { id: 'rate', expression: '100 * errors / total' }], {
      region: 'eu-west-1',
      roleArn: 'arn:aws:iam::123456789012:role/path/metrics-reader',
      endTimeOffsetSeconds: 60,
      lookbackPeriods: 10,
      defaultValue: 0,
    });
    expect(errorsOf(doc)).toEqual([]);
  });

  it.each([
    [0, false],
    [1, true],
    [5, true],
    [15, false],
    [30, true],
    [60, true],
    [90, false],
    [300, true],
    [60.5, false],
  ])('period %s valid=%s', (period, ok) => {
    const doc = queueMetric('q', 'jobs');
    doc.spec.queries[0].metricStat!.period = period;
    expect(fields(doc)).toEqual(ok ? [] : ['spec.queries[0].metricStat.period']);
  });

  it.each(['Average', 'Sum', 'SampleCount', 'Minimum', 'Maximum', 'IQM', 'p99', 'p99.9', 'p0', 'p100', 'tm90', 'wm98', 'tc90', 'ts99.5', 'TM(10%:90%)', 'TM(:95%)', 'TM(150:1000)', 'WM(10%:)', 'PR(:300)', 'PR(100:2000)', 'TC(0.5%:99.5%)'])(
    'statistic %s is valid',
    (s) => expect(statisticProblem(s)).toBeUndefined(),
  );

  it.each(['average', 'Avg', 'p101', 'p', 'tm', 'TM(:)', 'TM(90%:10%)', 'TM(10%:900)', 'PR(10%:90%)', 'TM(10%:120%)', 'X(1:2)', 'p99.12345678901'])(
    'statistic %s is rejected',
    (s) => {
      expect(statisticProblem(s)).toBeTypeOf('string');
      const doc = queueMetric('q', 'jobs');
      doc.spec.queries[0].metricStat!.stat = s;
      expect(fields(doc)).toEqual(['spec.queries[0].metricStat.stat']);
    },
  );

  it('enforces CloudWatch id rules and uniqueness', () => {
    const doc = mathMetric('ids', [stat('M1', 'A', 'x'), stat('m-2', 'B', 'y'), stat('ok', 'C', 'z'), { ...stat('ok', 'D', 'w'), returnData: true }]);
    expect(errorsOf(doc)).toEqual([
      'spec.queries[0].id: Invalid: must start with a lowercase letter and contain only letters, digits and underscores',
      'spec.queries[1].id: Invalid: must start with a lowercase letter and contain only letters, digits and underscores',
      'spec.queries[3].id: Duplicate: Duplicate value',
    ]);
  });

  it('requires exactly one of metricStat and expression', () => {
    const doc = mathMetric('x', [{ id: 'a', returnData: false }, { ...stat('b', 'B', 'y'), expression: 'a', returnData: true }]);
    expect(fields(doc)).toEqual(['spec.queries[0]', 'spec.queries[1]']);
  });

  it('requires exactly one query returning data (returnData defaults to true)', () => {
    const two = mathMetric('x', [{ ...stat('a', 'A', 'x'), returnData: undefined }, { ...stat('b', 'B', 'y'), returnData: undefined }]);
    expect(errorsOf(two)).toEqual(['spec.queries: Invalid: exactly one query must return data, found 2: set returnData: false on the others (it defaults to true)']);
    const none = mathMetric('x', [stat('a', 'A', 'x')]);
    expect(fields(none)).toEqual(['spec.queries']);
  });

  it('rejects expressions referring to unknown ids, themselves, or in a cycle', () => {
    expect(errorsOf(mathMetric('x', [stat('a', 'A', 'x'), { id: 'e', expression: 'a + b' }]))).toEqual([
      'spec.queries[1].expression: Invalid: refers to unknown id "b"',
    ]);
    expect(fields(mathMetric('x', [stat('a', 'A', 'x'), { id: 'e', expression: 'e + a' }]))).toEqual(['spec.queries[1].expression']);
    const cycle = mathMetric('x', [{ id: 'p', expression: 'q * 2', returnData: false }, { id: 'q', expression: 'p + 1' }]);
    expect(errorsOf(cycle)).toContain('spec.queries[0].expression: Invalid: expressions refer to each other in a cycle');
    expect(fields(mathMetric('x', [stat('a', 'A', 'x'), { id: 'e', expression: "a + 'unterminated" }]))).toEqual(['spec.queries[1].expression']);
  });

  it('does not read ids inside strings, functions or Metrics Insights queries', () => {
    const search = mathMetric('s', [{ id: 'e', expression: "SUM(SEARCH('{AWS/SQS,QueueName} visible', 'Average', 60))", period: 60 }]);
    expect(errorsOf(search)).toEqual([]);
    const insights = mathMetric('i', [{ id: 'e', expression: 'SELECT AVG(cpu_usage) FROM SCHEMA(App, host)', period: 300 }]);
    expect(errorsOf(insights)).toEqual([]);
    const noPeriod = mathMetric('i', [{ id: 'e', expression: 'SELECT AVG(cpu_usage) FROM App' }]);
    expect(fields(noPeriod)).toEqual(['spec.queries[0].period']);
  });

  it('checks dimensions, region, role, offset, lookback, default and unknown fields', () => {
    const doc = queueMetric('q', 'jobs', {
      region: 'Virginia',
      roleArn: 'arn:aws:iam::12345:user/me',
      endTimeOffsetSeconds: -1,
      lookbackPeriods: 0,
      defaultValue: Number.NaN,
    }) as unknown as Record<string, any>;
    doc.spec.queries[0].metricStat.metric.dimensions = [{ name: 'QueueName', value: 'a' }, { name: 'QueueName', value: '' }];
    doc.spec.queries[0].metricStat.unit = 'Furlongs';
    doc.spec.extra = true;
    expect(fields(doc)).toEqual([
      'spec.extra',
      'spec.queries[0].metricStat.metric.dimensions[1].value',
      'spec.queries[0].metricStat.metric.dimensions[1].name',
      'spec.queries[0].metricStat.unit',
      'spec.region',
      'spec.roleArn',
      'spec.endTimeOffsetSeconds',
      'spec.lookbackPeriods',
      'spec.defaultValue',
    ]);
  });

  it('names the envelope problems', () => {
    expect(fields({ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'Bad_Name' }, spec: {} })).toEqual([
      'apiVersion',
      'kind',
      'metadata.name',
      'spec.queries',
    ]);
    expect(fields('text')).toEqual(['<root>']);
  });
});

describe('METRICS()', () => {
  it('takes its period from the metricStat queries', () => {
    const doc = mathMetric('all', [stat('a', 'A', 'x'), stat('b', 'B', 'y'), { id: 'total', expression: 'SUM(METRICS())' }]);
    expect(errorsOf(doc)).toEqual([]);
  });
});
