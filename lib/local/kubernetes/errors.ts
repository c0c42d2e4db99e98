// Failures of the local API server as kube-apiserver words them: a metav1.Status
// body with code, reason and details (k8s.io/apimachinery/pkg/api/errors).

const reasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** What kube-apiserver names a resource in messages: `deployments.apps`, `pods`. */
export interface Qualified {
  group: string;
  resource: string;
}

export function qualifiedName(q: Qualified): string {
  return q.group ? `${q.resource}.${q.group}` : q.resource;
}

export function statusBody(code: number, message: string, reason?: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: reason ?? reasons[code] ?? 'Unknown', ...(details ? { details } : {}), code };
}

export class HttpError extends Error {
  /** the whole Status body, when it was built elsewhere (invalidStatus) */
  readonly body: Record<string, unknown>;

  constructor(
    readonly code: number,
    message: string,
    details?: Record<string, unknown>,
    reason?: string,
    body?: Record<string, unknown>,
  ) {
    super(message);
    this.body = body ?? statusBody(code, message, reason, details);
  }
}

/** A Status body built by someone else (crd-admission's invalidStatus). */
export function statusError(body: Record<string, unknown>): HttpError {
  return new HttpError(Number(body.code) || 500, String(body.message ?? ''), undefined, undefined, body);
}

export function notFound(q: Qualified, name: string): HttpError {
  return new HttpError(404, `${qualifiedName(q)} "${name}" not found`, { name, group: q.group, kind: q.resource });
}

export function alreadyExists(q: Qualified, name: string): HttpError {
  return new HttpError(409, `${qualifiedName(q)} "${name}" already exists`, { name, group: q.group, kind: q.resource }, 'AlreadyExists');
}

export function conflict(q: Qualified, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): HttpError {
  return new HttpError(409, `Operation cannot be fulfilled on ${qualifiedName(q)} "${name}": ${why}`, { name, group: q.group, kind: q.resource }, 'Conflict');
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

/** The route exists in no form. */
export function resourceNotFound(): HttpError {
  return new HttpError(404, 'the server could not find the requested resource');
}

export function methodNotAllowed(): HttpError {
  return new HttpError(405, 'the server does not allow this method on the requested resource');
}

export function unsupportedPatch(accepted: string[]): HttpError {
  return new HttpError(415, `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** 410 Expired, as a list or watch from a compacted resourceVersion gets it. */
export function expired(message: string): HttpError {
  return new HttpError(410, message, undefined, 'Expired');
}

/** One field.Error: `body` is its ErrorBody ("Invalid value: 0x0: must be specified for an update"). */
export interface FieldCause {
  field: string;
  type: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden';
  body: string;
}

/** apierrors.NewInvalid, for the server's own checks of metadata. */
export function invalid(kind: string, group: string, name: string, causes: FieldCause[]): HttpError {
  const qualified = group ? `${kind}.${group}` : kind;
  const each = causes.map((c) => `${c.field}: ${c.body}`);
  // utilerrors.NewAggregate: one error as is, several in brackets
  const message = `${qualified} "${name}" is invalid: ${each.length === 1 ? each[0] : `[${each.join(', ')}]`}`;
  return new HttpError(422, message, { name, group, kind, causes: causes.map((c) => ({ reason: c.type, message: c.body, field: c.field })) });
}
