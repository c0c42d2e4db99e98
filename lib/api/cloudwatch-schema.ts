// OpenAPI v3 structural schema of our CloudWatchMetricSpec (cloudwatch-types.ts), with CEL rules
// for what cloudwatch-validation.ts checks and CEL can express. Pure data, as lib/hpa/api/openapi-schema.ts.
import { type JSONSchemaProps, list, obj, rule, ruleWithMessageExpression, str, type ValidationRule } from '#hpa/api';
import { matches, regionProperty, roleArnProperty } from './aws-schema.js';
import { MAX_QUERIES_PER_REQUEST } from './cloudwatch-validation.js';

// The same patterns as cloudwatch-validation.ts (ID; REGION and ROLE_ARN are lib/shared/aws-patterns.cjs'), in RE2 syntax.
const ID_PATTERN = '^[a-z][a-zA-Z0-9_]*$';
// cloudwatch-statistic.ts: the shape of a statistic; bounds and percentages are left to the sync.
const NUMBER = '[0-9]+([.][0-9]{1,10})?';
const STAT_PATTERN = `^(SampleCount|Average|Sum|Minimum|Maximum|IQM|(p|tm|wm|tc|ts)${NUMBER}|(TM|WM|TC|TS|PR)[(](${NUMBER}%?)?:(${NUMBER}%?)?[)])$`;
const STAT_MESSAGE = 'must be SampleCount, Average, Sum, Minimum, Maximum, IQM, pNN, tmNN, wmNN, tcNN, tsNN or TM/WM/TC/TS/PR(lower:upper)';

/** CloudWatch's units (cloudwatch-validation.ts UNITS). */
export const CLOUDWATCH_UNITS =
  'Seconds Microseconds Milliseconds Bytes Kilobytes Megabytes Gigabytes Terabytes Bits Kilobits Megabits Gigabits Terabits Percent Count Bytes/Second Kilobytes/Second Megabytes/Second Gigabytes/Second Terabytes/Second Bits/Second Kilobits/Second Megabits/Second Gigabits/Second Terabits/Second Count/Second None'.split(
    ' ',
  );

// Plain integers (int64), as cloudwatch-validation.ts reads them.
const integer = (description: string, rules: ValidationRule[]): JSONSchemaProps => ({ type: 'integer', description, 'x-kubernetes-validations': rules });

const periodRule = rule('self > 0 && (self in [1, 5, 10, 20, 30] || self % 60 == 0)', 'must be 1, 5, 10, 20, 30 or a multiple of 60 (seconds)');

const metricStat = (): JSONSchemaProps =>
  obj(
    'A CloudWatch metric and the statistic to read (MetricDataQuery.MetricStat).',
    {
      metric: obj(
        'The metric.',
        {
          namespace: str('The metric namespace, e.g. AWS/SQS.', {
            minLength: 1,
            maxLength: 255,
            'x-kubernetes-validations': [rule("!self.startsWith(':')", 'must not start with ":"')],
          }),
          metricName: str('The metric name.', { minLength: 1, maxLength: 255 }),
          dimensions: {
            type: 'array',
            description: 'The dimensions; at most 30, names unique.',
            maxItems: 30,
            items: obj('A dimension.', { name: str('Dimension name.', { minLength: 1, maxLength: 255 }), value: str('Dimension value.', { minLength: 1, maxLength: 1024 }) }, ['name', 'value']),
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
          },
        },
        ['namespace', 'metricName'],
      ),
      period: integer('Seconds: 1, 5, 10, 20, 30 or a multiple of 60.', [periodRule]),
      stat: str('The statistic: Average, Sum, p99, TM(10%:90%)...', { minLength: 1, maxLength: 100, 'x-kubernetes-validations': [matches(STAT_PATTERN, STAT_MESSAGE)] }),
      unit: str('The unit to return the values in.', { enum: [...CLOUDWATCH_UNITS] }),
    },
    ['metric', 'period', 'stat'],
  );

const query = (): JSONSchemaProps =>
  obj(
    'One MetricDataQuery: a metricStat or a metric math expression.',
    {
      id: str('Id of the query, used by expressions: a lowercase letter, then letters, digits and underscores.', {
        maxLength: 255,
        'x-kubernetes-validations': [matches(ID_PATTERN, 'must start with a lowercase letter and contain only letters, digits and underscores')],
      }),
      metricStat: metricStat(),
      expression: str('Metric math over the other queries, SEARCH, or a Metrics Insights query.', { minLength: 1, maxLength: 2048 }),
      label: str('A label for the series.', { maxLength: 2048 }),
      returnData: { type: 'boolean', description: 'Whether this query is the metric value; default true, and exactly one query returns data.' },
      period: integer('Period of an expression, in seconds.', [periodRule]),
    },
    ['id'],
    {
      'x-kubernetes-validations': [
        rule('has(self.metricStat) || has(self.expression)', 'exactly one of metricStat or expression must be set', { reason: 'FieldValueRequired' }),
        rule('!has(self.metricStat) || !has(self.expression)', 'exactly one of metricStat or expression must be set', { reason: 'FieldValueForbidden' }),
        rule('!has(self.metricStat) || !has(self.period)', 'set metricStat.period instead (period applies to expressions)', {
          fieldPath: '.period',
          reason: 'FieldValueForbidden',
        }),
      ],
    },
  );

const RETURNING = 'self.queries.filter(q, !has(q.returnData) || q.returnData).size()';

/** shpa.dev/v1 CloudWatchMetricSpec. */
export function cloudWatchMetricSpecSchema(): JSONSchemaProps {
  return obj(
    'A named CloudWatch query; an HPA External metric whose name is this object\'s name (same namespace) reads it.',
    {
      queries: list('The GetMetricData queries; ids unique, exactly one returns data.', query(), {
        maxItems: MAX_QUERIES_PER_REQUEST,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
      }),
      region: regionProperty("AWS region of the metric; default: the function's region."),
      roleArn: roleArnProperty('An IAM role to assume for this query (another account).'),
      endTimeOffsetSeconds: integer("Seconds subtracted from now for the query's end time; 0 to 86400.", [rule('self >= 0 && self <= 86400', 'must be between 0 and 86400')]),
      lookbackPeriods: integer('How many periods back the latest complete datapoint may be; 1 to 1440, default 5.', [
        rule('self >= 1 && self <= 1440', 'must be between 1 and 1440'),
      ]),
      defaultValue: { type: 'number', description: 'Used when the query returns no datapoint; without it an empty result is a metric error.' },
      alarmName: str('A CloudWatch alarm whose state changes trigger an immediate evaluation of the autoscalers reading this metric.', {
        maxLength: 255,
        'x-kubernetes-validations': [
          rule('size(self) > 0', 'must be 1 to 255 characters (a CloudWatch alarm name)'),
          rule("!self.matches('[\\\\x00-\\\\x1f\\\\x7f]')", 'must not contain ASCII control characters (a CloudWatch alarm name)'),
        ],
      }),
    },
    ['queries'],
    {
      'x-kubernetes-validations': [
        rule('size(self.queries) > 0', 'at least one query is required', { fieldPath: '.queries', reason: 'FieldValueRequired' }),
        ruleWithMessageExpression(
          `size(self.queries) == 0 || ${RETURNING} == 1`,
          `${RETURNING} == 0 ? 'exactly one query must return data (returnData defaults to true)' : 'exactly one query must return data, found ' + string(${RETURNING}) + ': set returnData: false on the others (it defaults to true)'`,
          { fieldPath: '.queries' },
        ),
      ],
    },
  );
}
