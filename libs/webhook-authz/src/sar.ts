// The SubjectAccessReview wire types (authorization.k8s.io v1 and v1beta1) and the conversions between them and
// authorizer attributes: what the webhook authorizer sends, what it keys its cache with, and what the API
// server's subjectaccessreviews endpoints accept.
import type { Attributes, SelectorRequirement, UserInfo } from '@cl/auth';
import type { CelSubjectAccessReviewSpec } from '@cl/cel';
import { goJsonMarshal, goKeyOrder, wellFormed } from './go-json';

export type SubjectAccessReviewVersion = 'v1' | 'v1beta1';
export const SAR_GROUP = 'authorization.k8s.io';

/**
 * v1 SubjectAccessReviewSpec (v1beta1 spells `groups` as `group`): the very shape CEL match conditions see as
 * `request`, so it is declared once, in @cl/cel.
 */
export type SubjectAccessReviewSpec = CelSubjectAccessReviewSpec;
export type ResourceAttributesJson = NonNullable<SubjectAccessReviewSpec['resourceAttributes']>;
export type NonResourceAttributesJson = NonNullable<SubjectAccessReviewSpec['nonResourceAttributes']>;
export type SelectorJson = NonNullable<ResourceAttributesJson['fieldSelector']>;
export type SelectorRequirementJson = NonNullable<SelectorJson['requirements']>[number];

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** Sets `obj[key]` only for non-empty strings: Go's `omitempty`. */
function put<T extends object>(obj: T, key: keyof T, value: string): void {
  if (value !== '') (obj as Record<string, unknown>)[key as string] = wellFormed(value);
}

const FIELD_OPS: Partial<Record<SelectorRequirement['operator'], string>> = { Equals: 'In', In: 'In', NotEquals: 'NotIn', NotIn: 'NotIn' };
const LABEL_OPS: Partial<Record<SelectorRequirement['operator'], string>> = {
  ...FIELD_OPS,
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
};

const byKeyThenValue = (a: SelectorRequirementJson, b: SelectorRequirementJson) =>
  goKeyOrder(a.key, b.key) || goKeyOrder((a.values ?? [])[0] ?? '', (b.values ?? [])[0] ?? '');

/**
 * Parsed selector requirements as the webhook sees them (upstream webhook.go with AuthorizeWithSelectors):
 * only `requirements`, unsupported operators dropped, sorted by key as the selector parsers leave them,
 * label set values sorted and de-duplicated. Undefined when nothing remains.
 */
function selectorJson(reqs: SelectorRequirement[] | undefined, field: boolean): SelectorJson | undefined {
  if (!reqs || reqs.length === 0) return undefined;
  const ops = field ? FIELD_OPS : LABEL_OPS;
  const out: SelectorRequirementJson[] = [];
  for (const r of reqs) {
    const operator = ops[r.operator];
    if (!operator) continue;
    const req: SelectorRequirementJson = { key: wellFormed(r.key), operator };
    let values = r.values.map(wellFormed);
    if (!field) values = [...new Set(values)].sort(goKeyOrder);
    if (values.length > 0) req.values = values;
    out.push(req);
  }
  if (out.length === 0) return undefined;
  out.sort(field ? byKeyThenValue : (a, b) => goKeyOrder(a.key, b.key));
  return { requirements: out };
}

function userFields(spec: SubjectAccessReviewSpec, user: UserInfo | undefined): void {
  if (!user) return;
  put(spec, 'user', user.username);
  if (user.groups.length > 0) spec.groups = user.groups.map(wellFormed);
  const keys = Object.keys(user.extra ?? {});
  if (keys.length > 0) {
    const extra: Record<string, string[]> = {};
    for (const k of keys.sort(goKeyOrder)) extra[wellFormed(k)] = (user.extra[k] ?? []).map(wellFormed);
    spec.extra = extra;
  }
  put(spec, 'uid', user.uid);
}

/** The v1 spec for `attrs`, its fields in Go struct order with empty ones left out. */
export function specFromAttributes(attrs: Attributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = {};
  if (attrs.isResourceRequest) {
    const ra: ResourceAttributesJson = {};
    put(ra, 'namespace', attrs.namespace);
    put(ra, 'verb', attrs.verb);
    put(ra, 'group', attrs.apiGroup);
    put(ra, 'version', attrs.apiVersion);
    put(ra, 'resource', attrs.resource);
    put(ra, 'subresource', attrs.subresource);
    put(ra, 'name', attrs.name);
    const fs = selectorJson(attrs.fieldSelector, true);
    if (fs) ra.fieldSelector = fs;
    const ls = selectorJson(attrs.labelSelector, false);
    if (ls) ra.labelSelector = ls;
    spec.resourceAttributes = ra;
  } else {
    const nra: NonResourceAttributesJson = {};
    put(nra, 'path', attrs.path);
    put(nra, 'verb', attrs.verb);
    spec.nonResourceAttributes = nra;
  }
  userFields(spec, attrs.user);
  return spec;
}

/** The cache key: `json.Marshal` of the v1 spec, as upstream keys its response cache. */
export function cacheKeyOf(spec: SubjectAccessReviewSpec): string {
  return goJsonMarshal(spec);
}

// Strings JSON.stringify and Go both write verbatim: printable ASCII without `"`, `\`, `<`, `>`, `&`.
const plainString = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;
const RESOURCE_KEYS = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'];
const NON_RESOURCE_KEYS = ['path', 'verb'];

/**
 * `cacheKeyOf(specFromAttributes(attrs))` without building the spec, for the hot path of a warm cache. Falls
 * back to the general encoder whenever a string needs escaping or the request carries selectors or extra.
 */
export function cacheKeyOfAttributes(attrs: Attributes): string {
  const u = attrs.user;
  const strings = attrs.isResourceRequest
    ? [attrs.namespace, attrs.verb, attrs.apiGroup, attrs.apiVersion, attrs.resource, attrs.subresource, attrs.name]
    : [attrs.path, attrs.verb];
  const general = () => cacheKeyOf(specFromAttributes(attrs));
  if (!u || attrs.fieldSelector?.length || attrs.labelSelector?.length || Object.keys(u.extra ?? {}).length > 0) return general();
  for (const x of strings) if (!plainString.test(x)) return general();
  if (!plainString.test(u.username) || !plainString.test(u.uid)) return general();
  for (const g of u.groups) if (!plainString.test(g)) return general();
  const names = attrs.isResourceRequest ? RESOURCE_KEYS : NON_RESOURCE_KEYS;
  let inner = '';
  for (let i = 0; i < strings.length; i++) {
    if (strings[i] !== '') inner += `${inner ? ',' : ''}"${names[i]}":"${strings[i]}"`;
  }
  let key = `{"${attrs.isResourceRequest ? 'resourceAttributes' : 'nonResourceAttributes'}":{${inner}}`;
  if (u.username) key += `,"user":"${u.username}"`;
  if (u.groups.length > 0) key += `,"groups":["${u.groups.join('","')}"]`;
  if (u.uid) key += `,"uid":"${u.uid}"`;
  return key + '}';
}

/** v1beta1 names the groups field `group`; everything else, and its order, is the same. */
function v1beta1Spec(spec: SubjectAccessReviewSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) out[k === 'groups' ? 'group' : k] = v;
  return out;
}

/** The request body kube-apiserver POSTs: a Go json.Encoder line (compact, trailing newline). */
export function encodeReviewRequest(spec: SubjectAccessReviewSpec, version: SubjectAccessReviewVersion): string {
  return (
    goJsonMarshal({
      kind: 'SubjectAccessReview',
      apiVersion: `${SAR_GROUP}/${version}`,
      metadata: { creationTimestamp: null },
      spec: version === 'v1beta1' ? v1beta1Spec(spec) : spec,
      status: { allowed: false },
    }) + '\n'
  );
}

/** A response body the webhook authorizer cannot use; the message says why, in Go's decoder words where known. */
export class ReviewDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewDecodeError';
  }
}

function goTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** JSON.parse with encoding/json's wording for the common first-character failure. */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const first = text.trimStart()[0];
    if (first !== undefined && !/[[{"\-0-9tfn]/.test(first)) {
      throw new ReviewDecodeError(`invalid character ${quoteRune(first)} looking for beginning of value`);
    }
    throw new ReviewDecodeError(`invalid JSON in response: ${(e as Error).message}`);
  }
}

function quoteRune(c: string): string {
  return c === "'" ? "'\\''" : `'${c}'`;
}

/**
 * The status of a webhook's answer. `kind` and `apiVersion` may be left out (they default to the expected
 * type); another type is an error, as is a field of the wrong JSON type. Unknown fields are ignored.
 */
export function decodeReviewResponse(text: string, version: SubjectAccessReviewVersion): SubjectAccessReviewStatus {
  const body = parseJsonBody(text);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ReviewDecodeError(`json: cannot unmarshal ${goTypeOf(body)} into Go value of type ${version}.SubjectAccessReview`);
  }
  const o = body as Record<string, unknown>;
  const apiVersion = o.apiVersion ?? '';
  const kind = o.kind ?? '';
  const want = `${SAR_GROUP}/${version}`;
  if ((apiVersion !== '' && apiVersion !== want) || (kind !== '' && kind !== 'SubjectAccessReview')) {
    throw new ReviewDecodeError(
      `unable to decode response: expected ${want}, Kind=SubjectAccessReview, got ${String(apiVersion)}, Kind=${String(kind)}`,
    );
  }
  const status = o.status;
  if (status === undefined || status === null) return { allowed: false };
  if (typeof status !== 'object' || Array.isArray(status)) {
    throw new ReviewDecodeError(`json: cannot unmarshal ${goTypeOf(status)} into Go struct field SubjectAccessReview.status of type ${version}.SubjectAccessReviewStatus`);
  }
  const s = status as Record<string, unknown>;
  const field = <T>(name: string, type: 'boolean' | 'string', fallback: T): T => {
    const v = s[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== type) {
      throw new ReviewDecodeError(
        `json: cannot unmarshal ${goTypeOf(v)} into Go struct field SubjectAccessReviewStatus.status.${name} of type ${type === 'boolean' ? 'bool' : 'string'}`,
      );
    }
    return v as T;
  };
  return {
    allowed: field('allowed', 'boolean', false),
    denied: field('denied', 'boolean', false),
    reason: field('reason', 'string', ''),
    evaluationError: field('evaluationError', 'string', ''),
  };
}

function selectorFromJson(sel: SelectorJson | undefined, field: boolean): { reqs?: SelectorRequirement[]; error?: string } {
  if (!sel) return {};
  const which = field ? 'fieldSelector' : 'labelSelector';
  const reqs: SelectorRequirement[] = [];
  let bad = false;
  for (const r of sel.requirements ?? []) {
    const values = r.values ?? [];
    const ok = field
      ? (r.operator === 'In' || r.operator === 'NotIn') && values.length === 1
      : r.operator === 'In' || r.operator === 'NotIn' || r.operator === 'Exists' || r.operator === 'DoesNotExist';
    if (!ok || typeof r.key !== 'string') {
      bad = true;
      continue;
    }
    reqs.push({ key: r.key, operator: r.operator as SelectorRequirement['operator'], values });
  }
  if (!bad) return reqs.length ? { reqs } : {};
  const error = `spec.resourceAttributes.${which} ${reqs.length ? 'partially ' : ''}ignored due to parse error`;
  return reqs.length ? { reqs, error } : { error };
}

/**
 * Authorizer attributes for a review's spec (kube pkg/registry/authorization/util): an empty resource version
 * means every version (`*`); selector requirements that cannot be used are dropped and reported in `ignored`.
 */
export function attributesFromSpec(spec: SubjectAccessReviewSpec, user: UserInfo): { attrs: Attributes; ignored: string[] } {
  const ra = spec.resourceAttributes;
  if (ra) {
    const attrs: Attributes = {
      user,
      verb: ra.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: ra.namespace ?? '',
      apiGroup: ra.group ?? '',
      apiVersion: ra.version || '*',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      name: ra.name ?? '',
    };
    const ignored: string[] = [];
    const fs = selectorFromJson(ra.fieldSelector, true);
    const ls = selectorFromJson(ra.labelSelector, false);
    if (fs.reqs) attrs.fieldSelector = fs.reqs;
    if (ls.reqs) attrs.labelSelector = ls.reqs;
    if (fs.error) ignored.push(fs.error);
    if (ls.error) ignored.push(ls.error);
    return { attrs, ignored };
  }
  const nra = spec.nonResourceAttributes ?? {};
  return { attrs: nonResourceAttributes(user, nra.verb ?? '', nra.path ?? ''), ignored: [] };
}

/** The attributes of a non-resource request (`verb` on `path`): every resource field empty. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return { user, verb, isResourceRequest: false, path, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}
