// metav1.Status and the API errors kube-apiserver answers with (k8s.io/apimachinery/pkg/api/errors): one
// constructor per reason, so every handler words a 404 or a 409 the way kubectl expects to print it.
import type { FieldError, FieldErrorType } from './field';

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** For most errors the plural resource (`configmaps`); for Invalid the kind (`ConfigMap`). */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A resource as errors name it: `configmaps`, or `leases.coordination.k8s.io` when not in the core group. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function statusFailure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  // Field order as upstream serialises it: details before code.
  return details
    ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code }
    : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export function statusSuccess(details?: StatusDetails): Status {
  return details ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 } : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
}

/** An error a handler turns into its Status response. */
export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'ApiError';
  }

  get code(): number {
    return this.status.code;
  }
}

const details = (gr: GroupResource, name: string): StatusDetails => (gr.group ? { name, group: gr.group, kind: gr.resource } : { name, kind: gr.resource });

// The StatusCause reason of each field error type (metav1.CauseType values).
const CAUSE_REASONS: Record<FieldErrorType, string> = {
  'Not found': 'FieldValueNotFound',
  'Required value': 'FieldValueRequired',
  'Duplicate value': 'FieldValueDuplicate',
  'Invalid value': 'FieldValueInvalid',
  'Unsupported value': 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  'Too long': 'FieldValueTooLong',
  'Too many': 'FieldValueTooMany',
  'Internal error': 'InternalError',
};

export const apiErrors = {
  notFound: (gr: GroupResource, name: string) => new ApiError(statusFailure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, details(gr, name))),
  alreadyExists: (gr: GroupResource, name: string) => new ApiError(statusFailure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, details(gr, name))),
  conflict: (gr: GroupResource, name: string, why: string) =>
    new ApiError(statusFailure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, details(gr, name))),
  /** The stale-resourceVersion conflict every optimistic update reports. */
  modified: (gr: GroupResource, name: string) => apiErrors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again'),
  invalid: (group: string, kind: string, name: string, errs: readonly FieldError[]) => {
    const message = errs.length === 1 ? errs[0].message : `[${errs.map((e) => e.message).join(', ')}]`;
    const causes = errs.map((e) => ({ reason: CAUSE_REASONS[e.type], message: e.body(), field: e.field }));
    const d: StatusDetails = group ? { name, group, kind, causes } : { name, kind, causes };
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    return new ApiError(statusFailure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${message}`, d));
  },
  forbidden: (gr: GroupResource, name: string, why: string, causes?: StatusCause[]) => {
    const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
    const d: StatusDetails = { ...details(gr, name), ...(causes ? { causes } : {}) };
    return new ApiError(statusFailure(403, 'Forbidden', `${subject} is forbidden: ${why}`, d));
  },
  badRequest: (message: string) => new ApiError(statusFailure(400, 'BadRequest', message)),
  gone: (message: string) => new ApiError(statusFailure(410, 'Expired', message)),
  /** The list or continue token's revision was compacted away (upstream's NewResourceExpired). */
  resourceExpired: (message: string) => new ApiError(statusFailure(410, 'Expired', message)),
  methodNotSupported: (gr: GroupResource, action: string) =>
    new ApiError(statusFailure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, gr.group ? { group: gr.group, kind: gr.resource } : { kind: gr.resource })),
  unsupportedMediaType: (accepted: readonly string[]) =>
    new ApiError(statusFailure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`)),
  notAcceptable: (accepted: string) => new ApiError(statusFailure(406, 'NotAcceptable', `the server was unable to respond with a content type that the client supports (accepted media types include: ${accepted})`)),
  tooManyRequests: (message: string, retryAfterSeconds: number) => new ApiError(statusFailure(429, 'TooManyRequests', message, { retryAfterSeconds })),
  internal: (message: string) => new ApiError(statusFailure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ reason: '', message }] })),
  timeout: (message: string, retryAfterSeconds: number, causes?: StatusCause[]) =>
    new ApiError(statusFailure(504, 'Timeout', `Timeout: ${message}`, { ...(causes ? { causes } : {}), retryAfterSeconds })),
  tooLarge: (message: string) => new ApiError(statusFailure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`)),
};
