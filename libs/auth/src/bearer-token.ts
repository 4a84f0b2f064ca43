// pkg/authentication/request/bearertoken and .../websocket: pull a token out of the request and hand it
// to a TokenAuthenticator. A token that nobody accepts is an error ("invalid bearer token"), so the
// request gets a 401 rather than falling through to anonymous.
import type { IncomingMessage } from 'node:http';
import { asMaybeSync, thenMaybe } from './maybe-promise';
import type { AuthResponse, MaybePromise, RequestAuthenticator, TokenAuthenticator } from './types';

const invalidToken = () => new Error('invalid bearer token');

/**
 * The token authenticator's answer, without a promise when it has one at hand (a cache hit, or a
 * verification that needed no I/O): most authenticated requests then run no microtask here.
 */
function answerFor(tokens: TokenAuthenticator): (token: string) => MaybePromise<AuthResponse | null> {
  const sync = asMaybeSync(tokens);
  return sync ? (token) => sync.authenticateTokenMaybeSync(token) : (token) => tokens.authenticateToken(token);
}

/** The token of `Authorization: Bearer <token>`, or null when there is none (upstream's exact rules). */
export function bearerTokenFromHeader(header: string | undefined): string | null {
  const auth = (header ?? '').trim();
  if (!auth) return null;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return null;
  const token = parts[1];
  if (!token) return null;
  return token;
}

export function bearerTokenAuthenticator(tokens: TokenAuthenticator): RequestAuthenticator {
  const answer = answerFor(tokens);
  return {
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      const token = bearerTokenFromHeader(req.headers.authorization);
      if (token === null) return null;
      return thenMaybe(answer(token), (res) => {
        if (!res) throw invalidToken();
        // Later stages (and proxies) must not see the credential.
        delete req.headers.authorization;
        return res;
      });
    },
  };
}

const WS_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** `Sec-WebSocket-Protocol: base64url.bearer.authorization.k8s.io.<b64url(token)>` on upgrade requests. */
export function websocketProtocolAuthenticator(tokens: TokenAuthenticator): RequestAuthenticator {
  const answer = answerFor(tokens);
  return {
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      const upgrade = (req.headers.upgrade ?? '').toLowerCase();
      const conn = (req.headers.connection ?? '').toLowerCase();
      if (upgrade !== 'websocket' || !conn.split(',').some((c) => c.trim() === 'upgrade')) return null;
      const header = req.headers['sec-websocket-protocol'];
      if (!header) return null;
      let token: string | null = null;
      let sawPrefix = false;
      for (const raw of header.split(',')) {
        const p = raw.trim();
        if (!p.startsWith(WS_PROTOCOL_PREFIX)) continue;
        if (sawPrefix) throw new Error('multiple base64.bearer.authorization tokens specified');
        sawPrefix = true;
        const enc = p.slice(WS_PROTOCOL_PREFIX.length);
        if (!/^[A-Za-z0-9_-]*$/.test(enc)) throw new Error('invalid base64.bearer.authorization token encoding');
        token = Buffer.from(enc, 'base64url').toString('utf8');
      }
      if (!sawPrefix) return null;
      if (!token) throw new Error('invalid base64.bearer.authorization token');
      return thenMaybe(answer(token), (res) => {
        if (!res) throw invalidToken();
        return res;
      });
    },
  };
}
