// pkg/authentication/group/authenticated_group_adder.go: every authenticated user except the anonymous
// one gets `system:authenticated` appended last, unless it already has it or `system:unauthenticated`.
import type { IncomingMessage } from 'node:http';
import { thenMaybe } from './maybe-promise';
import type { AuthResponse, MaybePromise, RequestAuthenticator, UserInfo } from './types';

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';

export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED], extra: { ...user.extra } };
}

export function authenticatedGroupAdder(inner: RequestAuthenticator): RequestAuthenticator {
  return {
    authenticate(req: IncomingMessage): MaybePromise<AuthResponse | null> {
      return thenMaybe(inner.authenticate(req), addGroup);
    },
  };
}

function addGroup(res: AuthResponse | null): AuthResponse | null {
  if (!res) return null;
  const user = withAuthenticatedGroup(res.user);
  return user === res.user ? res : { ...res, user };
}
