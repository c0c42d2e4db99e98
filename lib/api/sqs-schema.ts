// OpenAPI v3 structural schema of our SQSQueueMetricSpec (sqs-types.ts), with CEL rules for what
// sqs-validation.ts checks and CEL can express. Pure data, as cloudwatch-schema.ts.
import { type JSONSchemaProps, obj, rule, str } from '#hpa/api';
import { matches, regionProperty, roleArnProperty } from './aws-schema.js';

// The same patterns as sqs-types.ts and sqs-validation.ts (REGION and ROLE_ARN are lib/shared/aws-patterns.cjs'), in RE2 syntax.
const QUEUE_URL_PATTERN = '^https://(sqs[.][a-z0-9-]+[.]amazonaws[.]com([.]cn)?|[a-z0-9-]+[.]queue[.]amazonaws[.]com([.]cn)?)/[0-9]{12}/[A-Za-z0-9_-]{1,75}([.]fifo)?$';
const QUEUE_NAME_PATTERN = '^[A-Za-z0-9_-]{1,75}([.]fifo)?$';

const bool = (description: string): JSONSchemaProps => ({ type: 'boolean', description });

/** shpa.dev/v1 SQSQueueMetricSpec. */
export function sqsQueueMetricSpecSchema(): JSONSchemaProps {
  return obj(
    "An SQS queue's backlog, read live with GetQueueAttributes at every tick; an HPA External metric whose name is this object's name (same namespace) reads it.",
    {
      queueURL: str('The queue URL, https://sqs.<region>.amazonaws.com/<account>/<name>; or queueName with accountId.', {
        maxLength: 2048,
        'x-kubernetes-validations': [matches(QUEUE_URL_PATTERN, 'must be an https SQS queue URL such as https://sqs.us-east-1.amazonaws.com/123456789012/orders')],
      }),
      queueName: str('The queue name (ending in .fifo for a FIFO queue), with accountId and optionally region.', {
        maxLength: 80,
        'x-kubernetes-validations': [matches(QUEUE_NAME_PATTERN, 'must be 1 to 80 letters, digits, - or _, ending in .fifo for a FIFO queue')],
      }),
      region: regionProperty("With queueName: the queue's region; default: the function's region."),
      accountId: str("With queueName: the queue's 12-digit account.", { maxLength: 12, 'x-kubernetes-validations': [matches('^[0-9]{12}$', 'must be a 12-digit AWS account id')] }),
      roleArn: roleArnProperty('An IAM role to assume to read the queue (another account).'),
      scaleOnInFlight: bool('Count messages received and not yet deleted (ApproximateNumberOfMessagesNotVisible); default true, as KEDA.'),
      scaleOnDelayed: bool('Count messages sent with a delay not yet visible (ApproximateNumberOfMessagesDelayed); default false, as KEDA.'),
    },
    [],
    {
      'x-kubernetes-validations': [
        rule('has(self.queueURL) != has(self.queueName)', 'exactly one of queueURL or queueName must be set'),
        rule('!has(self.queueURL) || (!has(self.region) && !has(self.accountId))', 'region and accountId apply with queueName (queueURL says them)'),
        rule('!has(self.queueName) || has(self.accountId)', 'accountId must be set with queueName: the queue URL names the account', { fieldPath: '.accountId', reason: 'FieldValueRequired' }),
      ],
    },
  );
}
