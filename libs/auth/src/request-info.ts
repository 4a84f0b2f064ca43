// k8s.io/apiserver pkg/endpoints/request RequestInfoFactory: turns a method and a path into the
// attributes authorizers decide on (resource vs non-resource request, verb, group, namespace, ...).
import type { IncomingMessage } from 'node:http';
import { parseSelector } from './selectors';
import type { Attributes, SelectorRequirement, UserInfo } from './types';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  fieldSelector?: SelectorRequirement[];
  labelSelector?: SelectorRequirement[];
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
// Subresources of the namespaces resource itself (/api/v1/namespaces/{name}/status).
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
// verbs that change meaning when there is no name (get -> list, delete -> deletecollection).
const SPECIAL_VERBS = new Set(['proxy', 'watch']);

function methodVerb(method: string): string {
  switch (method.toUpperCase()) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

// A request target whose path WHATWG URL parsing returns unchanged: no escapes, backslashes, dot segments or
// characters it would encode, and not `//host`. Most targets are like this, and skipping `new URL` for them
// is a measurable part of a health request; everything else still goes through the parser.
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
const API_PATH = /^\/*apis?(?:\/|$)/;

/** The path of `url` as `new URL(url, base).pathname` gives it, or null when only the parser can tell. */
export function plainPath(url: string): string | null {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) ? path : null;
}

// An API path is never resolved: `/configmaps/%2e%2e` names the object `..` (which the store refuses), as
// upstream's request info splits the path as sent; resolving it would address the namespace instead.
const RAW_API_PATH = /^\/apis?\//;

function rawApiPath(url: string): string | null {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return RAW_API_PATH.test(path) ? path : null;
}

/** One path segment with its percent escapes decoded (left as sent when they are malformed). */
function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function requestInfo(method: string, url: string): RequestInfo {
  let u: URL | undefined;
  const path = plainPath(url) ?? rawApiPath(url) ?? (u = new URL(url, 'http://local')).pathname;
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  if (!API_PATH.test(path)) return nonResource; // before splitting: most non-resource paths stop here
  let parts = splitPath(path).map(decodeSegment);
  if (parts.length < 1 || !API_PREFIXES.has(parts[0])) return nonResource;
  const info: RequestInfo = { ...nonResource, apiPrefix: parts[0] };
  parts = parts.slice(1);
  if (!GROUPLESS_PREFIXES.has(info.apiPrefix)) {
    if (parts.length < 2) return nonResource; // /apis, /apis/{group}: discovery
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  if (parts.length < 1) return nonResource; // /api: discovery
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (parts.length < 1) return nonResource; // /api/v1, /apis/{g}/{v}: discovery

  info.isResourceRequest = true;
  info.verb = methodVerb(method);
  if (SPECIAL_VERBS.has(parts[0])) {
    if (parts.length < 2) return { ...nonResource, verb: method.toLowerCase() };
    info.verb = parts[0];
    parts = parts.slice(1);
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // /namespaces/{ns}/{resource}/... addresses a namespaced resource; /namespaces/{name}/status does not.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  } else {
    info.namespace = '';
  }

  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];

  const q = (u ?? new URL(url, 'http://local')).searchParams;
  if (info.name === '' && info.verb === 'get') {
    const watch = (q.get('watch') ?? '').toLowerCase();
    info.verb = watch === 'true' || watch === '1' ? 'watch' : 'list';
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';

  const fs = q.get('fieldSelector');
  if (fs !== null) {
    const parsed = parseSelector(fs);
    if (parsed) {
      info.fieldSelector = parsed;
      // list/watch of metadata.name=X is a request for one object (upstream does the same rewrite).
      if (info.verb === 'list' || info.verb === 'watch') {
        const byName = parsed.find((r) => r.key === 'metadata.name' && (r.operator === 'Equals' || r.operator === 'In') && r.values.length === 1);
        if (byName && info.name === '') info.name = byName.values[0];
      }
    }
  }
  const ls = q.get('labelSelector');
  if (ls !== null) {
    const parsed = parseSelector(ls);
    if (parsed) info.labelSelector = parsed;
  }
  return info;
}

/** The authorizer attributes of a request made by `user` (pass `info` when the caller has already parsed it). */
export function requestAttributes(req: IncomingMessage, user: UserInfo, info: RequestInfo = requestInfo(req.method ?? 'GET', req.url ?? '/')): Attributes {
  const attrs: Attributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
  if (info.fieldSelector) attrs.fieldSelector = info.fieldSelector;
  if (info.labelSelector) attrs.labelSelector = info.labelSelector;
  return attrs;
}
