// Where a tenant may point the worker: the addresses no grant makes legitimate (link-local, the
// EC2/ECS/EKS metadata and credential endpoints, unspecified and multicast addresses), those only
// an explicit grant opens (loopback and private ranges), and the URL forms refused outright
// (non-http(s), userinfo, any query or fragment, a host not written canonically). The same rules
// serve `shpa apply`, the sync's spec check and the request-time check of the resolved address;
// the CRD's CEL (prometheus-schema.ts) says as much of them as CEL can.
import { BlockList, isIP } from 'node:net';

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix, family] of ranges) list.addSubnet(net, prefix, family);
  return list;
}

/** Never a metric server: link-local (the metadata and credential endpoints live there), AWS's fd00:ec2::/32 services, unspecified, multicast, broadcast. */
const NEVER = blockList([
  ['169.254.0.0', 16, 'ipv4'],
  ['0.0.0.0', 8, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['255.255.255.255', 32, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
  ['fd00:ec2::', 32, 'ipv6'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
]);

/** Loopback and private ranges: reachable only through an origin the deploy grants by name. */
const PRIVATE = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
]);

/** The metadata and credential endpoints by name, for messages. */
const KNOWN: Record<string, string> = {
  '169.254.169.254': 'the EC2 instance metadata endpoint',
  'fd00:ec2::254': 'the EC2 instance metadata endpoint',
  '169.254.170.2': 'the ECS task credentials endpoint',
  '169.254.170.23': 'the EKS Pod Identity credentials endpoint',
  'fd00:ec2::23': 'the EKS Pod Identity credentials endpoint',
};

/** An IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d, ::ffff:a9fe:a9fe), else the address itself, lower-cased. */
function unmapped(ip: string): string {
  const lower = ip.toLowerCase();
  const m = /^(?:0{0,4}:){0,5}:?ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(lower);
  if (!m || isIP(lower) !== 6) return lower;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function familyOf(ip: string): 'ipv4' | 'ipv6' | undefined {
  const v = isIP(ip);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/** Why no request may ever go to this IP address (whatever is granted), or undefined. */
export function neverAddressProblem(ip: string): string | undefined {
  const addr = unmapped(ip);
  const family = familyOf(addr);
  if (!family) return `${ip} is not an IP address`;
  const known = KNOWN[addr];
  if (known) return `${ip}, ${known}`;
  if (NEVER.check(addr, family)) return `${ip}, a link-local, unspecified or multicast address`;
  return undefined;
}

/** Whether the address is loopback or private (reachable only through an explicitly granted origin). */
export function isPrivateAddress(ip: string): boolean {
  const addr = unmapped(ip);
  const family = familyOf(addr);
  return family !== undefined && PRIVATE.check(addr, family);
}

/** The host of a URL's authority as written (brackets of an IPv6 literal dropped), or undefined. */
function writtenHost(url: string): string | undefined {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url);
  if (!m) return undefined;
  const authority = m[1].slice(m[1].lastIndexOf('@') + 1);
  const v6 = /^\[([^\]]*)\]/.exec(authority);
  return (v6 ? v6[1] : authority.replace(/:\d*$/, '')).toLowerCase();
}

/**
 * Why a tenant's server URL may never be queried, or undefined: http(s) only, no credentials, no
 * query or fragment (not even an empty `?` or `#`), a host written as the URL standard writes it
 * (2852039166 or 0xa9fea9fe is 169.254.169.254), and no address of neverAddressProblem.
 */
export function serverUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute http or https URL such as http://prometheus.monitoring:9090';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http or https URL';
  if (u.username || u.password || /^[^:]+:\/\/[^/?#]*@/.test(url)) return 'must not carry credentials (use bearerTokenSecretArn)';
  if (url.includes('?') || url.includes('#')) return 'must not have a query or fragment, not even an empty ? or # (the base URL: /api/v1/query is appended)';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const never = isIP(host) ? neverAddressProblem(host) : undefined;
  if (never) return `must not point at ${never}`;
  if (host.includes(':') && unmapped(host) !== host) return 'must write an IPv4 host as four decimal numbers a.b.c.d, not as an IPv4-mapped IPv6 address';
  if (writtenHost(url) !== host) return `must write its host as ${host.includes(':') ? `[${host}]` : host} (the form a URL parser reads it as)`;
  if (host === 'instance-data' || host.startsWith('instance-data.')) {
    return `must not point at ${host}, the EC2 instance metadata endpoint`;
  }
  return undefined;
}

/** A URL's origin compared as parsed (scheme, host, port; default ports dropped), or undefined when it is none. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

/** Why a grant's entry is not an origin (scheme://host[:port], nothing else), or undefined. */
export function grantedOriginProblem(entry: string): string | undefined {
  if (entry === '*') return undefined;
  const origin = originOf(entry);
  if (!origin) return `${JSON.stringify(entry)} is not an http(s) origin such as http://prometheus.monitoring:9090`;
  const u = new URL(entry);
  if (u.username || u.password || entry.includes('@')) return `${JSON.stringify(entry)} must not carry credentials`;
  if ((u.pathname !== '/' && u.pathname !== '') || entry.includes('?') || entry.includes('#')) {
    return `${JSON.stringify(entry)} must be an origin only (scheme://host[:port]): servers are granted whole, compared by scheme, host and port`;
  }
  return undefined;
}
