// What a rejected request gets (k8s.io/apiserver endpoints/filters/authorization.go and
// handlers/responsewriters): 403 with a Forbidden Status, or 500 text when the authorizer failed.
import type { Attributes } from '@cl/auth';
import { goQuote } from '@cl/flags';

export interface ForbiddenStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: 'Forbidden';
  details: { name?: string; group?: string; kind?: string };
  code: 403;
}

// The message part that echoes request data is HTML-escaped upstream; the authorizer's reason is not.
const sanitize = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** `User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"` (or the path form). */
export function forbiddenMessage(attrs: Attributes): string {
  const user = goQuote(attrs.user?.username ?? '');
  if (!attrs.isResourceRequest) return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const base = `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)}`;
  return attrs.namespace ? `${base} in the namespace ${goQuote(attrs.namespace)}` : `${base} at the cluster scope`;
}

/** The 403 Status body: NewForbidden over the group/resource (not the subresource) and the object name. */
export function forbiddenStatus(attrs: Attributes, reason: string): ForbiddenStatus {
  const msg = sanitize(forbiddenMessage(attrs)) + (reason ? `: ${reason}` : '');
  const group = attrs.isResourceRequest ? attrs.apiGroup : '';
  const resource = attrs.isResourceRequest ? attrs.resource : '';
  const name = attrs.isResourceRequest ? attrs.name : '';
  const gr = group ? `${resource}.${group}` : resource;
  let message: string;
  if (gr === '') message = `forbidden: ${msg}`;
  else if (name === '') message = `${gr} is forbidden: ${msg}`;
  else message = `${gr} ${goQuote(name)} is forbidden: ${msg}`;
  const details: ForbiddenStatus['details'] = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

/** The text/plain 500 body for an authorizer error: `Internal Server Error: "<RequestURI>": <err>`. */
export function authorizationErrorText(requestUri: string, err: Error): string {
  return `Internal Server Error: ${goQuote(requestUri)}: ${err.message}`;
}
