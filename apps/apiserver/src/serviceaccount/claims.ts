// The claims of a bound service account token, as upstream's serviceaccount.Claims builds them
// (pkg/serviceaccount/claims.go), and the expiration rules of the TokenRequest REST storage
// (pkg/registry/core/serviceaccount/storage/token.go). Pure: the time and the token ID are inputs.

/** A token the ServiceAccount admission plugin asks for: warn after this many seconds, extend when allowed. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
/** How long an extended token really lives (one year). */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 3600;

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface TokenClaimsInput {
  issuer: string;
  audiences: string[];
  /** Seconds since the epoch. */
  now: number;
  /** spec.expirationSeconds after validation. */
  expirationSeconds: number;
  /** --service-account-max-token-expiration in seconds, 0 for none. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
  /** --api-audiences (the extension only applies to tokens for this API). */
  apiAudiences: string[];
  namespace: string;
  serviceAccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  jti: string;
}

export interface PrivateClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  warnafter?: number;
}

export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': PrivateClaims;
}

export interface IssuedClaims {
  claims: TokenClaims;
  /** What the TokenRequest reports: the (possibly shortened) requested lifetime, not the extension. */
  reportedExpirationSeconds: number;
  /** Set when the request was shortened by --service-account-max-token-expiration (upstream warns). */
  warning?: string;
}

export const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;

export function tokenClaims(i: TokenClaimsInput): IssuedClaims {
  let requested = i.expirationSeconds;
  let warning: string | undefined;
  if (i.maxExpirationSeconds > 0 && requested > i.maxExpirationSeconds) {
    warning = `requested expiration of ${requested} seconds shortened to ${i.maxExpirationSeconds} seconds`;
    requested = i.maxExpirationSeconds;
  }
  // The safe-transition extension: only pod-bound tokens of exactly 3607 s for this API's audiences.
  let exp = requested;
  let warnAfter = 0;
  const forThisApi = i.audiences.every((a) => i.apiAudiences.includes(a));
  if (i.extendExpiration && i.pod && requested === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && forThisApi) {
    warnAfter = requested;
    exp = EXPIRATION_EXTENSION_SECONDS;
  }
  const priv: PrivateClaims = { namespace: i.namespace, serviceaccount: i.serviceAccount };
  if (i.pod) priv.pod = i.pod;
  if (i.secret) priv.secret = i.secret;
  if (i.node) priv.node = i.node;
  if (warnAfter) priv.warnafter = i.now + warnAfter;
  return {
    claims: {
      iss: i.issuer,
      sub: serviceAccountUsername(i.namespace, i.serviceAccount.name),
      aud: i.audiences,
      exp: i.now + exp,
      iat: i.now,
      nbf: i.now,
      jti: i.jti,
      'kubernetes.io': priv,
    },
    reportedExpirationSeconds: requested,
    warning,
  };
}

/** spec.expirationSeconds checks (ValidateTokenRequest): field error details, empty when valid. */
export function expirationSecondsErrors(seconds: number): string[] {
  if (seconds < 600) return ['may not specify a duration less than 10 minutes'];
  if (seconds > 2 ** 32) return ['may not specify a duration larger than 2^32 seconds'];
  return [];
}
