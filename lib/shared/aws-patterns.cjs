// AWS names checked in four places that must agree: the deploy's parameters (infra/params.cjs, under plain
// Node at package time), the functions' environment (lib/sync/config.ts), our kinds' validation and CRD rules
// (lib/api) and `shpa cluster add`. CommonJS with its types beside it (aws-patterns.d.cts), as
// lib/sizing/shard-sizing.cjs. Each pattern is written once, in the syntax JavaScript and RE2 (CEL's
// matches(), which the CRDs' rules use) share.
'use strict';

/** AWS region names of every partition: us-east-1, us-gov-west-1, cn-north-1, us-isob-east-1. */
const REGION_PATTERN = '^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]{1,2}$';
/** IAM role ARNs of every partition, with an optional path (IAM's name characters, 512 at most). */
const ROLE_ARN_PATTERN = '^arn:aws(-cn|-us-gov|-iso(-[a-z])?)?:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]{1,512}$';
/** EKS's CreateCluster rule for cluster names: 1 to 100 characters. */
const CLUSTER_NAME_PATTERN = '^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$';

const REGION = new RegExp(REGION_PATTERN);
const ROLE_ARN = new RegExp(ROLE_ARN_PATTERN);
const CLUSTER_NAME = new RegExp(CLUSTER_NAME_PATTERN);

/** True for an AWS region name such as us-east-1. */
function isAwsRegion(s) {
  return REGION.test(s);
}

/** True for an IAM role ARN such as arn:aws:iam::123456789012:role/name. */
function isRoleArn(s) {
  return ROLE_ARN.test(s);
}

/** True for a name EKS accepts for a cluster. */
function isClusterName(s) {
  return CLUSTER_NAME.test(s);
}

module.exports = { REGION_PATTERN, ROLE_ARN_PATTERN, CLUSTER_NAME_PATTERN, REGION, ROLE_ARN, CLUSTER_NAME, isAwsRegion, isRoleArn, isClusterName };
