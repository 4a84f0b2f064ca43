// The bound service-account token authenticator (upstream's pkg/serviceaccount JWTTokenAuthenticator with the
// bound-token validator): a token whose unverified `iss` is one of --service-account-issuer is this
// authenticator's; any other token is left to the next authenticator (null). Ours must carry a valid signature
// from a --service-account-key-file key, be within its lifetime (60 s leeway, as upstream), name one of
// --api-audiences, and with --service-account-lookup the service account and the bound pod/secret must still
// exist with the UIDs in the token; anything else rejects the request (401).
import { compactVerify, decodeJwt } from 'jose';
import type { AuthResponse, TokenAuthenticator, UserInfo } from '@cl/auth';
import { serviceAccountUsername, type PrivateClaims, type TokenClaims } from './claims';
import type { TokenIssuer } from './issuer';
import type { ObjectLookup } from './lookup';

const LEEWAY_SECONDS = 60;
/** A deleting pod's tokens stay valid this long past its deletionTimestamp (upstream's grace). */
const DELETED_POD_GRACE_SECONDS = 60;

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

export class TokenRejected extends Error {}

export interface AuthenticatorClock {
  /** Seconds since the epoch. */
  now(): number;
}

const realClock: AuthenticatorClock = { now: () => Math.floor(Date.now() / 1000) };

/** The user a validated token stands for (upstream's serviceaccount.UserInfo). */
export function serviceAccountUser(claims: TokenClaims): UserInfo {
  const k = claims['kubernetes.io'];
  const extra: Record<string, string[]> = {};
  if (k.pod) {
    extra[EXTRA_POD_NAME] = [k.pod.name];
    extra[EXTRA_POD_UID] = [k.pod.uid];
  }
  if (k.node) {
    extra[EXTRA_NODE_NAME] = [k.node.name];
    if (k.node.uid) extra[EXTRA_NODE_UID] = [k.node.uid];
  }
  if (claims.jti) extra[EXTRA_CREDENTIAL_ID] = [`JTI=${claims.jti}`];
  return {
    username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
    uid: k.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`],
    extra,
  };
}

export function serviceAccountTokenAuthenticator(issuer: TokenIssuer, lookup: ObjectLookup, clock: AuthenticatorClock = realClock): TokenAuthenticator {
  return {
    async authenticateToken(token: string): Promise<AuthResponse | null> {
      const iss = unverifiedIssuer(token);
      if (iss === null || !issuer.issuers.includes(iss)) return null;
      const claims = await verifiedClaims(token, issuer);
      const audiences = checkClaims(claims, issuer, clock.now());
      if (issuer.lookup) await checkBoundObjects(claims['kubernetes.io'], lookup, clock.now());
      return { user: serviceAccountUser(claims), audiences };
    },
  };
}

/** The `iss` of a compact JWT before verification, or null when the token is not one (then it is not ours). */
function unverifiedIssuer(token: string): string | null {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}

async function verifiedClaims(token: string, issuer: TokenIssuer): Promise<TokenClaims> {
  const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as { kid?: string; alg?: string };
  const keys = issuer.keys.verification;
  // Keys with the token's key ID first; a token without one is tried against every key (upstream does both).
  const candidates = header.kid ? [...keys.filter((k) => k.kid === header.kid), ...keys.filter((k) => k.kid !== header.kid)] : keys;
  for (const k of candidates) {
    if (header.alg !== k.alg) continue;
    try {
      const { payload } = await compactVerify(token, k.key);
      return JSON.parse(Buffer.from(payload).toString('utf8')) as TokenClaims;
    } catch {
      // the next key
    }
  }
  throw new TokenRejected('invalid bearer token, square/go-jose: error in cryptographic primitive');
}

/** Lifetime, audience and the private claim; returns the audiences the token is valid for here. */
export function checkClaims(claims: TokenClaims, issuer: TokenIssuer, now: number): string[] {
  if (typeof claims.exp === 'number' && now > claims.exp + LEEWAY_SECONDS) throw new TokenRejected('service account token has expired');
  if (typeof claims.nbf === 'number' && now < claims.nbf - LEEWAY_SECONDS) throw new TokenRejected('service account token is not valid yet');
  const aud = Array.isArray(claims.aud) ? claims.aud : typeof claims.aud === 'string' ? [claims.aud] : [];
  const matched = aud.filter((a) => issuer.apiAudiences.includes(a));
  if (matched.length === 0) throw new TokenRejected(`token audiences ${JSON.stringify(aud)} is invalid for the target audiences ${JSON.stringify(issuer.apiAudiences)}`);
  const k = claims['kubernetes.io'] as PrivateClaims | undefined;
  if (!k || !k.namespace || !k.serviceaccount?.name || claims.sub !== serviceAccountUsername(k.namespace, k.serviceaccount.name)) {
    throw new TokenRejected('service account token claims could not be retrieved');
  }
  return matched;
}

/** --service-account-lookup: the objects the token names must still be the ones it was issued for. */
async function checkBoundObjects(k: PrivateClaims, lookup: ObjectLookup, now: number): Promise<void> {
  const sa = await lookup.get('serviceaccounts', k.namespace, k.serviceaccount.name);
  if (!sa) throw new TokenRejected(`service account ${k.namespace}/${k.serviceaccount.name} has been deleted`);
  if (sa.metadata?.uid !== k.serviceaccount.uid) throw new TokenRejected(`service account UID (${sa.metadata?.uid}) does not match claim (${k.serviceaccount.uid})`);
  if (sa.metadata?.deletionTimestamp) throw new TokenRejected(`service account ${k.namespace}/${k.serviceaccount.name} is being deleted`);
  if (k.pod) {
    const pod = await lookup.get('pods', k.namespace, k.pod.name);
    if (!pod) throw new TokenRejected(`pod ${k.namespace}/${k.pod.name} has been deleted`);
    if (pod.metadata?.uid !== k.pod.uid) throw new TokenRejected(`pod UID (${pod.metadata?.uid}) does not match claim (${k.pod.uid})`);
    const deleting = pod.metadata?.deletionTimestamp;
    if (deleting && Date.parse(deleting) / 1000 < now - DELETED_POD_GRACE_SECONDS) throw new TokenRejected(`pod ${k.namespace}/${k.pod.name} is being deleted`);
  }
  if (k.secret) {
    const secret = await lookup.get('secrets', k.namespace, k.secret.name);
    if (!secret) throw new TokenRejected(`secret ${k.namespace}/${k.secret.name} has been deleted`);
    if (secret.metadata?.uid !== k.secret.uid) throw new TokenRejected(`secret UID (${secret.metadata?.uid}) does not match claim (${k.secret.uid})`);
    if (secret.metadata?.deletionTimestamp) throw new TokenRejected(`secret ${k.namespace}/${k.secret.name} is being deleted`);
  }
  // A node-bound token (no pod) is valid while that node exists; a pod's node is information only.
  if (k.node && !k.pod) {
    const node = await lookup.get('nodes', '', k.node.name);
    if (!node) throw new TokenRejected(`node ${k.node.name} has been deleted`);
    if (k.node.uid && node.metadata?.uid !== k.node.uid) throw new TokenRejected(`node UID (${node.metadata?.uid}) does not match claim (${k.node.uid})`);
  }
}
