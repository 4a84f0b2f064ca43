// The few interfaces every authentication and authorization piece composes through (ARCHITECTURE.md),
// shaped after k8s.io/apiserver's authenticator / authorizer packages.
import type { IncomingMessage } from 'node:http';

/** authentication.k8s.io/v1 UserInfo, with the optional fields made explicit. */
export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

export interface AuthResponse {
  user: UserInfo;
  /** The audiences the credential was valid for, when the authenticator knows them. */
  audiences?: string[];
}

/**
 * A value now or a promise of it. The pieces on the request path answer synchronously when they need no I/O
 * (anonymous, no credential, AlwaysAllow, RBAC-like rules), so such a request allocates no promise per layer;
 * `await` takes either form, and `thenMaybe` continues without one.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Authenticates a whole request. Answers `null` when the request carries no credential this
 * authenticator understands ("not mine"); throws or rejects when it carries one that is invalid.
 */
export interface RequestAuthenticator {
  authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null>;
}

/** Same contract as RequestAuthenticator for a bare bearer token. */
export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<AuthResponse | null>;
}

/**
 * A token authenticator that can answer without a promise when it needs no I/O (returns the value or
 * throws); the token cache uses it to skip its single-flight bookkeeping for such answers.
 */
export interface MaybeSyncTokenAuthenticator extends TokenAuthenticator {
  authenticateTokenMaybeSync(token: string): AuthResponse | null | Promise<AuthResponse | null>;
}

export type DecisionKind = 'Allow' | 'Deny' | 'NoOpinion';

export interface Decision {
  decision: DecisionKind;
  reason: string;
}

/** One parsed label or field selector requirement (`key op values`). */
export interface SelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals';
  values: string[];
}

/** What an authorizer decides on: upstream's authorizer.Attributes as plain data. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** The request path (for non-resource requests the thing that is authorized). */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Present when the request had a parseable `fieldSelector` / `labelSelector`. */
  fieldSelector?: SelectorRequirement[];
  labelSelector?: SelectorRequirement[];
}

/** Decides on a request; answers synchronously when no I/O is needed (see MaybePromise). */
export interface Authorizer {
  authorize(attrs: Attributes): MaybePromise<Decision>;
}

/** A convenience constructor that fills the optional user fields. */
export function userInfo(u: Partial<UserInfo> & { username: string }): UserInfo {
  return { username: u.username, uid: u.uid ?? '', groups: u.groups ?? [], extra: u.extra ?? {} };
}
