// pkg/authentication/request/anonymous: everyone is `system:anonymous` in `system:unauthenticated`,
// unless conditions are configured, in which case only those exact paths (query ignored) qualify.
import type { IncomingMessage } from 'node:http';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from './group-adder';
import type { AuthResponse, RequestAuthenticator } from './types';

export interface AnonymousCondition {
  path: string;
}

export interface AnonymousOptions {
  conditions?: readonly AnonymousCondition[];
}

export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export function anonymousAuthenticator(opts: AnonymousOptions = {}): RequestAuthenticator {
  const allowed = new Set((opts.conditions ?? []).map((c) => c.path));
  return {
    authenticate(req: IncomingMessage): AuthResponse | null {
      if (allowed.size > 0 && !allowed.has(requestPath(req))) return null;
      return { user: { username: ANONYMOUS_USER, uid: '', groups: [ALL_UNAUTHENTICATED], extra: {} } };
    },
  };
}
