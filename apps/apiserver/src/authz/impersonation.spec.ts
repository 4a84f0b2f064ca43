import type { IncomingMessage } from 'node:http';
import { userInfo, type Attributes } from '@cl/auth';
import { hasImpersonationHeaders, impersonate } from './impersonation';

function request(raw: string[]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) headers[raw[i].toLowerCase()] = raw[i + 1];
  return { rawHeaders: raw, headers } as unknown as IncomingMessage;
}

const admin = userInfo({ username: 'root', groups: ['admins'] });

describe('impersonation', () => {
  it('is noticed only with an Impersonate-* header', () => {
    expect(hasImpersonationHeaders(request(['Authorization', 'Bearer x', 'Accept', '*/*']))).toBe(false);
    expect(hasImpersonationHeaders(request(['Impersonate-User', 'jane']))).toBe(true);
    expect(hasImpersonationHeaders(request(['impersonate-group', 'g']))).toBe(true);
  });

  it('authorizes each part as verb impersonate and builds the user (system:authenticated added)', async () => {
    const asked: Attributes[] = [];
    const out = await impersonate(
      request(['Impersonate-User', 'jane', 'Impersonate-Group', 'dev', 'Impersonate-Group', 'ops', 'Impersonate-Uid', 'u-1', 'Impersonate-Extra-Scopes%2Fa', 'view']),
      admin,
      (a) => (asked.push(a), { decision: 'Allow', reason: '' }),
    );
    expect(out).toEqual({ user: { username: 'jane', uid: 'u-1', groups: ['dev', 'ops', 'system:authenticated'], extra: { 'scopes/a': ['view'] } } });
    expect(asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.name])).toEqual([
      ['impersonate', '', 'users', '', 'jane'],
      ['impersonate', '', 'groups', '', 'dev'],
      ['impersonate', '', 'groups', '', 'ops'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes/a', 'view'],
      ['impersonate', 'authentication.k8s.io', 'uids', '', 'u-1'],
    ]);
  });

  it('a service account is authorized in its namespace and gets the service account groups', async () => {
    let asked: Attributes | undefined;
    const out = await impersonate(request(['Impersonate-User', 'system:serviceaccount:ns:builder']), admin, (a) => ((asked = a), { decision: 'Allow', reason: '' }));
    expect(asked).toMatchObject({ resource: 'serviceaccounts', namespace: 'ns', name: 'builder' });
    expect(out).toEqual({ user: { username: 'system:serviceaccount:ns:builder', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'], extra: {} } });
  });

  it('stops at the first part not allowed, and refuses groups without a user', async () => {
    const out = await impersonate(request(['Impersonate-User', 'jane', 'Impersonate-Group', 'root']), admin, (a) => ({ decision: a.resource === 'groups' ? 'NoOpinion' : 'Allow', reason: '' }));
    expect(out).toMatchObject({ forbidden: { resource: 'groups', name: 'root', user: admin }, reason: '' });
    const bad = await impersonate(request(['Impersonate-Group', 'root']), admin, () => ({ decision: 'Allow', reason: '' }));
    expect('error' in bad && bad.error.message).toBe('requested [groups=root] without impersonating a user');
  });

  it('impersonating system:anonymous adds system:unauthenticated', async () => {
    const out = await impersonate(request(['Impersonate-User', 'system:anonymous']), admin, () => ({ decision: 'Allow', reason: '' }));
    expect(out).toEqual({ user: { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} } });
  });
});
