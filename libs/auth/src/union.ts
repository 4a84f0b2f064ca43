// Union of authenticators (k8s.io/apiserver pkg/authentication/{request,token}/union): tried in order,
// the first success wins. Without failOnError, errors are collected and the next one is tried; the
// aggregate is thrown only if nobody accepted. With failOnError the first error ends the chain.
import type { IncomingMessage } from 'node:http';
import { aggregate, toError } from './errors';
import type { AuthResponse, RequestAuthenticator, TokenAuthenticator } from './types';

export interface UnionOptions {
  failOnError?: boolean;
}

async function runUnion<T>(
  handlers: readonly T[],
  call: (h: T) => Promise<AuthResponse | null>,
  failOnError: boolean,
): Promise<AuthResponse | null> {
  const errors: Error[] = [];
  for (const h of handlers) {
    let res: AuthResponse | null;
    try {
      res = await call(h);
    } catch (e) {
      if (failOnError) throw toError(e);
      errors.push(toError(e));
      continue;
    }
    if (res) return res;
  }
  const err = aggregate(errors);
  if (err) throw err;
  return null;
}

export function unionAuthenticator(
  authenticators: readonly RequestAuthenticator[],
  opts: UnionOptions = {},
): RequestAuthenticator {
  if (authenticators.length === 1) return authenticators[0];
  const list = [...authenticators];
  return {
    authenticate: (req: IncomingMessage) => runUnion(list, (a) => a.authenticate(req), !!opts.failOnError),
  };
}

export function unionTokenAuthenticator(
  authenticators: readonly TokenAuthenticator[],
  opts: UnionOptions = {},
): TokenAuthenticator {
  if (authenticators.length === 1) return authenticators[0];
  const list = [...authenticators];
  return {
    authenticateToken: (token: string) => runUnion(list, (a) => a.authenticateToken(token), !!opts.failOnError),
  };
}
