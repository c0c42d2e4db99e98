// Schema properties of the AWS fields our metric kinds share (region, role), with the CEL rules and messages
// their validations use: one place for the CRDs' cloudwatch-, prometheus- and sqs-schema.ts.
import { type JSONSchemaProps, rule, str, type ValidationRule } from '#hpa/api';
import { REGION_PATTERN, ROLE_ARN_PATTERN } from '../shared/aws-patterns.cjs';

/** A CEL rule that the string matches an RE2 pattern. */
export const matches = (pattern: string, message: string): ValidationRule => rule(`self.matches('${pattern}')`, message);

export const regionProperty = (description: string): JSONSchemaProps =>
  str(description, { maxLength: 64, 'x-kubernetes-validations': [matches(REGION_PATTERN, 'must be an AWS region such as us-east-1')] });

export const roleArnProperty = (description: string): JSONSchemaProps =>
  str(description, { maxLength: 2048, 'x-kubernetes-validations': [matches(ROLE_ARN_PATTERN, 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/name')] });
