// Using the JWT authenticators from any Node service, without the API server: a cached token
// authenticator built from configuration, a one-call `verifyToken`, and an Express-style middleware.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerTokenFromHeader,
  cachedTokenAuthenticator,
  withAuthenticatedGroup,
  type AuthResponse,
  type TokenAuthenticator,
  type UserInfo,
} from '@cl/auth';
import type { AuthenticationConfiguration, JWTAuthenticator as JWTAuthenticatorConfig } from '@cl/config';
import type { JwtAuthenticatorOptions } from './jwt-authenticator';
import { JwtAuthenticators } from './jwt-authenticators';

export interface JwtVerifierOptions extends JwtAuthenticatorOptions {
  /** How long accepted tokens are remembered (default 10s as upstream; 0 disables the cache). */
  successTtlMs?: number;
}

export interface JwtVerifier extends TokenAuthenticator {
  readonly authenticators: JwtAuthenticators;
  /** The user of a valid token (with `system:authenticated`); throws why the token is not valid. */
  verify(token: string): Promise<UserInfo>;
  /** Resolves when every issuer has been discovered, rejects after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  close(): void;
}

export class TokenRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRejectedError';
  }
}

export function createJwtVerifier(config: AuthenticationConfiguration | readonly JWTAuthenticatorConfig[], opts: JwtVerifierOptions = {}): JwtVerifier {
  const entries = Array.isArray(config) ? (config as readonly JWTAuthenticatorConfig[]) : ((config as AuthenticationConfiguration).jwt ?? []);
  const authenticators = new JwtAuthenticators(entries, opts);
  const ttl = opts.successTtlMs ?? 10_000;
  const tokens: TokenAuthenticator = ttl > 0 ? cachedTokenAuthenticator(authenticators, { successTtlMs: ttl, failureTtlMs: 0 }) : authenticators;
  return {
    authenticators,
    authenticateToken: (t) => tokens.authenticateToken(t),
    async verify(token: string): Promise<UserInfo> {
      let res: AuthResponse | null;
      try {
        res = await tokens.authenticateToken(token);
      } catch (e) {
        throw new TokenRejectedError((e as Error).message);
      }
      if (!res) throw new TokenRejectedError('invalid bearer token');
      return withAuthenticatedGroup(res.user);
    },
    ready: (timeoutMs = 30_000) => authenticators.waitUntilHealthy(timeoutMs, 200),
    close: () => authenticators.close(),
  };
}

/** The request type the middleware fills in (Express's Request is one). */
export type RequestWithUser = IncomingMessage & { user?: UserInfo };

export interface MiddlewareOptions {
  /** Reject requests without a bearer token (default true). When false they pass with no user. */
  required?: boolean;
  /** Where to report why a token was refused (never sent to the caller). */
  onRejected?: (err: Error, req: IncomingMessage) => void;
}

function unauthorized(res: ServerResponse): void {
  res.statusCode = 401;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
}

/** `(req, res, next)` middleware: a valid bearer token puts the user on `req.user`; a bad one is a 401. */
export function jwtMiddleware(verifier: Pick<JwtVerifier, 'verify'>, opts: MiddlewareOptions = {}) {
  const required = opts.required ?? true;
  return (req: RequestWithUser, res: ServerResponse, next: (err?: unknown) => void): void => {
    const token = bearerTokenFromHeader(req.headers.authorization);
    if (token === null) {
      if (required) unauthorized(res);
      else next();
      return;
    }
    verifier.verify(token).then(
      (user) => {
        req.user = user;
        next();
      },
      (err: Error) => {
        opts.onRejected?.(err, req);
        unauthorized(res);
      },
    );
  };
}
