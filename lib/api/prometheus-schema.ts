// OpenAPI v3 structural schema of our PrometheusMetricSpec (prometheus-types.ts), with CEL rules
// for what prometheus-validation.ts checks and CEL can express. Pure data, as cloudwatch-schema.ts.
import { obj, rule, str, type JSONSchemaProps, type ValidationRule } from '../hpa/openapi-schema.js';

// The same patterns as prometheus-validation.ts and cloudwatch-validation.ts, in RE2 syntax.
const WORKSPACE_PATTERN = '^ws-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const REGION_PATTERN = '^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]{1,2}$';
const ROLE_ARN_PATTERN = '^arn:aws(-cn|-us-gov|-iso(-[a-z])?)?:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]{1,512}$';
const SECRET_ARN_PATTERN = '^arn:aws(-cn|-us-gov)?:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$';

const matches = (pattern: string, message: string): ValidationRule => rule(`self.matches('${pattern}')`, message);
const integer = (description: string, min: number, max: number): JSONSchemaProps => ({
  type: 'integer',
  description,
  'x-kubernetes-validations': [rule(`self >= ${min} && self <= ${max}`, `must be between ${min} and ${max}`)],
});
const region = (): JSONSchemaProps =>
  str("AWS region; default: the function's region.", { maxLength: 64, 'x-kubernetes-validations': [matches(REGION_PATTERN, 'must be an AWS region such as us-east-1')] });

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
          url: str('Base URL; /api/v1/query is appended.', { minLength: 1, maxLength: 2048, 'x-kubernetes-validations': [rule("self.startsWith('http://') || self.startsWith('https://')", 'must be an http or https URL')] }),
          bearerTokenSecretArn: str('A Secrets Manager secret holding the bearer token.', {
            maxLength: 2048,
            'x-kubernetes-validations': [matches(SECRET_ARN_PATTERN, 'must be a Secrets Manager secret ARN')],
          }),
        },
        ['url'],
      ),
      roleArn: str('An IAM role to assume for amp or cloudWatch (another account).', {
        maxLength: 2048,
        'x-kubernetes-validations': [matches(ROLE_ARN_PATTERN, 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name')],
      }),
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
