// A local plugin (serverless.yml `plugins`): puts the stack tags (provider.stackTags, param
// `tags` plus defaults) on every resource of the template whose type takes tags, the ones the
// framework generates included (functions, log groups, event source mappings), so the packaged
// template shows them. CloudFormation also propagates stack tags at deploy, which covers the
// types with no Tags property (EventBridge rules).
'use strict';

/** Resource types of this stack whose CloudFormation schema has a Tags list of {Key, Value}. */
const TAGGABLE = [
  'AWS::CloudWatch::Alarm',
  'AWS::DynamoDB::Table',
  'AWS::EKS::AccessEntry',
  'AWS::Events::EventBus',
  'AWS::IAM::Role',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Logs::LogGroup',
  'AWS::S3::Bucket',
  'AWS::SNS::Topic',
  'AWS::SQS::Queue',
];

/** Adds each tag to each taggable resource, keeping a tag the resource already has under that key. */
function tagResources(template, tags) {
  for (const resource of Object.values(template.Resources ?? {})) {
    if (!TAGGABLE.includes(resource.Type)) continue;
    resource.Properties ??= {};
    const own = resource.Properties.Tags ?? [];
    const keys = new Set(own.map((t) => t.Key));
    resource.Properties.Tags = [...own, ...Object.entries(tags).filter(([k]) => !keys.has(k)).map(([Key, Value]) => ({ Key, Value: String(Value) }))];
  }
}

class TagResources {
  constructor(serverless) {
    this.hooks = {
      // after the framework's resources and serverless.yml's are merged, before the template is written
      'before:aws:package:finalize:saveServiceState': () => {
        const { provider } = serverless.service;
        tagResources(provider.compiledCloudFormationTemplate, provider.stackTags ?? {});
      },
    };
  }
}

module.exports = TagResources;
module.exports.TAGGABLE = TAGGABLE;
module.exports.tagResources = tagResources;
