// OpenAPI v3 structural schema of our PrometheusMetricSpec (prometheus-types.ts), with CEL rules
// for what prometheus-validation.ts checks and CEL can express. Pure data, as cloudwatch-schema.ts.
import { type JSONSchemaProps, obj, rule, str, type ValidationRule } from '#hpa/api';
import { matches, regionProperty, roleArnProperty } from './aws-schema.js';

// The same patterns as prometheus-validation.ts (REGION and ROLE_ARN are lib/shared/aws-patterns.cjs'), in RE2 syntax.
const WORKSPACE_PATTERN = '^ws-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const SECRET_ARN_PATTERN = '^arn:aws(-cn|-us-gov)?:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$';

const integer = (description: string, min: number, max: number): JSONSchemaProps => ({
  type: 'integer',
  description,
  'x-kubernetes-validations': [rule(`self >= ${min} && self <= ${max}`, `must be between ${min} and ${max}`)],
});
const region = (): JSONSchemaProps => regionProperty("AWS region; default: the function's region.");

// Server URLs, as endpoint-address.ts's serverUrlProblem checks them, as far as a regex can: the
// sync checks the rest (non-canonical IPv6, resolved addresses, the Lambda runtime API).
const HOST = '^[^/]*//';
const PORT_END = '(:[0-9]*)?(/|$)';
const URL_RULES: ValidationRule[] = [
  rule("self.matches('^[hH][tT][tT][pP][sS]?://')", 'must be an http or https URL'),
  rule("!self.matches('^[^/]*//[^/]*@')", 'must not carry credentials (use bearerTokenSecretArn)'),
  rule("!self.contains('?') && !self.contains('#')", 'must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)'),
  rule(
    `!self.matches('${HOST}(169[.]254|(0|22[4-9]|2[3-5][0-9])[.][0-9]+)[.][0-9]+[.][0-9]+${PORT_END}')`,
    'must not point at a link-local (169.254.0.0/16: the EC2, ECS and EKS metadata and credential endpoints), unspecified or multicast address',
  ),
  rule(
    `!self.matches('${HOST}([^/:]*[.])?([0-9]+|0[xX][0-9a-fA-F]*)[.]?${PORT_END}') || self.matches('${HOST}((0|[1-9][0-9]{0,2})[.]){3}(0|[1-9][0-9]{0,2})${PORT_END}')`,
    'must write an IPv4 host as four decimal numbers a.b.c.d',
  ),
  rule(
    `!self.matches('${HOST}[[]([fF][eE][89aAbB]|[fF][dD]00:0{0,3}[eE][cC]2:|[fF][fF]|[0:]*:[fF]{4}:|[0:]*:[^0-9a-fA-F:.])')`,
    'must not point at a link-local (fe80::/10), AWS metadata (fd00:ec2::/32), multicast, unspecified or IPv4-mapped IPv6 address',
  ),
  rule(`!self.matches('${HOST}instance-data([.:/]|$)')`, 'must not point at instance-data, the EC2 instance metadata endpoint'),
];

const ENDPOINTS = "[has(self.amp), has(self.cloudWatch), has(self.server)].filter(x, x).size()";

/** shpa.dev/v1 PrometheusMetricSpec. */
export function prometheusMetricSpecSchema(): JSONSchemaProps {
  return obj(
    "A named PromQL instant query; an HPA External metric whose name is this object's name (same namespace) reads the sum of its vector.",
    {
      query: str('A PromQL expression returning an instant vector, e.g. sum(rate(http_requests_total{namespace="web"}[1m])).', { minLength: 1, maxLength: 10_000 }),
      amp: obj(
        'An Amazon Managed Service for Prometheus workspace (SigV4, service aps).',
        {
          workspaceId: str('The workspace id, ws-…', { maxLength: 64, 'x-kubernetes-validations': [matches(WORKSPACE_PATTERN, 'must be an AMP workspace id such as ws-12345678-abcd-4ef0-9abc-123456789012')] }),
          region: region(),
          samplesProcessedWarningThreshold: integer('Query samples processed above which AMP warns; default 1,000,000.', 1, 1e12),
          samplesProcessedErrorThreshold: integer('Query samples processed above which AMP refuses the query (unbilled); default 10,000,000.', 1, 1e12),
        },
        ['workspaceId'],
      ),
      cloudWatch: obj("CloudWatch's PromQL endpoint (SigV4, service monitoring).", { region: region() }),
      server: obj(
        'A Prometheus-compatible HTTP API reachable from the function.',
        {
          url: str('Base URL; /api/v1/query is appended. Queried only where the deploy grants its origin (param metricAccess).', { minLength: 1, maxLength: 2048, 'x-kubernetes-validations': URL_RULES }),
          bearerTokenSecretArn: str('A Secrets Manager secret holding the bearer token.', {
            maxLength: 2048,
            'x-kubernetes-validations': [matches(SECRET_ARN_PATTERN, 'must be a Secrets Manager secret ARN')],
          }),
        },
        ['url'],
      ),
      roleArn: roleArnProperty('An IAM role to assume for amp or cloudWatch (another account).'),
      periodSeconds: integer('Seconds an answer stands (evaluated at the start of each period); 5 to 3600, default 15.', 5, 3_600),
    },
    ['query'],
    {
      'x-kubernetes-validations': [
        rule(`${ENDPOINTS} == 1`, 'exactly one of amp, cloudWatch or server must be set'),
        rule('!has(self.roleArn) || !has(self.server)', 'roleArn applies to amp and cloudWatch (a server is not signed with AWS credentials)', { fieldPath: '.roleArn', reason: 'FieldValueForbidden' }),
      ],
    },
  );
}
