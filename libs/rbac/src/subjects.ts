// Whether a binding's subject names a user (upstream's appliesToUser): a User by name, a Group by membership, a
// ServiceAccount by its username `system:serviceaccount:<namespace>:<name>`, the namespace defaulting to the
// binding's own when the subject leaves it out.
import type { UserInfo } from '@cl/auth';
import type { Subject } from './types';

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export const serviceAccountUsername = (namespace: string, name: string) => `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;

/** The index key of a subject: users and service accounts by username, groups by name. */
export function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return userKey(s.name);
    case 'Group':
      return groupKey(s.name);
    case 'ServiceAccount':
      return userKey(serviceAccountUsername(s.namespace || bindingNamespace, s.name));
    default:
      return undefined;
  }
}

/** The index keys a user's bindings are found under: its name, and each of its groups. */
export const userKey = (username: string) => `u:${username}`;
export const groupKey = (group: string) => `g:${group}`;

export function appliesTo(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.username === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount':
      return user.username === serviceAccountUsername(s.namespace || bindingNamespace, s.name);
    default:
      return false;
  }
}

/** upstream's describeSubject: `User "jane"`, `ServiceAccount "default/ns"` (name/namespace). */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}
