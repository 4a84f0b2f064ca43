// Service account tokens on the request path. kube-apiserver rejects any bearer token no authenticator accepts;
// this server has always ignored bearer tokens when no token authenticator was configured (clients with a
// placeholder token are anonymous). So that issuing service account tokens by default does not change that,
// this authenticator only answers for tokens naming one of its issuers (the service-account authenticator
// returns null for every other token): an unrelated token passes on to the rest of the chain unchanged.
import { bearerTokenFromHeader, type AuthResponse, type MaybePromise, type RequestAuthenticator, type TokenAuthenticator } from '@cl/auth';
import type { IncomingMessage } from 'node:http';

export function serviceAccountBearerAuthenticator(tokens: TokenAuthenticator): RequestAuthenticator {
  return {
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      const token = bearerTokenFromHeader(req.headers.authorization);
      if (token === null) return null;
      return tokens.authenticateToken(token).then((res) => {
        // Later stages (and proxies) must not see the credential.
        if (res) delete req.headers.authorization;
        return res;
      });
    },
  };
}
