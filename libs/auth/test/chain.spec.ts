import type { IncomingMessage } from 'node:http';
import {
  anonymousAuthenticator,
  asMaybeSync,
  promiseOf,
  authenticatedGroupAdder,
  bearerTokenAuthenticator,
  bearerTokenFromHeader,
  unionAuthenticator,
  unionTokenAuthenticator,
  userInfo,
  websocketProtocolAuthenticator,
  type AuthResponse,
  type MaybePromise,
  type MaybeSyncTokenAuthenticator,
  type RequestAuthenticator,
  type TokenAuthenticator,
  type UserInfo,
} from '../src';

const fakeReq = (url = '/', headers: Record<string, string> = {}) => ({ url, headers, method: 'GET' }) as unknown as IncomingMessage;
const yes = (name: string): RequestAuthenticator => ({ authenticate: async () => ({ user: userInfo({ username: name }) }) });
const no: RequestAuthenticator = { authenticate: async () => null };
const fails = (msg: string): RequestAuthenticator => ({
  authenticate: async () => {
    throw new Error(msg);
  },
});

describe('union', () => {
  test.each<[string, RequestAuthenticator[], boolean, string | null, string | null]>([
    ['first success wins', [no, yes('a'), yes('b')], false, 'a', null],
    ['errors are skipped when another accepts', [fails('x'), yes('b')], false, 'b', null],
    ['no one accepts, no errors', [no, no], false, null, null],
    ['one error is reported alone', [fails('x'), no], false, null, 'x'],
    ['several errors are aggregated without duplicates', [fails('x'), fails('y'), fails('x')], false, null, '[x, y]'],
    ['fail-on-error stops at the first error', [fails('x'), yes('b')], true, null, 'x'],
    ['empty union is not mine', [], false, null, null],
  ])('%s', async (_name, list, failOnError, user, err) => {
    const u = unionAuthenticator(list, { failOnError });
    if (err !== null) {
      await expect(u.authenticate(fakeReq())).rejects.toThrow(err);
      return;
    }
    const got = await u.authenticate(fakeReq());
    expect(got?.user.username ?? null).toBe(user);
  });

  test('token union behaves the same', async () => {
    const t = (r: string | null): TokenAuthenticator => ({ authenticateToken: async () => (r ? { user: userInfo({ username: r }) } : null) });
    expect((await unionTokenAuthenticator([t(null), t('z')]).authenticateToken('x'))?.user.username).toBe('z');
  });
});

describe('authenticated group adder', () => {
  test.each<[string, Partial<UserInfo> & { username: string }, string[]]>([
    ['appends system:authenticated last', { username: 'jane', groups: ['dev'] }, ['dev', 'system:authenticated']],
    ['keeps an existing system:authenticated', { username: 'jane', groups: ['system:authenticated', 'dev'] }, ['system:authenticated', 'dev']],
    ['leaves users in system:unauthenticated alone', { username: 'jane', groups: ['system:unauthenticated'] }, ['system:unauthenticated']],
    ['leaves system:anonymous alone', { username: 'system:anonymous', groups: [] }, []],
  ])('%s', async (_n, u, groups) => {
    const a = authenticatedGroupAdder({ authenticate: async () => ({ user: userInfo(u) }) });
    expect((await a.authenticate(fakeReq()))?.user.groups).toEqual(groups);
  });
});

describe('anonymous', () => {
  test.each<[string, string[] | undefined, string, boolean]>([
    ['no conditions allows every path', undefined, '/api/v1/pods', true],
    ['a listed path', ['/livez', '/readyz'], '/livez', true],
    ['query is ignored', ['/livez'], '/livez?verbose', true],
    ['an unlisted path', ['/livez'], '/api', false],
    ['no prefix matching', ['/livez'], '/livez/ping', false],
  ])('%s', async (_n, paths, url, allowed) => {
    const a = anonymousAuthenticator({ conditions: paths?.map((path) => ({ path })) });
    const got = await a.authenticate(fakeReq(url));
    expect(got).toEqual(allowed ? { user: { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} } } : null);
  });
});

describe('bearer token', () => {
  test.each<[string | undefined, string | null]>([
    [undefined, null],
    ['', null],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer  abc', null],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['Bearer abc def', 'abc'],
  ])('header %p gives %p', (h, want) => {
    expect(bearerTokenFromHeader(h)).toBe(want);
  });

  const tokens: TokenAuthenticator = { authenticateToken: async (t) => (t === 'good' ? { user: userInfo({ username: 'jane' }) } : null) };

  test('a good token authenticates and the header is removed', async () => {
    const req = fakeReq('/', { authorization: 'Bearer good' });
    expect((await bearerTokenAuthenticator(tokens).authenticate(req))?.user.username).toBe('jane');
    expect(req.headers.authorization).toBeUndefined();
  });

  test('a token nobody accepts is an error, not "not mine"', async () => {
    await expect(bearerTokenAuthenticator(tokens).authenticate(fakeReq('/', { authorization: 'Bearer bad' }))).rejects.toThrow('invalid bearer token');
  });

  test('a token authenticator that answers synchronously (a cache hit) is answered without a promise', () => {
    const sync: MaybeSyncTokenAuthenticator = {
      authenticateToken: async () => {
        throw new Error('not used');
      },
      authenticateTokenMaybeSync: (t) => (t === 'good' ? { user: userInfo({ username: 'jane' }) } : null),
    };
    const req = fakeReq('/', { authorization: 'Bearer good' });
    const res = bearerTokenAuthenticator(sync).authenticate(req);
    expect(res).not.toBeInstanceOf(Promise);
    expect((res as AuthResponse).user.username).toBe('jane');
    expect(req.headers.authorization).toBeUndefined();
    expect(() => bearerTokenAuthenticator(sync).authenticate(fakeReq('/', { authorization: 'Bearer bad' }))).toThrow('invalid bearer token');
  });

  test('websocket protocol carries the token base64url encoded', async () => {
    const proto = 'base64url.bearer.authorization.k8s.io.' + Buffer.from('good').toString('base64url');
    const req = fakeReq('/', { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-protocol': `v4.channel.k8s.io, ${proto}` });
    expect((await websocketProtocolAuthenticator(tokens).authenticate(req))?.user.username).toBe('jane');
    expect(await websocketProtocolAuthenticator(tokens).authenticate(fakeReq('/'))).toBeNull();
  });
});

describe('promiseOf and asMaybeSync', () => {
  test.each([
    ['a value resolves', () => 'v', { value: 'v' }],
    ['a promise is passed on', () => Promise.resolve('p'), { value: 'p' }],
    ['a synchronous throw rejects', () => { throw new Error('sync'); }, { error: 'sync' }],
    ['a rejection is passed on', () => Promise.reject(new Error('async')), { error: 'async' }],
  ])('%s', async (_name, run: () => MaybePromise<string>, want: { value?: string; error?: string }) => {
    const p = promiseOf(run);
    expect(p).toBeInstanceOf(Promise);
    if (want.error) await expect(p).rejects.toThrow(want.error);
    else await expect(p).resolves.toBe(want.value);
  });

  test('asMaybeSync finds the maybe-synchronous form only where it is offered', () => {
    const plain: TokenAuthenticator = { authenticateToken: async () => null };
    const sync: MaybeSyncTokenAuthenticator = { ...plain, authenticateTokenMaybeSync: () => null };
    expect(asMaybeSync(plain)).toBeNull();
    expect(asMaybeSync(sync)).toBe(sync);
  });
});
