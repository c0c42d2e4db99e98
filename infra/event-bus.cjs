// The stack's own event bus for "evaluate now" events: only the principals of param
// eventSenderArns may put events on it (its resource policy), so that nobody else can make
// the worker evaluate. Alarm state changes come from CloudWatch on the account's default bus
// only; their rule (serverless.yml) matches the names param alarmNamePrefix starts.
'use strict';

const { createHash } = require('node:crypto');
const { getAtt, ref } = require('./cfn.cjs');

const busName = (c) => `${c.service}-${c.stage}-evaluate`;

/**
 * A statement id of this service and stage (CloudFormation names an EventBusPolicy by it, so two
 * stages in one account and region must not share one): [A-Za-z0-9_-], at most 64 characters.
 */
function statementId(c, what) {
  const id = `${c.service}-${c.stage}-${what}`.replace(/[^A-Za-z0-9_-]/g, '-');
  if (id.length <= 64) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${id.slice(0, 64 - what.length - 10)}-${hash}-${what}`;
}

/**
 * eventSenderArns "*": the bus's default, any principal of the account whose IAM allows PutEvents on it.
 * A list: those principals (of any account), and nobody else whatever their IAM says. Empty: nobody.
 */
function busPolicies(c) {
  if (c.eventSenderArns === '*') return {};
  const statement = (what, Effect, Condition) => ({
    Type: 'AWS::Events::EventBusPolicy',
    Properties: {
      EventBusName: ref('EvaluateBus'),
      StatementId: statementId(c, what),
      Statement: { Sid: statementId(c, what), Effect, Principal: '*', Action: 'events:PutEvents', Resource: getAtt('EvaluateBus', 'Arn'), ...(Condition ? { Condition } : {}) },
    },
  });
  const senders = c.eventSenderArns;
  if (senders.length === 0) return { EvaluateBusDenyAll: statement('nobody-sends', 'Deny') };
  return {
    EvaluateBusAllowSenders: statement('senders-may-send', 'Allow', { ArnLike: { 'aws:PrincipalArn': senders } }),
    EvaluateBusDenyOthers: statement('only-senders-send', 'Deny', { ArnNotLike: { 'aws:PrincipalArn': senders } }),
  };
}

function eventBusResources(c) {
  return {
    EvaluateBus: { Type: 'AWS::Events::EventBus', Properties: { Name: busName(c), Description: 'serverless-hpa: "evaluate now" events (shpa.dev / Evaluate Autoscaler)' } },
    ...busPolicies(c),
  };
}

module.exports = { busName, eventBusResources, statementId };
