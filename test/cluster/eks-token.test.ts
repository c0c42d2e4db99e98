// EKS bearer tokens (no network: presigning is local), their STS hostname as the SDK's
// endpoint rules resolve it, and createClusterAccess wired through a local EKS
// DescribeCluster endpoint and a local STS AssumeRole.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EKSClient } from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterAccess, createEksTokenProvider, decodeEksToken, presignEksToken, stsHostname, tokenClusterId } from '../../lib/cluster/index.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { VirtualClock, fastRetry } from './fixture.js';

const creds = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };
const signingDate = new Date('2026-03-04T05:06:07Z');

/** SigV4 of a presigned GET, computed independently of @smithy/signature-v4. */
function expectedSignature(url: URL, headers: Record<string, string>, secret: string, region: string): string {
  const q = [...url.searchParams].filter(([k]) => k !== 'X-Amz-Signature');
  const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = q.map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join('&');
  const names = Object.keys(headers).sort();
  const canonical = ['GET', '/', canonicalQuery, ...names.map((n) => `${n}:${headers[n]}`), '', names.join(';'), createHash('sha256').update('').digest('hex')].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date')!;
  const scope = `${amzDate.slice(0, 8)}/${region}/sts/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(amzDate.slice(0, 8)).digest();
  for (const part of [region, 'sts', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('EKS token', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity bound to the cluster', async () => {
    const token = await presignEksToken({ clusterId: 'prod', region: 'eu-west-1', credentials: creds, signingDate });
    expect(token).toMatch(/^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const d = decodeEksToken(token);
    expect(d.url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(d.url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(d.url.searchParams.get('Version')).toBe('2011-06-15');
    expect(d.expiresSeconds).toBe(60);
    expect(d.signedHeaders).toEqual(['host', 'x-k8s-aws-id']);
    expect(d.amzDate).toBe('20260304T050607Z');
    expect(d.url.searchParams.get('X-Amz-Credential')).toBe('AKIDTEST/20260304/eu-west-1/sts/aws4_request');
    expect(d.url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(d.url, { host: 'sts.eu-west-1.amazonaws.com', 'x-k8s-aws-id': 'prod' }, 'test-secret', 'eu-west-1'),
    );
    // another cluster name signs differently: the token is bound to the cluster
    const other = decodeEksToken(await presignEksToken({ clusterId: 'dev', region: 'eu-west-1', credentials: creds, signingDate }));
    expect(other.url.searchParams.get('X-Amz-Signature')).not.toBe(d.url.searchParams.get('X-Amz-Signature'));
  });

  it('carries the session token of temporary credentials, and uses the China partition host', async () => {
    const d = decodeEksToken(await presignEksToken({ clusterId: 'c', region: 'cn-north-1', credentials: { ...creds, sessionToken: 'sess' }, signingDate }));
    expect(d.url.host).toBe('sts.cn-north-1.amazonaws.com.cn');
    expect(d.url.searchParams.get('X-Amz-Security-Token')).toBe('sess');
  });

  it('is signed for the FIPS host when asked, and binds that host and the cluster id', async () => {
    const hostname = await stsHostname('us-east-1', { useFipsEndpoint: true });
    const d = decodeEksToken(await presignEksToken({ clusterId: 'prod', region: 'us-east-1', credentials: creds, signingDate, hostname }));
    expect(d.url.origin).toBe('https://sts-fips.us-east-1.amazonaws.com');
    expect(d.url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(d.url, { host: hostname, 'x-k8s-aws-id': 'prod' }, 'test-secret', 'us-east-1'));
  });

  it('rejects what is not a token', () => {
    expect(() => decodeEksToken('Bearer abc')).toThrow('k8s-aws-v1.');
    expect(() => decodeEksToken('k8s-aws-v1.abc=')).toThrow('base64url');
  });

  it('is cached, re-signed after 10 minutes, before credentials expire, and after invalidate()', async () => {
    const clock = new VirtualClock(signingDate.getTime());
    let expiration = new Date(signingDate.getTime() + 3600_000);
    let reads = 0;
    const p = createEksTokenProvider({ clusterId: 'c', region: 'us-east-1', clock, credentials: async () => (reads++, { ...creds, expiration }) });
    const t1 = await p.getToken();
    clock.advance(9 * 60);
    expect(await p.getToken()).toBe(t1);
    clock.advance(61);
    const t2 = await p.getToken();
    expect(t2).not.toBe(t1);
    p.invalidate();
    clock.advance(1);
    const t3 = await p.getToken();
    expect(t3).not.toBe(t2);
    // credentials that expire in 3 minutes: the token is re-signed 1 minute before
    expiration = new Date(clock.now().getTime() + 180_000);
    p.invalidate();
    const t4 = await p.getToken();
    clock.advance(119);
    expect(await p.getToken()).toBe(t4);
    clock.advance(2);
    expect(await p.getToken()).not.toBe(t4);
    expect(reads).toBe(5);
  });
});

describe('STS hostname, from the SDK endpoint rules', () => {
  it.each([
    ['eu-west-1', {}, 'sts.eu-west-1.amazonaws.com'],
    ['us-east-1', {}, 'sts.us-east-1.amazonaws.com'], // regional, never the legacy global sts.amazonaws.com
    ['us-east-1', { useFipsEndpoint: true }, 'sts-fips.us-east-1.amazonaws.com'],
    ['us-east-1', { useDualstackEndpoint: true }, 'sts.us-east-1.api.aws'],
    ['cn-north-1', {}, 'sts.cn-north-1.amazonaws.com.cn'],
    ['cn-northwest-1', {}, 'sts.cn-northwest-1.amazonaws.com.cn'],
    ['us-gov-west-1', {}, 'sts.us-gov-west-1.amazonaws.com'],
    ['us-gov-east-1', { useFipsEndpoint: true }, 'sts.us-gov-east-1.amazonaws.com'],
    ['us-iso-east-1', {}, 'sts.us-iso-east-1.c2s.ic.gov'],
    ['us-isob-east-1', {}, 'sts.us-isob-east-1.sc2s.sgov.gov'],
  ])('%s %j: %s', async (region, config, host) => {
    expect(await stsHostname(region, config)).toBe(host);
  });

  it('follows AWS_USE_FIPS_ENDPOINT, as every SDK client in the function does', async () => {
    const before = process.env.AWS_USE_FIPS_ENDPOINT;
    process.env.AWS_USE_FIPS_ENDPOINT = 'true';
    try {
      expect(await stsHostname('us-west-2')).toBe('sts-fips.us-west-2.amazonaws.com');
      const p = createEksTokenProvider({ clusterId: 'c', region: 'us-west-2', credentials: async () => creds });
      expect(decodeEksToken(await p.getToken()).url.host).toBe('sts-fips.us-west-2.amazonaws.com');
    } finally {
      if (before === undefined) delete process.env.AWS_USE_FIPS_ENDPOINT;
      else process.env.AWS_USE_FIPS_ENDPOINT = before;
    }
    expect(await stsHostname('us-west-2')).toBe('sts.us-west-2.amazonaws.com');
  });
});

describe('x-k8s-aws-id', () => {
  it('is the name, or the id of a local cluster on Outposts', () => {
    expect(tokenClusterId({ id: 'abc' }, 'prod')).toBe('prod');
    expect(tokenClusterId({ id: '9d2a7b1c-0000-4000-8000-00000000abcd', outpostConfig: { outpostArns: [] } }, 'edge')).toBe(
      '9d2a7b1c-0000-4000-8000-00000000abcd',
    );
    expect(() => tokenClusterId({ outpostConfig: {} }, 'edge')).toThrow('runs on Outposts but DescribeCluster gave no id');
  });
});

describe('createClusterAccess against local EKS and STS endpoints', () => {
  const servers: Server[] = [];
  let k8s: K8sApiServer | undefined;
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    await k8s?.stop();
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const s = createServer(handler);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  it('finds the endpoint with DescribeCluster once, and authenticates with a token of the assumed role', async () => {
    const clock = new VirtualClock(Date.now());
    const model = new WorkloadModel({ clock });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'default', name: 'web', replicas: 2, selector: { app: 'web' } });
    const seen: string[] = [];
    k8s = await startK8sApiServer({
      model,
      // what aws-iam-authenticator checks before it asks STS
      token: (t) => {
        try {
          const d = decodeEksToken(t);
          seen.push(d.url.searchParams.get('X-Amz-Credential') ?? '');
          return d.expiresSeconds === 60 && d.signedHeaders.includes('x-k8s-aws-id') && d.url.searchParams.get('X-Amz-Security-Token') === 'assumed-session';
        } catch {
          return false;
        }
      },
    });
    let describes = 0;
    const eksUrl = await listen((req, res) => {
      describes++;
      expect(req.url).toBe('/clusters/prod');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ cluster: { name: 'prod', status: 'ACTIVE', endpoint: k8s!.url, certificateAuthority: { data: k8s!.caData } } }));
    });
    let assumes = 0;
    const stsUrl = await listen((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        assumes++;
        expect(new URLSearchParams(body).get('RoleArn')).toBe('arn:aws:iam::111122223333:role/shpa');
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>
<AccessKeyId>ASIAASSUMED</AccessKeyId><SecretAccessKey>s</SecretAccessKey><SessionToken>assumed-session</SessionToken>
<Expiration>${new Date(Date.now() + 3600_000).toISOString()}</Expiration></Credentials>
<AssumedRoleUser><Arn>arn:aws:sts::111122223333:assumed-role/shpa/x</Arn><AssumedRoleId>AROA:x</AssumedRoleId></AssumedRoleUser>
</AssumeRoleResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></AssumeRoleResponse>`);
      });
    });
    const access = createClusterAccess(
      { name: 'prod', region: 'us-east-1', roleArn: 'arn:aws:iam::111122223333:role/shpa' },
      {
        clock,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        sts: { endpoint: stsUrl, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
        eks: new EKSClient({ endpoint: eksUrl, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
        retry: fastRetry,
      },
    );
    const ref = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
    expect(await access.getScale('default', ref)).toMatchObject({ specReplicas: 2, selector: 'app=web' });
    await access.updateScale('default', ref, 3);
    expect(await access.listPods('default')).toHaveLength(3);
    expect(describes).toBe(1);
    expect(assumes).toBe(1);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toMatch(/^ASIAASSUMED\/\d{8}\/us-east-1\/sts\/aws4_request$/);
    await access.close();
  });

  it('signs the tokens of a local cluster on Outposts for its id, found with the same DescribeCluster', async () => {
    const clock = new VirtualClock(Date.now());
    const model = new WorkloadModel({ clock });
    model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'default', name: 'web', replicas: 2, selector: { app: 'web' } });
    const ID = '9d2a7b1c-0000-4000-8000-00000000abcd';
    const boundTo: string[] = [];
    k8s = await startK8sApiServer({
      model,
      // the signature holds only for the x-k8s-aws-id it was computed with
      token: (t) => {
        const d = decodeEksToken(t);
        const id = [ID, 'edge'].find((x) => expectedSignature(d.url, { host: d.url.host, 'x-k8s-aws-id': x }, 'test-secret', 'us-west-2') === d.url.searchParams.get('X-Amz-Signature'));
        boundTo.push(id ?? 'nothing');
        return id === ID;
      },
    });
    let describes = 0;
    const eksUrl = await listen((_req, res) => {
      describes++;
      res.writeHead(200, { 'content-type': 'application/json' });
      const outpostConfig = { outpostArns: ['arn:aws:outposts:us-west-2:111122223333:outpost/op-0abc'], controlPlaneInstanceType: 'm5.large' };
      res.end(JSON.stringify({ cluster: { name: 'edge', id: ID, status: 'ACTIVE', endpoint: k8s!.url, certificateAuthority: { data: k8s!.caData }, outpostConfig } }));
    });
    const access = createClusterAccess(
      { name: 'edge', region: 'us-west-2' },
      { clock, credentials: creds, eks: new EKSClient({ endpoint: eksUrl, region: 'us-west-2', credentials: creds }), retry: fastRetry },
    );
    expect(await access.listPods('default')).toHaveLength(2);
    expect(boundTo).toEqual([ID]);
    expect(describes).toBe(1);
    await access.close();
  });

  it('explains a DescribeCluster failure', async () => {
    const eksUrl = await listen((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      res.end(JSON.stringify({ message: 'No cluster found for name: gone.' }));
    });
    const access = createClusterAccess(
      { name: 'gone', region: 'us-east-1' },
      { credentials: creds, eks: new EKSClient({ endpoint: eksUrl, region: 'us-east-1', credentials: creds, maxAttempts: 1 }), retry: fastRetry },
    );
    await expect(access.listPods('default')).rejects.toThrow('DescribeCluster gone in us-east-1 failed: No cluster found for name: gone.');
  });
});
