// pkg/authentication/group/authenticated_group_adder.go: every authenticated user except the anonymous
// one gets `system:authenticated` appended last, unless it already has it or `system:unauthenticated`.
import type { IncomingMessage } from 'node:http';
import type { AuthResponse, RequestAuthenticator, UserInfo } from './types';

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
    async authenticate(req: IncomingMessage): Promise<AuthResponse | null> {
      const res = await inner.authenticate(req);
      if (!res) return null;
      return { ...res, user: withAuthenticatedGroup(res.user) };
    },
  };
}
