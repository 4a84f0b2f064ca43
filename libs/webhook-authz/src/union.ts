// Composition (k8s.io/apiserver pkg/authorization/union and authorizerfactory): the first Allow or Deny wins
// with its own reason and error; when everyone has no opinion the reasons are joined by newlines and the
// errors aggregated. Configured authorizers are wrapped to count their terminal decisions.
import { aggregate, type Attributes } from '@cl/auth';
import { authorizationMetrics } from './metrics';
import type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer } from './types';

export function unionAuthorizer(authorizers: readonly ChainAuthorizer[]): ChainAuthorizer {
  return {
    async authorize(attrs: Attributes, opts?: AuthorizeOptions): Promise<AuthorizationResult> {
      const reasons: string[] = [];
      const errors: Error[] = [];
      for (const a of authorizers) {
        let r: AuthorizationResult;
        try {
          r = await a.authorize(attrs, opts);
        } catch (e) {
          // An authorizer that throws has no opinion and an error, never a crash of the request.
          r = { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) };
        }
        if (r.decision === 'Allow' || r.decision === 'Deny') return r;
        if (r.reason) reasons.push(r.reason);
        if (r.error) errors.push(r.error);
      }
      const error = aggregate(errors);
      return error ? { decision: 'NoOpinion', reason: reasons.join('\n'), error } : { decision: 'NoOpinion', reason: reasons.join('\n') };
    },
  };
}

/** Counts Allow and Deny answers in `apiserver_authorization_decisions_total{type,name,decision}`. */
export function instrumentedAuthorizer(type: string, name: string, inner: ChainAuthorizer): ChainAuthorizer {
  const decisions = authorizationMetrics.decisions();
  const allowed = { type, name, decision: 'allowed' };
  const denied = { type, name, decision: 'denied' };
  return {
    async authorize(attrs, opts) {
      const r = await inner.authorize(attrs, opts);
      if (r.decision === 'Allow') decisions.inc(allowed);
      else if (r.decision === 'Deny') decisions.inc(denied);
      return r;
    },
  };
}

/** `AlwaysAllow`. */
export const alwaysAllowAuthorizer: ChainAuthorizer = { authorize: async () => ({ decision: 'Allow', reason: '' }) };

/** `AlwaysDeny`: upstream answers NoOpinion with this reason, so a later authorizer can still allow. */
export const alwaysDenyAuthorizer: ChainAuthorizer = {
  authorize: async () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
};

/** Allows members of any of `groups` without asking anyone (kube-apiserver: `system:masters`). */
export function privilegedGroupsAuthorizer(groups: readonly string[]): ChainAuthorizer {
  const set = new Set(groups);
  return {
    async authorize(attrs) {
      for (const g of attrs.user?.groups ?? []) if (set.has(g)) return { decision: 'Allow', reason: '' };
      return { decision: 'NoOpinion', reason: '' };
    },
  };
}
