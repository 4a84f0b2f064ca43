// Continuations that stay synchronous when the value is already there: the request path composes many small
// layers (metrics, unions, group adders), and an `async` function per layer costs a promise and a microtask
// each, even when nothing waits for I/O.
import type { MaybePromise, MaybeSyncTokenAuthenticator, TokenAuthenticator } from './types';

export function isPromiseLike<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/** `next(value)` now when `v` is a value, after it resolves when it is a promise; errors travel the same way. */
export function thenMaybe<T, R>(v: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromiseLike(v) ? v.then(next) : next(v);
}

/** The promise form of a maybe-synchronous call: its value resolved, its synchronous throw rejected. */
export function promiseOf<T>(run: () => MaybePromise<T>): Promise<T> {
  try {
    const v = run();
    return v instanceof Promise ? v : Promise.resolve(v);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The token authenticator itself when it offers the maybe-synchronous form, else null. */
export function asMaybeSync(tokens: TokenAuthenticator): MaybeSyncTokenAuthenticator | null {
  return typeof (tokens as Partial<MaybeSyncTokenAuthenticator>).authenticateTokenMaybeSync === 'function' ? (tokens as MaybeSyncTokenAuthenticator) : null;
}
