// authentication.k8s.io/v1 SelfSubjectReview (who am I: `kubectl auth whoami`) and TokenReview (is this
// token valid and whose is it: the node agent's webhook authenticator), both create-only.
import type { TokenAuthenticator, UserInfo } from '@cl/auth';
import { exactRoute, readBody, type RequestContext, type Route } from '../routes';
import { ApiError } from '@cl/apimachinery';
import { statuses, writeJson, writeStatus } from '../status';
import { decodeEnvelope, PROTOBUF_CONTENT_TYPE, tokenReviewSpec } from './protobuf';

export const AUTHN_GROUP = 'authentication.k8s.io';
export const AUTHN_GROUP_VERSION = `${AUTHN_GROUP}/v1`;
export const SELF_SUBJECT_REVIEWS_PATH = `/apis/${AUTHN_GROUP_VERSION}/selfsubjectreviews`;
export const TOKEN_REVIEWS_PATH = `/apis/${AUTHN_GROUP_VERSION}/tokenreviews`;

/** v1 UserInfo JSON: empty fields omitted, as Go's omitempty does. */
function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = u.groups;
  if (Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** Reads and decodes the body as `kind` of authentication.k8s.io/v1; writes the 4xx itself and returns null on failure. */
async function readObject(ctx: RequestContext, kind: string, allowEmpty: boolean): Promise<Record<string, unknown> | null> {
  let body: Buffer;
  try {
    body = await readBody(ctx.req);
  } catch (e) {
    writeStatus(ctx.req, ctx.res, e instanceof ApiError ? e.status : statuses.badRequest((e as Error).message));
    return null;
  }
  const contentType = String(ctx.req.headers['content-type'] ?? '').split(';')[0].trim();
  if (contentType === PROTOBUF_CONTENT_TYPE) {
    let decoded: ReturnType<typeof decodeEnvelope>;
    try {
      decoded = decodeEnvelope(body);
    } catch (e) {
      writeStatus(ctx.req, ctx.res, statuses.badRequest((e as Error).message));
      return null;
    }
    if (decoded.kind !== kind || decoded.apiVersion !== AUTHN_GROUP_VERSION) {
      writeStatus(ctx.req, ctx.res, statuses.badRequest(`the API version in the data (${decoded.apiVersion}) does not match the expected API version (${AUTHN_GROUP_VERSION}) or kind ${JSON.stringify(decoded.kind)} is not ${kind}`));
      return null;
    }
    try {
      return kind === 'TokenReview' ? { kind, apiVersion: decoded.apiVersion, spec: tokenReviewSpec(decoded.raw) } : { kind, apiVersion: decoded.apiVersion };
    } catch (e) {
      writeStatus(ctx.req, ctx.res, statuses.badRequest(`unable to decode ${kind}: ${(e as Error).message}`));
      return null;
    }
  }
  const text = body.toString('utf8').trim();
  if (text === '' && allowEmpty) return {};
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    writeStatus(ctx.req, ctx.res, statuses.badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
    return null;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    writeStatus(ctx.req, ctx.res, statuses.badRequest('couldn\'t get version/kind; json parse error: expected an object'));
    return null;
  }
  const o = obj as Record<string, unknown>;
  if ((o.kind !== undefined && o.kind !== kind) || (o.apiVersion !== undefined && o.apiVersion !== AUTHN_GROUP_VERSION)) {
    writeStatus(ctx.req, ctx.res, statuses.badRequest(`the API version in the data (${String(o.apiVersion ?? '')}) does not match the expected API version (${AUTHN_GROUP_VERSION}) or kind ${JSON.stringify(o.kind)} is not ${kind}`));
    return null;
  }
  return o;
}

export function selfSubjectReviewRoute(): Route {
  return exactRoute(
    SELF_SUBJECT_REVIEWS_PATH,
    async (ctx) => {
      if (!(await readObject(ctx, 'SelfSubjectReview', true))) return;
      writeJson(ctx.req, ctx.res, 201, {
        kind: 'SelfSubjectReview',
        apiVersion: AUTHN_GROUP_VERSION,
        metadata: { creationTimestamp: null },
        status: { userInfo: userInfoJson(ctx.user) },
      });
    },
    ['POST'],
  );
}

export function tokenReviewRoute(tokens: TokenAuthenticator | null, log: (m: string) => void): Route {
  return exactRoute(
    TOKEN_REVIEWS_PATH,
    async (ctx) => {
      const obj = await readObject(ctx, 'TokenReview', false);
      if (!obj) return;
      const spec = (obj.spec && typeof obj.spec === 'object' ? obj.spec : {}) as { token?: unknown; audiences?: unknown };
      const token = typeof spec.token === 'string' ? spec.token : '';
      if (token === '') {
        writeStatus(ctx.req, ctx.res, statuses.badRequest('token is required for TokenReview in authentication'));
        return;
      }
      const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
      const status: Record<string, unknown> = { authenticated: false, user: {} };
      if (audiences.length > 0) {
        // No API audiences are configured, so no token authenticator can vouch for a requested audience
        // (upstream's audience-agnostic wrapper answers "not mine").
        status.error = 'invalid bearer token';
      } else if (!tokens) {
        status.error = 'invalid bearer token';
      } else {
        try {
          const res = await tokens.authenticateToken(token);
          if (res) {
            status.authenticated = true;
            status.user = userInfoJson(res.user);
            if (res.audiences?.length) status.audiences = res.audiences;
          } else status.error = 'invalid bearer token';
        } catch (e) {
          status.error = (e as Error).message;
          log(`TokenReview: token rejected: ${(e as Error).message}`);
        }
      }
      const outSpec: Record<string, unknown> = { token };
      if (audiences.length) outSpec.audiences = audiences;
      writeJson(ctx.req, ctx.res, 201, {
        kind: 'TokenReview',
        apiVersion: AUTHN_GROUP_VERSION,
        metadata: { creationTimestamp: null },
        spec: outSpec,
        status,
      });
    },
    ['POST'],
  );
}
