// Union of authenticators (k8s.io/apiserver pkg/authentication/{request,token}/union): tried in order,
// the first success wins. Without failOnError, errors are collected and the next one is tried; the
// aggregate is thrown only if nobody accepted. With failOnError the first error ends the chain.
import type { IncomingMessage } from 'node:http';
import { aggregate, toError } from './errors';
import { isPromiseLike } from './maybe-promise';
import type { AuthResponse, MaybePromise, RequestAuthenticator, TokenAuthenticator } from './types';

export interface UnionOptions {
  failOnError?: boolean;
}

async function runUnion<T>(
  handlers: readonly T[],
  call: (h: T) => Promise<AuthResponse | null>,
  failOnError: boolean,
  errors: Error[] = [],
): Promise<AuthResponse | null> {
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

/**
 * The request union answers synchronously while its members do: it walks the list in place and only hands the
 * rest of the walk to runUnion once a member returns a promise.
 */
export function unionAuthenticator(
  authenticators: readonly RequestAuthenticator[],
  opts: UnionOptions = {},
): RequestAuthenticator {
  if (authenticators.length === 1) return authenticators[0];
  const list = [...authenticators];
  const failOnError = !!opts.failOnError;
  return {
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      let errors: Error[] | null = null;
      for (let i = 0; i < list.length; i++) {
        let res: MaybePromise<AuthResponse | null>;
        try {
          res = list[i].authenticate(req);
        } catch (e) {
          if (failOnError) throw toError(e);
          (errors ??= []).push(toError(e));
          continue;
        }
        if (isPromiseLike(res)) return finishAsync(list, i, res, req, errors ?? [], failOnError);
        if (res) return res;
      }
      const err = errors && aggregate(errors);
      if (err) throw err;
      return null;
    },
  };
}

/** The rest of a request union once member `i` answered with a promise. */
async function finishAsync(
  list: readonly RequestAuthenticator[],
  i: number,
  pending: Promise<AuthResponse | null>,
  req: IncomingMessage,
  errors: Error[],
  failOnError: boolean,
): Promise<AuthResponse | null> {
  try {
    const res = await pending;
    if (res) return res;
  } catch (e) {
    if (failOnError) throw toError(e);
    errors.push(toError(e));
  }
  return runUnion(list.slice(i + 1), async (a) => a.authenticate(req), failOnError, errors);
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
