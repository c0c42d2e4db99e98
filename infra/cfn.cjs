// CloudFormation intrinsics as the infra modules write them.
'use strict';

const sub = (text) => ({ 'Fn::Sub': text });
const getAtt = (resource, attribute) => ({ 'Fn::GetAtt': [resource, attribute] });
const ref = (name) => ({ Ref: name });

module.exports = { sub, getAtt, ref };
