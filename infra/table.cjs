// The autoscalers' table: retained when the stack goes, protected from deletion (param
// tableDeletionProtection), and a resource policy saying who may write autoscaler specs.
// With existingTableStreamArn set, the stack uses a table that already exists (a retained
// one, docs/deploy.md "The retained table") and creates none.
'use strict';

const { FUNCTIONS, SPEC_ATTRIBUTES, roleArn, tableArn } = require('./iam-policy.cjs');

/**
 * Spec items are the right to scale: their writers are named. With specWriterArns, nobody else
 * writes spec attributes, deletes autoscaler items or writes through PartiQL; without, the stack's
 * own functions are denied those (none needs them), whatever their roles come to allow.
 */
function specWritePolicy(c) {
  const others =
    c.specWriterArns.length > 0
      ? { ArnNotLike: { 'aws:PrincipalArn': c.specWriterArns } }
      : { ArnLike: { 'aws:PrincipalArn': FUNCTIONS.map((fn) => roleArn(c, fn)) } };
  const deny = (Sid, Action, Condition) => ({ Sid, Effect: 'Deny', Principal: '*', Action, Resource: tableArn(c), Condition });
  return {
    Version: '2012-10-17',
    Statement: [
      deny('SpecAttributesOnlyBySpecWriters', ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'], {
        'ForAnyValue:StringEquals': { 'dynamodb:Attributes': SPEC_ATTRIBUTES },
        ...others,
      }),
      // A put replaces the whole item: at an autoscaler's key it erases the spec, whatever attributes it names.
      deny('AutoscalerPutsOnlyBySpecWriters', ['dynamodb:PutItem'], {
        'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['c#*'] },
        ...others,
      }),
      deny('AutoscalerDeletesOnlyBySpecWriters', ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'], {
        'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['c#*'] },
        ...others,
      }),
      // PartiQL statements carry no attribute list to check.
      deny('PartiQLWritesOnlyBySpecWriters', ['dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'], others),
    ],
  };
}

function tableResource(c) {
  return {
    Type: 'AWS::DynamoDB::Table',
    // A stack delete keeps the table and its data; redeploy with existingTableStreamArn, or import it (docs/deploy.md).
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      TableName: c.tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      // The stream function reads spec changes (infra/stream-filter.json).
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // AWS-owned key, or (param kmsKeyArn) the customer's.
      SSESpecification: c.kmsKeyArn ? { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: c.kmsKeyArn } : { SSEEnabled: true },
      DeletionProtectionEnabled: c.tableDeletionProtection,
      ResourcePolicy: { PolicyDocument: specWritePolicy(c) },
    },
  };
}

/** The table resource, or none when the stack uses an existing table. */
function tableResources(c) {
  return c.existingTableStreamArn ? {} : { AutoscalerTable: tableResource(c) };
}

module.exports = { specWritePolicy, tableResources };
