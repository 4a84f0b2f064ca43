// POST /apis/authorization.k8s.io/v1/{subjectaccessreviews,selfsubjectaccessreviews} (kube
// pkg/registry/authorization): the review is answered by the same authorizer chain that guards requests, so
// `kubectl auth can-i` and the node agent's delegated authorization see what a real request would.
import type { UserInfo } from '@cl/auth';
import { ApiError } from '@cl/apimachinery';
import { goQuote } from '@cl/flags';
import {
  attributesFromSpec,
  type ChainAuthorizer,
  type NonResourceAttributesJson,
  type ResourceAttributesJson,
  type SubjectAccessReviewSpec,
} from '@cl/webhook-authz';
import { readBody, type RequestContext, type Route } from '../routes';
import { decodeReviewProtobuf } from './review-protobuf';
import { statusBody, writeJson, writeStatus, type StatusBody } from '../status';

const GROUP = 'authorization.k8s.io';
const API_VERSION = `${GROUP}/v1`;
const BASE = `/apis/${GROUP}/v1`;

type Kind = 'SubjectAccessReview' | 'SelfSubjectAccessReview';

class RequestError extends Error {
  constructor(readonly status: StatusBody) {
    super(status.message);
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strList = (v: unknown): string[] | undefined => (Array.isArray(v) && v.length > 0 ? v.map((x) => String(x)) : undefined);

/** Rebuilds an object with only the string fields named, in that (Go struct) order, empty ones left out. */
function pick<T extends object>(o: unknown, fields: readonly (keyof T & string)[]): T {
  const out: Record<string, unknown> = {};
  const src = (o ?? {}) as Record<string, unknown>;
  for (const f of fields) if (str(src[f]) !== undefined) out[f] = src[f];
  return out as T;
}

function selector(v: unknown): ResourceAttributesJson['fieldSelector'] {
  if (!v || typeof v !== 'object') return undefined;
  const s = v as Record<string, unknown>;
  const out: NonNullable<ResourceAttributesJson['fieldSelector']> = {};
  if (str(s.rawSelector)) out.rawSelector = s.rawSelector as string;
  if (Array.isArray(s.requirements)) {
    out.requirements = s.requirements.map((r: Record<string, unknown>) => {
      const req: { key: string; operator: string; values?: string[] } = { key: String(r?.key ?? ''), operator: String(r?.operator ?? '') };
      const values = strList(r?.values);
      if (values) req.values = values;
      return req;
    });
  }
  return out;
}

function resourceAttributes(v: unknown): ResourceAttributesJson | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const ra = pick<ResourceAttributesJson>(v, ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']);
  const o = v as Record<string, unknown>;
  const fs = selector(o.fieldSelector);
  const ls = selector(o.labelSelector);
  if (fs) ra.fieldSelector = fs;
  if (ls) ra.labelSelector = ls;
  return ra;
}

/** The spec as the typed decoder would keep it: known fields only, in struct order. */
function decodeSpec(v: unknown, self: boolean): SubjectAccessReviewSpec {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const spec: SubjectAccessReviewSpec = {};
  const ra = resourceAttributes(o.resourceAttributes);
  if (ra) spec.resourceAttributes = ra;
  if (o.nonResourceAttributes && typeof o.nonResourceAttributes === 'object') {
    spec.nonResourceAttributes = pick<NonResourceAttributesJson>(o.nonResourceAttributes, ['path', 'verb']);
  }
  if (self) return spec;
  if (str(o.user)) spec.user = o.user as string;
  const groups = strList(o.groups);
  if (groups) spec.groups = groups;
  if (o.extra && typeof o.extra === 'object' && Object.keys(o.extra).length > 0) {
    spec.extra = Object.fromEntries(Object.entries(o.extra as Record<string, unknown>).map(([k, val]) => [k, Array.isArray(val) ? val.map(String) : []]));
  }
  if (str(o.uid)) spec.uid = o.uid as string;
  return spec;
}

function goStruct(name: string, fields: Record<string, string | undefined>): string {
  return `&authorization.${name}{${Object.entries(fields).map(([k, v]) => `${k}:${goQuote(v ?? '')}`).join(', ')}}`;
}

/** ValidateSubjectAccessReview / ValidateSelfSubjectAccessReview, as field error texts. */
function validate(kind: Kind, spec: SubjectAccessReviewSpec, metadata: unknown): string[] {
  const errs: string[] = [];
  const nra = spec.nonResourceAttributes;
  if (spec.resourceAttributes && nra) {
    errs.push(`spec.nonResourceAttributes: Invalid value: ${goQuote(goStruct('NonResourceAttributes', { Path: nra.path, Verb: nra.verb }))}: cannot be specified in combination with resourceAttributes`);
  }
  if (!spec.resourceAttributes && !nra) {
    errs.push('spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
  }
  if (kind === 'SubjectAccessReview' && !spec.user && !spec.groups) {
    errs.push('spec.user: Invalid value: "": at least one of user or group must be specified');
  }
  const meta = (metadata && typeof metadata === 'object' ? metadata : {}) as Record<string, unknown>;
  if (Object.entries(meta).some(([k, v]) => v !== null && v !== undefined && k !== 'managedFields' && !(typeof v === 'object' && Object.keys(v).length === 0) && v !== '')) {
    errs.push(`metadata: Invalid value: ${goQuote(JSON.stringify(meta))}: must be empty`);
  }
  return errs;
}

function invalid(kind: Kind, errs: string[]): StatusBody {
  const message = `${kind}.${GROUP} "" is invalid: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`;
  return statusBody(422, 'Invalid', message, { group: GROUP, kind });
}

async function decodeBody(ctx: RequestContext, kind: Kind): Promise<Record<string, unknown>> {
  const type = String(ctx.req.headers['content-type'] ?? 'application/json');
  const protobuf = /application\/vnd\.kubernetes\.protobuf/i.test(type);
  if (!protobuf && !/json/i.test(type)) {
    throw new RequestError(
      statusBody(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf', {}),
    );
  }
  let body: unknown;
  try {
    const raw = await readBody(ctx.req);
    body = protobuf ? decodeReviewProtobuf(raw, kind === 'SelfSubjectAccessReview') : JSON.parse(raw.toString('utf8'));
  } catch (e) {
    if (e instanceof ApiError) throw new RequestError(e.status);
    throw new RequestError(statusBody(400, 'BadRequest', `couldn't get version/kind; ${protobuf ? '' : 'json '}parse error: ${(e as Error).message}`, {}));
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new RequestError(statusBody(400, 'BadRequest', `couldn't get version/kind; json parse error: expected an object`, {}));
  }
  const o = body as Record<string, unknown>;
  if (o.apiVersion !== undefined && o.apiVersion !== API_VERSION) {
    throw new RequestError(statusBody(400, 'BadRequest', `the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${API_VERSION})`, {}));
  }
  if (o.kind !== undefined && o.kind !== kind) {
    throw new RequestError(statusBody(400, 'BadRequest', `the kind in the data (${String(o.kind)}) does not match the expected kind (${kind})`, {}));
  }
  return o;
}

function reviewRoute(kind: Kind, resource: string, authorizer: ChainAuthorizer): Route {
  const path = `${BASE}/${resource}`;
  const self = kind === 'SelfSubjectAccessReview';
  return {
    pathClass: path,
    matches: (method, p) => p === path,
    async handle(ctx) {
      if (ctx.req.method !== 'POST') return writeStatus(ctx.req, ctx.res, statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
      try {
        const o = await decodeBody(ctx, kind);
        const spec = decodeSpec(o.spec, self);
        const errs = validate(kind, spec, o.metadata);
        if (errs.length > 0) throw new RequestError(invalid(kind, errs));
        const user: UserInfo = self
          ? ctx.user
          : { username: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [], extra: spec.extra ?? {} };
        const { attrs, ignored } = attributesFromSpec(spec, user);
        const r = await authorizer.authorize(attrs);
        const status: Record<string, unknown> = { allowed: r.decision === 'Allow' };
        if (r.decision === 'Deny') status.denied = true;
        if (r.reason) status.reason = r.reason;
        const evaluationError = [...(r.error ? [r.error.message] : []), ...ignored].join('; ');
        if (evaluationError) status.evaluationError = evaluationError;
        writeJson(ctx.req, ctx.res, 201, { kind, apiVersion: API_VERSION, metadata: { creationTimestamp: null }, spec, status });
      } catch (e) {
        if (e instanceof RequestError) return writeStatus(ctx.req, ctx.res, e.status);
        throw e;
      }
    },
  };
}

export function reviewRoutes(authorizer: ChainAuthorizer): Route[] {
  return [
    reviewRoute('SubjectAccessReview', 'subjectaccessreviews', authorizer),
    reviewRoute('SelfSubjectAccessReview', 'selfsubjectaccessreviews', authorizer),
  ];
}
