// With param auditLogEvaluations: a subscription on each in-stack cluster's control-plane log
// group sending the audit lines of our objects to the events function, which evaluates the
// objects created or edited within seconds (lib/sync/audit-events.ts, docs/kubernetes.md).
// The cluster must log `audit` to CloudWatch Logs already: the log group is EKS's, not ours.
'use strict';

const { getAtt, ref, sub } = require('./cfn.cjs');
const { inStack, logicalIdOf } = require('./access-entries.cjs');

/** Only our kinds' completed requests reach the function; it leaves out status writes and failures itself. */
const FILTER_PATTERN = '{ $.objectRef.apiGroup = "shpa.dev" && $.stage = "ResponseComplete" }';

function auditLogResources(c) {
  if (!c.auditLogEvaluations) return {};
  return Object.fromEntries(
    inStack(c).flatMap((cl) => {
      const logGroup = `/aws/eks/${cl.name}/cluster`;
      const permission = logicalIdOf('AuditLogPermission', cl.name);
      return [
        [
          permission,
          {
            Type: 'AWS::Lambda::Permission',
            Properties: {
              FunctionName: getAtt('EventsLambdaFunction', 'Arn'),
              Action: 'lambda:InvokeFunction',
              Principal: 'logs.amazonaws.com',
              SourceAccount: ref('AWS::AccountId'),
              SourceArn: sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${logGroup}:*`),
            },
          },
        ],
        [
          logicalIdOf('AuditLogSubscription', cl.name),
          {
            Type: 'AWS::Logs::SubscriptionFilter',
            DependsOn: [permission],
            Properties: { LogGroupName: logGroup, FilterPattern: FILTER_PATTERN, DestinationArn: getAtt('EventsLambdaFunction', 'Arn') },
          },
        ],
      ];
    }),
  );
}

module.exports = { FILTER_PATTERN, auditLogResources };
