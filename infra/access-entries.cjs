// EKS access entries the stack can create: for clusters in its own account and region
// (no roleArn), mapping the worker's role, which signs the EKS tokens, to the Kubernetes
// group infra/rbac.cjs binds. Other clusters: infra/cross-account-cluster-access.yaml.
'use strict';

const { getAtt } = require('./cfn.cjs');

const KUBERNETES_GROUP = 'shpa:autoscaler';

/** Clusters the stack gives access to itself. */
const inStack = (c) => c.clusters.filter((cl) => !cl.roleArn && cl.region === c.region);

/** A logical id per cluster name, without collisions ("a-b" and "ab" differ). */
const logicalIdOf = (prefix, name) => `${prefix}${name.replace(/^./, (ch) => ch.toUpperCase()).replace(/-/g, 'Dash').replace(/_/g, 'Underscore')}`;

function accessEntryResources(c) {
  return Object.fromEntries(
    inStack(c).map((cl) => [
      logicalIdOf('AccessEntry', cl.name),
      {
        Type: 'AWS::EKS::AccessEntry',
        Properties: {
          ClusterName: cl.name,
          PrincipalArn: getAtt('WorkerRole', 'Arn'),
          Type: 'STANDARD',
          KubernetesGroups: [KUBERNETES_GROUP],
        },
      },
    ]),
  );
}

/** The clusters whose access is set up outside the stack, and why. */
const outsideStack = (c) =>
  c.clusters.filter((cl) => !inStack(c).includes(cl)).map((cl) => (cl.roleArn ? `${cl.name} (role ${cl.roleArn})` : `${cl.name} (region ${cl.region})`));

module.exports = { KUBERNETES_GROUP, accessEntryResources, inStack, logicalIdOf, outsideStack };
