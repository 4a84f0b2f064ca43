// kube-apiserver's loopback credential (pkg/server/config.go AuthorizeClientBearerToken): a random bearer token,
// made at start and held only in this process's memory (never written to disk or logged), that authenticates
// the server's own in-process clients as `system:apiserver` in `system:masters`. It goes first in the chain.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ALL_AUTHENTICATED, bearerTokenFromHeader, type AuthResponse, type MaybePromise, type RequestAuthenticator, type UserInfo } from '@cl/auth';

export const APISERVER_USER = 'system:apiserver';
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export interface LoopbackCredential {
  /** 32 random bytes, base64url. */
  readonly token: string;
  readonly user: Readonly<UserInfo>;
}

export function newLoopbackCredential(): LoopbackCredential {
  return {
    token: randomBytes(32).toString('base64url'),
    // Upstream's group order; a random uid per start, as upstream's uuid.
    user: { username: APISERVER_USER, uid: randomUUID(), groups: [ALL_AUTHENTICATED, SYSTEM_PRIVILEGED_GROUP], extra: {} },
  };
}

/**
 * Accepts `Authorization: Bearer <the loopback token>` and nothing else. Any other token is "not mine" (null)
 * rather than upstream's `invalid bearer token` error: the rest of the chain judges it, and a caller sees the
 * same answer either way (upstream's union only adds that error to the aggregate it logs).
 */
export function loopbackAuthenticator(credential: LoopbackCredential): RequestAuthenticator {
  const expected = Buffer.from(credential.token);
  return {
    authenticate(req): MaybePromise<AuthResponse | null> {
      const token = bearerTokenFromHeader(req.headers.authorization);
      if (token === null || token.length !== credential.token.length) return null;
      // Compared in bytes: a token of the same length in characters may differ in bytes.
      const given = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      // As upstream's bearer-token authenticator: later stages never see the credential.
      delete req.headers.authorization;
      const { username, uid, groups } = credential.user;
      return { user: { username, uid, groups: [...groups], extra: {} } };
    },
  };
}
