// The roles are exact, not only narrow: every DynamoDB request the four functions make in an
// end-to-end run (test/functions/harness.ts, dynalite behind a recording proxy) is allowed by
// their roles' statements (infra/iam-policy.cjs), conditions included (dynamodb:LeadingKeys,
// dynamodb:Attributes, as IAM computes them), and not denied by the table's resource policy.
// A statement narrowed below what the code does, or code that starts writing a new attribute,
// fails here instead of in production with AccessDenied.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, type DynamoServer } from '../support/dynamo.js';
import { BACKLOG_METRIC, backlogMetric, backlogObject, CLUSTER, hpa, MIN, START, startHarness, type Harness } from '../functions/harness.js';
import type { Json } from './osls.js';

const require = createRequire(import.meta.url);
const { readParams } = require('../../infra/params.cjs') as { readParams(p: Record<string, unknown>, stack: Record<string, string>): Json };
const { stackResources } = require('../../infra/stack.cjs') as { stackResources(c: Json): Json };

interface Recorded {
  operation: string;
  body: Json;
}

/** A proxy in front of DynamoDB that records each request's operation and body. */
async function recordingProxy(target: string): Promise<{ endpoint: string; requests: Recorded[]; recording: boolean; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const state = { requests: [] as Recorded[], recording: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (state.recording) state.requests.push({ operation: String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '', body: JSON.parse(body.toString('utf8') || '{}') as Json });
      const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => req.socket.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  });
}

const EXPRESSION_WORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN', 'attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size', 'if_not_exists', 'list_append']);

/** What IAM sees of a request: dynamodb:LeadingKeys (partition key values) and dynamodb:Attributes (top-level names it touches). */
function conditionKeys({ body }: Recorded): { leadingKeys: string[]; attributes: string[] } {
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (body.ExpressionAttributeValues ?? {}) as Record<string, Json>;
  const attributes = new Set<string>([...Object.keys(body.Key ?? {}), ...Object.keys(body.Item ?? {})]);
  for (const field of ['UpdateExpression', 'ConditionExpression', 'KeyConditionExpression', 'ProjectionExpression', 'FilterExpression']) {
    for (const token of String(body[field] ?? '').match(/[#:]?[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
      if (token.startsWith(':') || EXPRESSION_WORDS.has(token)) continue;
      attributes.add(token.startsWith('#') ? names[token] : token);
    }
  }
  const pk = (body.Key ?? body.Item)?.pk?.S as string | undefined;
  let leadingKeys = pk === undefined ? [] : [pk];
  if (body.KeyConditionExpression) {
    const m = /(#?\w+)\s*=\s*(:\w+)/.exec(String(body.KeyConditionExpression));
    if (m && (names[m[1]] ?? m[1]) === 'pk') leadingKeys = [values[m[2]].S as string];
  }
  return { leadingKeys, attributes: [...attributes] };
}

const glob = (pattern: string, value: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(value);

/** Whether a statement's conditions hold for the request (the operators the stack's policies use). */
function conditionsHold(condition: Json | undefined, keys: { leadingKeys: string[]; attributes: string[] }): boolean {
  const of: Record<string, string[]> = { 'dynamodb:LeadingKeys': keys.leadingKeys, 'dynamodb:Attributes': keys.attributes };
  return Object.entries(condition ?? {}).every(([operator, tests]) =>
    Object.entries(tests as Record<string, string[]>).every(([key, allowed]) => {
      const got = of[key];
      if (!got) throw new Error(`condition key ${key} not evaluated here`);
      const match = operator.endsWith('StringLike') ? (v: string) => allowed.some((p) => glob(p, v)) : (v: string) => allowed.includes(v);
      if (operator.startsWith('ForAllValues:')) return got.every(match);
      if (operator.startsWith('ForAnyValue:')) return got.some(match);
      throw new Error(`operator ${operator} not evaluated here`);
    }),
  );
}

describe('DynamoDB requests of an end-to-end run, against the roles', () => {
  let db: DynamoServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let h: Harness;
  let template: Json;

  beforeAll(async () => {
    db = await startDynalite();
    proxy = await recordingProxy(db.endpoint);
    h = await startHarness({ server: { endpoint: proxy.endpoint, stop: async () => undefined }, kind: 'dynalite' });
    h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas: 2, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
    // what `shpa apply` writes is the spec writers' business: recorded from here on, the functions only
    await h.fns.admin.applySpec(CLUSTER, backlogObject, h.clock.now());
    await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {} }), h.clock.now());
    h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, (s) => (s * 1000 < START + 2 * MIN ? 20 : 200), 60);
    proxy.recording = true;
    await h.fns.drain();
    await h.run(4 * 4);
    proxy.recording = false;
    const config = readParams({ clusters: CLUSTER, namespaces: '*', specWriterArns: '*', tableName: 'serverless-hpa-dev', syncPeriodSeconds: '15', logLevel: 'INFO', logRetentionDays: 30, memorySize: 512, autoscalerSources: 'table,cluster' }, { service: 'serverless-hpa', stage: 'dev', region: 'us-east-1' });
    template = stackResources(config);
  }, 120_000);

  afterAll(async () => {
    await h?.stop();
    await proxy?.stop();
    await db?.stop();
  });

  it('recorded cycles that read, lease and save state, and the dispatcher reading the registry', () => {
    const seen = new Set(proxy.requests.map((r) => `${r.operation} ${conditionKeys(r).leadingKeys[0]?.replace(/#.*/, '#…')}`));
    for (const op of ['Query c#…', 'GetItem c#…', 'UpdateItem shard#…', 'UpdateItem c#…', 'GetItem clusters']) expect(seen, op).toContain(op);
    expect(h.decisions('web').length).toBeGreaterThan(10);
  });

  it('makes no request the roles do not allow, or the table policy denies', () => {
    const roles = Object.values(template.Resources as Json).filter((r) => r.Type === 'AWS::IAM::Role');
    const allows = roles.flatMap((r) => (r.Properties.Policies as Json[]).flatMap((p) => p.PolicyDocument.Statement as Json[]));
    const denies = template.Resources.AutoscalerTable.Properties.ResourcePolicy.PolicyDocument.Statement as Json[];
    const refused = new Set<string>();
    for (const r of proxy.requests) {
      const action = `dynamodb:${r.operation}`;
      const keys = conditionKeys(r);
      const what = `${action} pk=${keys.leadingKeys.join(',')} attributes=${keys.attributes.sort().join(',')}`;
      if (!allows.some((s) => (s.Action as string[]).includes(action) && conditionsHold(s.Condition, keys))) refused.add(`not allowed: ${what}`);
      // the default policy denies these to the four roles, whichever made the request
      for (const d of denies) if ((d.Action as string[]).includes(action) && conditionsHold(Object.fromEntries(Object.entries(d.Condition as Json).filter(([op]) => !op.startsWith('Arn'))), keys)) refused.add(`denied by ${d.Sid as string}: ${what}`);
    }
    expect([...refused]).toEqual([]);
  });
});
