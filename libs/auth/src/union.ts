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

/** A member's error: the end of the union with failOnError, otherwise one more for the aggregate. */
function collect(errors: Error[] | null, e: unknown, failOnError: boolean): Error[] {
  if (failOnError) throw toError(e);
  (errors ??= []).push(toError(e));
  return errors;
}

function noneAccepted(errors: Error[] | null): null {
  const err = errors && aggregate(errors);
  if (err) throw err;
  return null;
}

async function runUnion<T>(handlers: readonly T[], call: (h: T) => Promise<AuthResponse | null>, failOnError: boolean): Promise<AuthResponse | null> {
  let errors: Error[] | null = null;
  for (const h of handlers) {
    try {
      const res = await call(h);
      if (res) return res;
    } catch (e) {
      errors = collect(errors, e, failOnError);
    }
  }
  return noneAccepted(errors);
}

/**
 * The request union answers synchronously while its members do: it walks the list in place, and a member that
 * answers with a promise is awaited before the walk continues after it.
 */
export function unionAuthenticator(
  authenticators: readonly RequestAuthenticator[],
  opts: UnionOptions = {},
): RequestAuthenticator {
  if (authenticators.length === 1) return authenticators[0];
  const list = [...authenticators];
  const failOnError = !!opts.failOnError;
  return {
    authenticate: (req: IncomingMessage) => walk(list, 0, req, null, failOnError),
  };
}

function walk(list: readonly RequestAuthenticator[], from: number, req: IncomingMessage, errors: Error[] | null, failOnError: boolean): MaybePromise<AuthResponse | null> {
  for (let i = from; i < list.length; i++) {
    let res: MaybePromise<AuthResponse | null>;
    try {
      res = list[i].authenticate(req);
    } catch (e) {
      errors = collect(errors, e, failOnError);
      continue;
    }
    if (isPromiseLike(res)) return resume(list, i, res, req, errors, failOnError);
    if (res) return res;
  }
  return noneAccepted(errors);
}

async function resume(
  list: readonly RequestAuthenticator[],
  i: number,
  pending: Promise<AuthResponse | null>,
  req: IncomingMessage,
  errors: Error[] | null,
  failOnError: boolean,
): Promise<AuthResponse | null> {
  try {
    const res = await pending;
    if (res) return res;
  } catch (e) {
    errors = collect(errors, e, failOnError);
  }
  return walk(list, i + 1, req, errors, failOnError);
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
