// functions/redact.ts: what the functions log never carries a credential or a token, in
// whichever form an error message or a payload quotes it; what is not a secret stays readable.
import { describe, expect, it } from 'vitest';
import { redact, redactAll } from '../../functions/redact.js';
import { presignEksToken } from '../../lib/cluster/eks-token.js';

const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const TEMP_KEY = 'ASIAQWERTYUIOPASDFGH';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION = 'IQoJb3JpZ2luX2VjEHoaCXVzLWVhc3QtMSJHMEUCIQD';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';

describe('redact', () => {
  it.each([
    // the forms the issue names: the header form of the session token, raw keys
    ['X-Amz-Security-Token header', `request headers: X-Amz-Security-Token: ${SESSION}, host: sts`, 'request headers: X-Amz-Security-Token…[redacted], host: sts', [SESSION]],
    ['lower-case header without space', `x-amz-security-token:${SESSION}`, 'x-amz-security-token…[redacted]', [SESSION]],
    ['header quoted in JSON', `{"x-amz-security-token":"${SESSION}","accept":"*/*"}`, '{"x-amz-security-token…[redacted]","accept":"*/*"}', [SESSION]],
    ['raw access key ids', `key ${ACCESS_KEY} then ${TEMP_KEY}.`, 'key AKIA…[redacted] then ASIA…[redacted].', [ACCESS_KEY, TEMP_KEY]],
    ['a raw secret key', `secret is ${SECRET} here`, 'secret is …[redacted] here', [SECRET]],
    ['a labelled secret key', `aws_secret_access_key = ${SECRET}`, 'aws_secret_access_key…[redacted]', [SECRET]],
    ['SDK credentials quoted', `{"accessKeyId":"${TEMP_KEY}","secretAccessKey":"${SECRET}","sessionToken":"${SESSION}"}`, '{"accessKeyId":"ASIA…[redacted]","secretAccessKey…[redacted]","sessionToken…[redacted]"}', [TEMP_KEY, SECRET, SESSION]],
    ['an STS answer', `<Credentials><AccessKeyId>${TEMP_KEY}</AccessKeyId><SecretAccessKey>${SECRET}</SecretAccessKey><SessionToken>${SESSION}</SessionToken></Credentials>`, '<Credentials><AccessKeyId>ASIA…[redacted]</AccessKeyId>SecretAccessKey…[redacted]SessionToken…[redacted]</Credentials>', [TEMP_KEY, SECRET, SESSION]],
    // the forms redacted before
    ['presigned query', `GET https://sts.amazonaws.com/?X-Amz-Credential=${ACCESS_KEY}%2F20260302&X-Amz-Security-Token=${SESSION}&X-Amz-Signature=deadbeef01 failed`, 'GET https://sts.amazonaws.com/?X-Amz-Credential…[redacted]&X-Amz-Security-Token…[redacted]&X-Amz-Signature…[redacted] failed', [ACCESS_KEY, SESSION, 'deadbeef01']],
    ['bearer token quoted in JSON', `request failed: {"headers":{"authorization":"Bearer ${JWT}"}}`, 'request failed: {"headers":{"authorization":"Bearer…[redacted]"}}', [JWT]],
    ['a URL with user:pass@', 'query failed: http://admin:hunter2@prom.internal:9090/api/v1/query', 'query failed: http://[redacted]@prom.internal:9090/api/v1/query', ['admin', 'hunter2']],
    ['a URL with a user alone, quoted', '{"url":"https://token-abc123@prom.example.com"}', '{"url":"https://[redacted]@prom.example.com"}', ['token-abc123']],
    ['authorization header with its scheme', `Authorization: Bearer ${JWT}`, 'Authorization: Bearer…[redacted]', [JWT]],
    ['SigV4 authorization header', `Authorization: AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/20260302/eu-west-1/sts/aws4_request, SignedHeaders=host, Signature=0123abcd`, 'Authorization: AWS4-HMAC-SHA256…[redacted]', [ACCESS_KEY, '0123abcd']],
  ])('%s', (_what, text, expected, secrets) => {
    const out = redact(text);
    expect(out).toBe(expected);
    for (const s of secrets) expect(out).not.toContain(s);
    // redacting twice changes nothing
    expect(redact(out)).toBe(out);
  });

  it('redacts an EKS token the signer makes, whole', async () => {
    const token = await presignEksToken({
      clusterId: 'prod',
      region: 'eu-west-1',
      credentials: { accessKeyId: TEMP_KEY, secretAccessKey: SECRET, sessionToken: SESSION },
      signingDate: new Date('2026-03-02T10:00:00Z'),
    });
    expect(redact(`Unauthorized: token ${token} rejected`)).toBe('Unauthorized: token k8s-aws-v1…[redacted] rejected');
  });

  it('leaves what is not a secret: digests, uids, resource versions, ARNs, messages', () => {
    for (const text of [
      'sha1 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12, sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'uid 9d2a7b1c-0000-4000-8000-00000000abcd at resourceVersion 123456789',
      'arn:aws:iam::123456789012:role/serverless-hpa-prod-eu-west-1-worker is not authorized to perform: eks:DescribeCluster',
      'deployments.apps "web" is forbidden: User "shpa" cannot patch resource "deployments/scale"',
      'ThisIsALongCamelCaseIdentifierWithNoDigits',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('redactAll', () => {
  it('redacts every string of a payload, and every value under a secret key whatever it looks like', () => {
    const payload = {
      message: `token k8s-aws-v1.aHR0cHM6Ly9zdHM rejected`,
      request: { headers: { Authorization: 'opaque', 'X-Amz-Security-Token': 'short', accept: 'application/json' } },
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: 'abc', sessionToken: 'def', expiration: '2026-03-02T11:00:00Z' },
      errors: [{ stage: 'getScale', message: `x-amz-security-token: ${SESSION}` }],
      replicas: 3,
      empty: null,
    };
    expect(redactAll(payload)).toEqual({
      message: 'token k8s-aws-v1…[redacted] rejected',
      request: { headers: { Authorization: '[redacted]', 'X-Amz-Security-Token': '[redacted]', accept: 'application/json' } },
      credentials: { accessKeyId: 'AKIA…[redacted]', secretAccessKey: '[redacted]', sessionToken: '[redacted]', expiration: '2026-03-02T11:00:00Z' },
      errors: [{ stage: 'getScale', message: 'x-amz-security-token…[redacted]' }],
      replicas: 3,
      empty: null,
    });
    expect(payload.credentials.secretAccessKey).toBe('abc');
  });

  it('keeps a string whole when a match would end at a JSON escape', () => {
    const line = redactAll({ message: `{"authorization":"Bearer ${JWT}"}` });
    expect(JSON.stringify(line)).toBe(String.raw`{"message":"{\"authorization\":\"Bearer…[redacted]\"}"}`);
    expect(redactAll(undefined)).toBeUndefined();
    expect(redactAll('Bearer abc')).toBe('Bearer…[redacted]');
  });
});
