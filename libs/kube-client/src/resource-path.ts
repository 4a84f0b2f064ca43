// REST paths and query strings as client-go's rest.Request builds them: the core group under /api, every other
// group under /apis, each path segment checked so a name can never reach another resource.

export interface ResourceRef {
  /** '' or absent for the core group. */
  group?: string;
  version: string;
  /** The plural resource, as in the URL: 'pods', 'configmaps'. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Query parameters; undefined ones are left out, booleans and numbers are written as Go prints them. */
export type Query = Record<string, string | number | boolean | undefined>;

/**
 * Path of a resource:
 * resourcePath({ version: 'v1', resource: 'pods', namespace: 'ns', name: 'p', subresource: 'status' }) ->
 * '/api/v1/namespaces/ns/pods/p/status'; a group gives /apis/<group>/<version>/...
 */
export function resourcePath(p: ResourceRef): string {
  if (!p.version) throw new Error('resourcePath: version is required');
  if (!p.resource) throw new Error('resourcePath: resource is required');
  if (p.subresource && !p.name) throw new Error(`resourcePath: subresource ${JSON.stringify(p.subresource)} needs a name`);
  const parts = [p.group ? `/apis/${segment('group', p.group)}/${segment('version', p.version)}` : `/api/${segment('version', p.version)}`];
  if (p.namespace) parts.push('namespaces', segment('namespace', p.namespace));
  parts.push(segment('resource', p.resource));
  if (p.name) parts.push(segment('name', p.name));
  if (p.subresource) parts.push(segment('subresource', p.subresource));
  return parts.join('/');
}

// client-go's IsValidPathSegmentName: a segment that is '.', '..' or holds '/' or '%' would address a different
// URL than the caller named (a name of '../secrets' must not read secrets).
function segment(what: string, value: string): string {
  if (value === '.' || value === '..' || /[/%]/.test(value)) throw new Error(`resourcePath: invalid ${what} ${JSON.stringify(value)}: may not be '.' or '..' or contain '/' or '%'`);
  return encodeURIComponent(value);
}

/** '?a=1&b=true' for the defined entries of `query`, '' when there are none. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
