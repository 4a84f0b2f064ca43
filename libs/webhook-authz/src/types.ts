// The result every authorizer in this library returns: upstream's (decision, reason, error) triple. The error
// travels with the decision so that a chain can tell "NoOpinion because the webhook failed" (HTTP 500) from a
// plain NoOpinion (HTTP 403), and a failing Deny-policy webhook from a real denial.
import type { Attributes, Decision, MaybePromise } from '@cl/auth';

export interface AuthorizationResult extends Decision {
  /** Set when the authorizer could not decide cleanly (webhook failure, match condition error). */
  error?: Error;
}

export interface AuthorizeOptions {
  /** Cancels an in-flight webhook call (upstream: the request context). */
  signal?: AbortSignal;
}

/** An authorizer of this library; structurally also an `@cl/auth` Authorizer. */
export interface ChainAuthorizer {
  /** Synchronous when no I/O is needed (built-in rules); webhooks answer with a promise. */
  authorize(attrs: Attributes, opts?: AuthorizeOptions): MaybePromise<AuthorizationResult>;
}

export type Logger = (message: string) => void;

export const noOpinion = (reason = '', error?: Error): AuthorizationResult =>
  error ? { decision: 'NoOpinion', reason, error } : { decision: 'NoOpinion', reason };
