// The stack's own event bus for "evaluate now" events: only the principals of param
// eventSenderArns may put events on it (its resource policy), so that nobody else can make
// the worker evaluate. Alarm state changes come from CloudWatch on the account's default bus
// only; their rule (serverless.yml) matches the names param alarmNamePrefix starts.
'use strict';

const { getAtt, ref } = require('./cfn.cjs');

const busName = (c) => `${c.service}-${c.stage}-evaluate`;

/**
 * eventSenderArns "*": the bus's default, any principal of the account whose IAM allows PutEvents on it.
 * A list: those principals (of any account), and nobody else whatever their IAM says. Empty: nobody.
 */
function busPolicies(c) {
  if (c.eventSenderArns === '*') return {};
  const statement = (Sid, Effect, Condition) => ({
    Type: 'AWS::Events::EventBusPolicy',
    Properties: {
      EventBusName: ref('EvaluateBus'),
      StatementId: Sid,
      Statement: { Sid, Effect, Principal: '*', Action: 'events:PutEvents', Resource: getAtt('EvaluateBus', 'Arn'), ...(Condition ? { Condition } : {}) },
    },
  });
  const senders = c.eventSenderArns;
  if (senders.length === 0) return { EvaluateBusDenyAll: statement('NobodySendsEvaluations', 'Deny') };
  return {
    EvaluateBusAllowSenders: statement('SendersMaySendEvaluations', 'Allow', { ArnLike: { 'aws:PrincipalArn': senders } }),
    EvaluateBusDenyOthers: statement('OnlySendersSendEvaluations', 'Deny', { ArnNotLike: { 'aws:PrincipalArn': senders } }),
  };
}

function eventBusResources(c) {
  return {
    EvaluateBus: { Type: 'AWS::Events::EventBus', Properties: { Name: busName(c), Description: 'serverless-hpa: "evaluate now" events (shpa.dev / Evaluate Autoscaler)' } },
    ...busPolicies(c),
  };
}

module.exports = { busName, eventBusResources };
