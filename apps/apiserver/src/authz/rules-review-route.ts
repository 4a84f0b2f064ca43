// POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews (upstream pkg/registry/authorization/
// selfsubjectrulesreview): what the requesting user may do in spec.namespace, as the union of what each configured
// authorizer can enumerate: RBAC its rules, AlwaysAllow everything, a webhook or a node nothing but `incomplete`.
// This is what `kubectl auth can-i --list` prints.
import type { UserInfo } from '@cl/auth';
import { ApiError } from '@cl/apimachinery';
import type { AuthorizationConfiguration } from '@cl/config';
import { rulesReview, type NonResourceRule, type ResourceRule, type RuleResolver } from '@cl/rbac';
import { readBody, type Route } from '../routes';
import { statusBody, writeJson, writeStatus } from '../status';
import { nodeNameOf } from './node-authorizer';
import { decodeRulesReviewProtobuf } from './review-protobuf';

const GROUP = 'authorization.k8s.io';
const API_VERSION = `${GROUP}/v1`;
const PATH = `/apis/${GROUP}/v1/selfsubjectrulesreviews`;
const KIND = 'SelfSubjectRulesReview';

interface Status {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

/** The union over the configured authorizers (upstream's unionauthorizer RulesFor). */
export function rulesFor(types: readonly string[], resolver: RuleResolver, user: UserInfo, namespace: string): Status {
  const out: Status = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const type of types) {
    if (type === 'RBAC') {
      const r = rulesReview(resolver, user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) out.incomplete = true;
      if (r.evaluationError) errors.push(r.evaluationError);
    } else if (type === 'AlwaysAllow') {
      out.resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      out.nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    } else if (type === 'Webhook') {
      out.incomplete = true;
    } else if (type === 'Node' && nodeNameOf({ user } as Parameters<typeof nodeNameOf>[0])) {
      out.incomplete = true;
      errors.push('node authorizer does not support user rule resolution');
    }
  }
  if (errors.length > 0) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return out;
}

export function rulesReviewRoute(config: () => AuthorizationConfiguration, resolver: RuleResolver): Route {
  return {
    pathClass: PATH,
    matches: (_m, p) => p === PATH,
    async handle(ctx) {
      if (ctx.req.method !== 'POST') return writeStatus(ctx.req, ctx.res, statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
      let body: Record<string, unknown>;
      try {
        const raw = await readBody(ctx.req);
        // kubectl sends the review as Kubernetes protobuf.
        const protobuf = /application\/vnd\.kubernetes\.protobuf/i.test(String(ctx.req.headers['content-type'] ?? ''));
        body = protobuf ? decodeRulesReviewProtobuf(raw) : (JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('expected an object');
      } catch (e) {
        if (e instanceof ApiError) return writeStatus(ctx.req, ctx.res, e.status);
        return writeStatus(ctx.req, ctx.res, statusBody(400, 'BadRequest', `couldn't get version/kind; json parse error: ${(e as Error).message}`, {}));
      }
      const spec = (body.spec ?? {}) as { namespace?: unknown };
      const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
      if (!namespace) return writeStatus(ctx.req, ctx.res, statusBody(400, 'BadRequest', 'no namespace on request', {}));
      const status = rulesFor(config().authorizers.map((a) => a.type), resolver, ctx.user, namespace);
      writeJson(ctx.req, ctx.res, 201, { kind: KIND, apiVersion: API_VERSION, metadata: { creationTimestamp: null }, spec: { namespace }, status });
    },
  };
}
