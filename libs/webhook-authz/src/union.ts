// Composition (k8s.io/apiserver pkg/authorization/union and authorizerfactory): the first Allow or Deny wins
// with its own reason and error; when everyone has no opinion the reasons are joined by newlines and the
// errors aggregated. Configured authorizers are wrapped to count their terminal decisions.
import { aggregate, isPromiseLike, thenMaybe, type Attributes, type MaybePromise } from '@cl/auth';
import { authorizationMetrics } from './metrics';
import type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer } from './types';

/** Walks the members synchronously while they answer synchronously; the first promise hands the rest to `finishAsync`. */
export function unionAuthorizer(authorizers: readonly ChainAuthorizer[]): ChainAuthorizer {
  return {
    authorize(attrs: Attributes, opts?: AuthorizeOptions): MaybePromise<AuthorizationResult> {
      return walk(authorizers, 0, attrs, opts, null);
    },
  };
}

interface Collected {
  reasons: string[];
  errors: Error[];
}

function walk(list: readonly ChainAuthorizer[], from: number, attrs: Attributes, opts: AuthorizeOptions | undefined, seen: Collected | null): MaybePromise<AuthorizationResult> {
  for (let i = from; i < list.length; i++) {
    let r: MaybePromise<AuthorizationResult>;
    try {
      r = list[i].authorize(attrs, opts);
    } catch (e) {
      r = failed(e);
    }
    if (isPromiseLike(r)) return finishAsync(list, i, r, attrs, opts, seen);
    if (r.decision === 'Allow' || r.decision === 'Deny') return r;
    seen = collect(seen, r);
  }
  return noOpinion(seen);
}

async function finishAsync(
  list: readonly ChainAuthorizer[],
  i: number,
  pending: Promise<AuthorizationResult>,
  attrs: Attributes,
  opts: AuthorizeOptions | undefined,
  seen: Collected | null,
): Promise<AuthorizationResult> {
  const r = await pending.catch(failed);
  if (r.decision === 'Allow' || r.decision === 'Deny') return r;
  return walk(list, i + 1, attrs, opts, collect(seen, r));
}

// An authorizer that throws has no opinion and an error, never a crash of the request.
function failed(e: unknown): AuthorizationResult {
  return { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) };
}

function collect(seen: Collected | null, r: AuthorizationResult): Collected | null {
  if (!r.reason && !r.error) return seen;
  const c = seen ?? { reasons: [], errors: [] };
  if (r.reason) c.reasons.push(r.reason);
  if (r.error) c.errors.push(r.error);
  return c;
}

function noOpinion(seen: Collected | null): AuthorizationResult {
  if (!seen) return { decision: 'NoOpinion', reason: '' };
  const error = aggregate(seen.errors);
  const reason = seen.reasons.join('\n');
  return error ? { decision: 'NoOpinion', reason, error } : { decision: 'NoOpinion', reason };
}

/** Counts Allow and Deny answers in `apiserver_authorization_decisions_total{type,name,decision}`. */
export function instrumentedAuthorizer(type: string, name: string, inner: ChainAuthorizer): ChainAuthorizer {
  const decisions = authorizationMetrics.decisions();
  const allowed = decisions.child({ type, name, decision: 'allowed' });
  const denied = decisions.child({ type, name, decision: 'denied' });
  const count = (r: AuthorizationResult) => {
    if (r.decision === 'Allow') allowed.inc();
    else if (r.decision === 'Deny') denied.inc();
    return r;
  };
  return {
    authorize(attrs, opts) {
      return thenMaybe(inner.authorize(attrs, opts), count);
    },
  };
}

/** `AlwaysAllow`. */
export const alwaysAllowAuthorizer: ChainAuthorizer = { authorize: () => ({ decision: 'Allow', reason: '' }) };

/** `AlwaysDeny`: upstream answers NoOpinion with this reason, so a later authorizer can still allow. */
export const alwaysDenyAuthorizer: ChainAuthorizer = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
};

/** Allows members of any of `groups` without asking anyone (kube-apiserver: `system:masters`). */
export function privilegedGroupsAuthorizer(groups: readonly string[]): ChainAuthorizer {
  const set = new Set(groups);
  return {
    authorize(attrs) {
      for (const g of attrs.user?.groups ?? []) if (set.has(g)) return { decision: 'Allow', reason: '' };
      return { decision: 'NoOpinion', reason: '' };
    },
  };
}
