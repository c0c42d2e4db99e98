// String rules of apimachinery util/validation, api/validation/path, schema.ParseGroupVersion and
// the core/v1 resource-name helpers. Each returns upstream's messages (empty when valid).

const encoder = new TextEncoder();
// Go measures strings in bytes.
const byteLength = (s: string): number => encoder.encode(s).length;

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

// Upstream RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')".
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const eg = examples.map((x) => `'${x}', `).join(' or ');
  return `${msg} (e.g. ${eg}regex used for validation is '${fmt}')`;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123Label = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const labelValue = new RegExp(`^${labelValueFmt}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123Label.test(value)) {
    // A valid subdomain that is not a label can only be wrong for its dots.
    errs.push(dns1123Subdomain.test(value) ? 'must not contain dots' : regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123Subdomain.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** IsQualifiedName: "[dns-subdomain/]name", as label keys and resource names. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedName.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValue.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** path.IsValidPathSegmentName: names that go into a URL path segment. */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** schema.ParseGroupVersion: "" and "/" are the empty version; more than one '/' is an error. */
export function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return { error: `unexpected GroupVersion string: ${gv}` };
}

// core/v1 helper standardResources.
const standardResources = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);

const isStandardResourceName = (n: string): boolean => standardResources.has(n) || n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');
const isStandardContainerResourceName = (n: string): boolean => standardContainerResources.has(n) || n.startsWith('hugepages-');
const isNativeResource = (n: string): boolean => !n.includes('/') || n.includes('kubernetes.io/');
const isExtendedResourceName = (n: string): boolean =>
  !isNativeResource(n) && !n.startsWith('requests.') && isQualifiedName(`requests.${n}`).length === 0;

/** core/v1 ValidateResourceName. */
export function resourceNameErrors(value: string): string[] {
  const errs = isQualifiedName(value);
  if (errs.length > 0) return errs;
  if (!value.includes('/') && !isStandardResourceName(value)) return ['must be a standard resource type or fully qualified'];
  return [];
}

/** core/v1 ValidateContainerResourceName: ValidateResourceName, then the container-specific rule. */
export function containerResourceNameErrors(value: string): string[] {
  const errs = resourceNameErrors(value);
  if (!value.includes('/')) {
    if (!isStandardContainerResourceName(value)) errs.push('must be a standard resource for containers');
  } else if (!isNativeResource(value) && !isExtendedResourceName(value)) {
    errs.push("doesn't follow extended resource name standard");
  }
  return errs;
}
