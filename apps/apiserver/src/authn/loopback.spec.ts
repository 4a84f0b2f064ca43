import type { IncomingMessage } from 'node:http';
import { loopbackHost } from '../loopback-client';
import { loopbackAuthenticator, newLoopbackCredential } from './loopback';

const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

describe('the loopback credential', () => {
  const credential = newLoopbackCredential();
  const authn = loopbackAuthenticator(credential);

  test('a new token each time: 32 random bytes, base64url; the user is system:apiserver in system:masters', () => {
    expect(credential.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(credential.token, 'base64url')).toHaveLength(32);
    const other = newLoopbackCredential();
    expect(other.token).not.toBe(credential.token);
    expect(other.user.uid).not.toBe(credential.user.uid);
    expect(credential.user).toEqual({ username: 'system:apiserver', uid: expect.stringMatching(/^[0-9a-f-]{36}$/), groups: ['system:authenticated', 'system:masters'], extra: {} });
  });

  test('accepts its own token, and removes it from the request', () => {
    const req = request(`Bearer ${credential.token}`);
    expect(authn.authenticate(req)).toEqual({ user: credential.user });
    expect(req.headers.authorization).toBeUndefined();
  });

  // Not its token: null ("not mine"), so the rest of the chain decides, and the header stays for it.
  test.each([
    ['no Authorization header', undefined],
    ['basic credentials', `Basic ${credential.token}`],
    ['another token', 'Bearer some-other-token'],
    ['another token of the same length', `Bearer ${'a'.repeat(credential.token.length)}`],
    ['the same length in characters, not in bytes', `Bearer ${'é'.repeat(credential.token.length)}`],
    ['its token with a suffix', `Bearer ${credential.token}x`],
  ])('%s: not mine', (_name, header) => {
    const req = request(header);
    expect(authn.authenticate(req)).toBeNull();
    expect(req.headers.authorization).toBe(header);
  });
});

test.each([
  ['0.0.0.0', '127.0.0.1'],
  ['::', '::1'],
  ['127.0.0.1', '127.0.0.1'],
  ['10.0.0.5', '10.0.0.5'],
  ['::1', '::1'],
])('the loopback client of --bind-address=%s dials %s', (bind, host) => {
  expect(loopbackHost(bind)).toBe(host);
});
