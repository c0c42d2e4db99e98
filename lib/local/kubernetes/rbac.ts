// Request attributes as the API server's RequestInfoFactory derives them, and
// an RBAC evaluator over PolicyRules, so the local API server can enforce the
// very ClusterRole in infra/rbac.yaml.

export interface RequestAttributes {
  resourceRequest: boolean;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const verbOf: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** /api/v1/namespaces/ns/pods, /apis/apps/v1/namespaces/ns/deployments/web/scale, ... */
export function requestAttributes(method: string, path: string): RequestAttributes {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const base: RequestAttributes = { resourceRequest: false, verb: method.toLowerCase(), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    base.apiVersion = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    base.apiGroup = parts[1];
    base.apiVersion = parts[2];
    rest = parts.slice(3);
  } else {
    return base;
  }
  base.resourceRequest = true;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    base.namespace = rest[1];
    // namespaces/<name> addresses the namespace itself
    rest = rest.length === 2 ? ['namespaces', rest[1]] : rest.slice(2);
    if (rest[0] === 'namespaces') base.namespace = '';
  }
  base.resource = rest[0] ?? '';
  base.name = rest[1] ?? '';
  base.subresource = rest[2] ?? '';
  const verb = verbOf[method] ?? method.toLowerCase();
  base.verb = verb === 'get' && base.name === '' ? 'list' : verb;
  return base;
}

function has(list: string[] | undefined, v: string): boolean {
  return !!list && (list.includes('*') || list.includes(v));
}

function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!a.resourceRequest) {
    return !!rule.nonResourceURLs && has(rule.verbs, a.verb) && rule.nonResourceURLs.some((u) => u === a.path || u === '*' || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.verbs, a.verb) || !has(rule.apiGroups, a.apiGroup)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  const resourceOk =
    resources.includes('*') || resources.includes(combined) || (a.subresource !== '' && resources.includes(`*/${a.subresource}`));
  if (!resourceOk) return false;
  return !rule.resourceNames?.length || rule.resourceNames.includes(a.name);
}

/** Discovery is open to every authenticated user (system:discovery). */
const discoveryPaths = /^\/(?:(?:api|apis|version)(?:\/[^/]+){0,2}\/?|openapi(?:\/.*)?)$/;

export function rulesAuthorizer(rules: PolicyRule[]): (a: RequestAttributes) => boolean {
  return (a) => (!a.resourceRequest && discoveryPaths.test(a.path)) || rules.some((r) => ruleAllows(r, a));
}

/** The message a real API server gives with a 403. */
export function forbiddenMessage(user: string, a: RequestAttributes): string {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = a.name ? `${a.resource}${a.apiGroup ? `.${a.apiGroup}` : ''} "${a.name}"` : `${a.resource}${a.apiGroup ? `.${a.apiGroup}` : ''}`;
  const where = a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope';
  return `${what} is forbidden: User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}"${where}`;
}
