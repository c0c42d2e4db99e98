// The address rules every tenant-named request answers to (lib/api/endpoint-address.ts): what is
// never reached, what only an origin granted by name reaches, and how grants are compared.
import { describe, expect, it } from 'vitest';
import { grantedOriginProblem, isPrivateAddress, neverAddressProblem, originOf } from '../../lib/api/endpoint-address.js';

describe('addresses', () => {
  it.each([
    ['169.254.169.254', 'never', 'the EC2 instance metadata endpoint'],
    ['fd00:ec2::254', 'never', 'the EC2 instance metadata endpoint'],
    ['169.254.170.2', 'never', 'the ECS task credentials endpoint'],
    ['169.254.170.23', 'never', 'the EKS Pod Identity credentials endpoint'],
    ['fd00:ec2::23', 'never', 'the EKS Pod Identity credentials endpoint'],
    ['::ffff:169.254.169.254', 'never', 'the EC2 instance metadata endpoint'],
    ['::ffff:a9fe:a9fe', 'never', 'the EC2 instance metadata endpoint'],
    ['169.254.0.1', 'never', 'link-local'],
    ['fe80::1', 'never', 'link-local'],
    ['febf::1', 'never', 'link-local'],
    ['fd00:ec2::1', 'never', 'link-local'],
    ['0.0.0.0', 'never', 'unspecified'],
    ['::', 'never', 'unspecified'],
    ['224.0.0.1', 'never', 'multicast'],
    ['ff02::1', 'never', 'multicast'],
    ['127.0.0.1', 'private', ''],
    ['127.8.9.10', 'private', ''],
    ['::1', 'private', ''],
    ['10.0.0.7', 'private', ''],
    ['172.16.0.1', 'private', ''],
    ['172.31.255.255', 'private', ''],
    ['192.168.1.1', 'private', ''],
    ['100.64.0.1', 'private', ''],
    ['fd12:3456::1', 'private', ''],
    ['::ffff:10.0.0.1', 'private', ''],
    ['172.32.0.1', 'public', ''],
    ['8.8.8.8', 'public', ''],
    ['2600:1f18::1', 'public', ''],
    ['fec0::1', 'public', ''],
  ])('%s is %s', (ip, kind, why) => {
    const never = neverAddressProblem(ip);
    if (kind === 'never') {
      expect(never).toContain(why);
      return;
    }
    expect(never).toBeUndefined();
    expect(isPrivateAddress(ip)).toBe(kind === 'private');
  });

  it.each([
    ['http://prom:9090', 'http://PROM:9090/a/b', true],
    ['http://prom', 'http://prom:80', true],
    ['https://prom', 'https://prom:443/', true],
    ['http://127.0.0.1:5123', 'http://127.0.0.1:51237', false],
    ['http://prom:9090', 'https://prom:9090', false],
    ['http://prom:9090', 'http://prom.evil:9090', false],
    ['http://[::1]:9090', 'http://[0:0:0:0:0:0:0:1]:9090', true],
  ])('grant %s admits %s: %s (origins compared parsed)', (grant, url, same) => {
    expect(grantedOriginProblem(grant)).toBeUndefined();
    expect(originOf(grant) === originOf(url)).toBe(same);
  });
});
