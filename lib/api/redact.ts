// Secrets never reach the log, status or events, whatever an error message or a payload carries:
// EKS tokens, bearer tokens, SigV4 query and header parameters, AWS credentials (labelled, in
// STS XML, raw), a URL's userinfo (user:pass@). What was redacted stays recognisable:
// "X-Amz-Security-Token…[redacted]". Pure: the functions' logs and the sync's writes use it alike.

const MARK = '…[redacted]';

/** Each pattern's first group is kept (the secret's name), the rest of the match is replaced. */
const SECRETS: RegExp[] = [
  // an EKS bearer token: k8s-aws-v1.<base64url of a presigned URL>
  /(k8s-aws-v1)\.[A-Za-z0-9_-]+/g,
  // "Bearer x", "Basic x", in a header or not
  /\b(Bearer|Basic)\s+[^\s"',;}]+/gi,
  // a SigV4 Authorization header: credential, signed headers and signature, to the end of the value
  /\b(AWS4-HMAC-SHA256)\s+[^"'\n]+/g,
  // an Authorization value without a scheme (one with a scheme is one of the lines above)
  /(Authorization"?\s*[:=]\s*"?)(?!(?:Bearer|Basic|AWS4-HMAC-SHA256)\b|…)[^\s"',;}]+/gi,
  // SigV4 parameters as query (X-Amz-Signature=…), header (X-Amz-Security-Token: …) or JSON ("x-amz-security-token":"…")
  /(X-Amz-(?:Signature|Credential|Security-Token))"?\s*[:=]\s*"?[^\s"'&,;}]+/gi,
  // credentials by name: environment, config files, SDK objects
  /(aws_secret_access_key|aws_session_token|secretAccessKey|sessionToken)"?\s*[:=]\s*"?[^\s"'&,;}]+/gi,
  // STS answers quoted in an error: <SecretAccessKey>…</SecretAccessKey>, <SessionToken>…</SessionToken>
  /<(SecretAccessKey|SessionToken)>[^<]*<\/(?:SecretAccessKey|SessionToken)>/g,
  // raw access key ids (long-term AKIA, temporary ASIA, and the other documented prefixes)
  /\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
];

/** A URL's userinfo (http://user:pass@host): the scheme kept, the credentials replaced, the host shown. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/** A raw secret access key: 40 characters of base64 alphabet standing alone, mixing cases and digits (a hex digest does not). */
const RAW_SECRET_KEY = /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/** Keys whose values are secrets whatever they look like (headers and credential objects). */
const SECRET_KEYS = /^(authorization|proxy[-_]?authorization|x[-_]amz[-_](security[-_]token|signature|credential)|aws[-_]secret[-_]access[-_]key|secret[-_]?access[-_]?key|aws[-_]session[-_]token|session[-_]?token|password)$/i;

/** text with every secret it carries replaced by its name and "…[redacted]". */
export function redact(text: string): string {
  let out = text.replace(USERINFO, (_m, scheme: string) => `${scheme}${MARK.slice(1)}@`);
  for (const re of SECRETS) out = out.replace(re, (_m, keep: string) => `${keep}${MARK}`);
  return out.replace(RAW_SECRET_KEY, MARK);
}

/**
 * A copy of a log payload with every string redacted, and every value under a secret's key
 * (authorization, x-amz-security-token, secretAccessKey…) replaced whole. Strings are redacted
 * one by one, not the JSON text, so that a match never eats an escape.
 */
export function redactAll<T>(value: T): T {
  if (value === undefined) return value;
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (key !== '' && SECRET_KEYS.test(key) && v !== null && v !== undefined) return MARK.slice(1);
      return typeof v === 'string' ? redact(v) : v;
    }),
  ) as T;
}
