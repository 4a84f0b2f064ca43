// POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token: authentication.k8s.io/v1 TokenRequest, as upstream's
// TokenREST: the service account must exist, the bound object (Pod, Secret or Node) must exist with the UID the
// request names, and a pod must run as this service account. Authorization (create serviceaccounts/token) was done
// by the request filters before this handler runs.
import { randomUUID } from 'node:crypto';
import { ApiError, apiErrors, fieldErrors, FieldPath, type KubeObject } from '@cl/apimachinery';
import { decodeEnvelope, PROTOBUF_CONTENT_TYPE } from '../authn/protobuf';
import { admitNodeTokenRequest, type BoundObjectReference, type NodeRequestAuthorizer } from '../authz/node-restriction';
import { readBody, type RequestContext, type Route } from '../routes';
import { tokenRequestSpecFromProtobuf } from './token-request-protobuf';
import { statuses, writeJson, writeStatus } from '../status';
import { expirationSecondsErrors, tokenClaims, type ObjectRef } from './claims';
import type { TokenIssuer } from './issuer';
import type { BoundResource, ObjectLookup } from './lookup';

const PATH = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)\/token$/;
const GROUP_VERSION = 'authentication.k8s.io/v1';
const DEFAULT_EXPIRATION_SECONDS = 3600;

type BoundObjectRef = BoundObjectReference;

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectRef;
}

const BOUND_KINDS: Record<string, BoundResource> = { Pod: 'pods', Secret: 'secrets', Node: 'nodes' };

const refOf = (o: KubeObject): ObjectRef => ({ name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '' });

export interface TokenRequestOptions {
  /** The NodeRestriction admission plugin is on: a node's requests must be bound to its own pods. */
  nodeRestriction: boolean;
  /** Asks the authorizer chain whether a node was granted an audience its pod does not name. */
  authorize: NodeRequestAuthorizer;
}

export function tokenRequestRoute(issuer: TokenIssuer, lookup: ObjectLookup, opts: TokenRequestOptions): Route {
  return {
    pathClass: '/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token',
    matches: (method, path) => method === 'POST' && PATH.test(path),
    handle: async (ctx) => {
      try {
        await handle(ctx, issuer, lookup, opts);
      } catch (e) {
        if (e instanceof ApiError) writeStatus(ctx.req, ctx.res, e.status);
        else writeStatus(ctx.req, ctx.res, statuses.internal((e as Error).message));
      }
    },
  };
}

async function readTokenRequest(ctx: RequestContext): Promise<{ spec: TokenRequestSpec }> {
  let body: Buffer;
  try {
    body = await readBody(ctx.req);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw apiErrors.badRequest((e as Error).message);
  }
  if (String(ctx.req.headers['content-type'] ?? '').split(';')[0].trim() === PROTOBUF_CONTENT_TYPE) {
    let decoded: ReturnType<typeof decodeEnvelope>;
    try {
      decoded = decodeEnvelope(body);
    } catch (e) {
      throw apiErrors.badRequest((e as Error).message);
    }
    if (decoded.kind !== 'TokenRequest' || decoded.apiVersion !== GROUP_VERSION) {
      throw apiErrors.badRequest(`the API version in the data (${decoded.apiVersion}) does not match the expected API version (${GROUP_VERSION}) or kind ${JSON.stringify(decoded.kind)} is not TokenRequest`);
    }
    try {
      return { spec: tokenRequestSpecFromProtobuf(decoded.raw) as TokenRequestSpec };
    } catch (e) {
      throw apiErrors.badRequest(`unable to decode TokenRequest: ${(e as Error).message}`);
    }
  }
  const text = body.toString('utf8').trim();
  let obj: unknown = {};
  try {
    if (text) obj = JSON.parse(text);
  } catch (e) {
    throw apiErrors.badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw apiErrors.badRequest("couldn't get version/kind; json parse error: expected an object");
  const o = obj as { kind?: unknown; apiVersion?: unknown; spec?: unknown };
  if ((o.kind !== undefined && o.kind !== 'TokenRequest') || (o.apiVersion !== undefined && o.apiVersion !== GROUP_VERSION)) {
    throw apiErrors.badRequest(`the API version in the data (${String(o.apiVersion ?? '')}) does not match the expected API version (${GROUP_VERSION}) or kind ${JSON.stringify(o.kind)} is not TokenRequest`);
  }
  return { spec: (o.spec && typeof o.spec === 'object' ? o.spec : {}) as TokenRequestSpec };
}

async function handle(ctx: RequestContext, issuer: TokenIssuer, lookup: ObjectLookup, opts: TokenRequestOptions): Promise<void> {
  const m = PATH.exec(ctx.path)!;
  const namespace = decodeURIComponent(m[1]);
  const name = decodeURIComponent(m[2]);
  const { spec } = await readTokenRequest(ctx);
  // Admission runs before the request is validated, as upstream's create handler does.
  if (opts.nodeRestriction) {
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
    await admitNodeTokenRequest(ctx.user, { namespace, serviceAccount: name, boundObjectRef: spec.boundObjectRef, audiences }, (ns, pod) => lookup.get('pods', ns, pod), opts.authorize);
  }
  const sa = await lookup.get('serviceaccounts', namespace, name);
  if (!sa) throw apiErrors.notFound({ group: '', resource: 'serviceaccounts' }, name);

  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : issuer.apiAudiences;
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  const path = FieldPath.root('spec');
  const errs = expirationSecondsErrors(expirationSeconds).map((d) => fieldErrors.invalid(path.child('expirationSeconds'), expirationSeconds, d));
  const ref = spec.boundObjectRef;
  if (ref) {
    if (!ref.kind || !BOUND_KINDS[ref.kind]) errs.push(fieldErrors.notSupported(path.child('boundObjectRef', 'kind'), ref.kind ?? '', Object.keys(BOUND_KINDS)));
    if (!ref.name) errs.push(fieldErrors.required(path.child('boundObjectRef', 'name')));
  }
  if (errs.length) throw apiErrors.invalid('authentication.k8s.io', 'TokenRequest', name, errs);

  let pod: ObjectRef | undefined;
  let secret: ObjectRef | undefined;
  let node: ObjectRef | undefined;
  if (ref) {
    const resource = BOUND_KINDS[ref.kind!];
    const obj = await lookup.get(resource, namespace, ref.name!);
    if (!obj) throw apiErrors.notFound({ group: '', resource }, ref.name!);
    if (ref.uid && ref.uid !== obj.metadata?.uid) {
      throw apiErrors.conflict({ group: '', resource: ref.kind! }, ref.name!, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (resource === 'pods') {
      const podSpec = (obj.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
      if ((podSpec.serviceAccountName || 'default') !== name) {
        throw apiErrors.badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      }
      pod = refOf(obj);
      // The pod's node goes into the token when it is known (upstream's ServiceAccountTokenPodNodeInfo).
      if (podSpec.nodeName) {
        const n = await lookup.get('nodes', '', podSpec.nodeName);
        if (n) node = refOf(n);
      }
    } else if (resource === 'secrets') secret = refOf(obj);
    else node = refOf(obj);
  }

  const now = Math.floor(Date.now() / 1000);
  const issued = tokenClaims({
    issuer: issuer.issuer,
    audiences,
    now,
    expirationSeconds,
    maxExpirationSeconds: issuer.maxExpirationSeconds,
    extendExpiration: issuer.extendExpiration,
    apiAudiences: issuer.apiAudiences,
    namespace,
    serviceAccount: refOf(sa),
    pod,
    secret,
    node,
    jti: randomUUID(),
  });
  const token = await issuer.sign(issued.claims);
  if (issued.warning) ctx.res.setHeader('Warning', `299 - ${JSON.stringify(issued.warning)}`);
  const outSpec: Record<string, unknown> = { audiences, expirationSeconds: issued.reportedExpirationSeconds };
  if (ref) outSpec.boundObjectRef = { kind: ref.kind, apiVersion: ref.apiVersion ?? 'v1', name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) };
  writeJson(ctx.req, ctx.res, 201, {
    kind: 'TokenRequest',
    apiVersion: GROUP_VERSION,
    metadata: { name, namespace, creationTimestamp: new Date(now * 1000).toISOString().replace('.000Z', 'Z') },
    spec: outSpec,
    status: { token, expirationTimestamp: new Date((now + issued.reportedExpirationSeconds) * 1000).toISOString().replace('.000Z', 'Z') },
  });
}
