import { register } from 'prom-client';
import { cachedTokenAuthenticator, userInfo, type AuthResponse, type MaybeSyncTokenAuthenticator, type TokenAuthenticator } from '../src';

function counting(impl: (t: string) => Promise<AuthResponse | null>) {
  const calls: string[] = [];
  const inner: TokenAuthenticator = {
    authenticateToken: (t) => {
      calls.push(t);
      return impl(t);
    },
  };
  return { inner, calls };
}

const jane = async (t: string) => {
  if (t === 'good') return { user: userInfo({ username: 'jane' }) };
  if (t === 'broken') throw new Error('bad signature');
  return null;
};

async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const m = await register.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value ?? 0;
}

test('successes are served from cache until the TTL passes', async () => {
  let now = 1000;
  const { inner, calls } = counting(jane);
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 10_000, failureTtlMs: 0, now: () => now });
  const hitsBefore = await metricValue('authentication_token_cache_request_total', { status: 'hit' });
  expect((await c.authenticateToken('good'))?.user.username).toBe('jane');
  now += 9_999;
  expect((await c.authenticateToken('good'))?.user.username).toBe('jane');
  expect(calls).toEqual(['good']);
  expect(await metricValue('authentication_token_cache_request_total', { status: 'hit' })).toBe(hitsBefore + 1);
  now += 1;
  await c.authenticateToken('good');
  expect(calls).toEqual(['good', 'good']);
});

test.each([
  ['rejections', 'unknown', null],
  ['errors', 'broken', 'bad signature'],
])('%s are not cached with a zero failure TTL', async (_n, token, err) => {
  const { inner, calls } = counting(jane);
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 10_000, failureTtlMs: 0 });
  for (let i = 0; i < 2; i++) {
    if (err) await expect(c.authenticateToken(token)).rejects.toThrow(err);
    else expect(await c.authenticateToken(token)).toBeNull();
  }
  expect(calls).toHaveLength(2);
  expect(c.size()).toBe(0);
});

test('failures are cached when a failure TTL is given', async () => {
  const { inner, calls } = counting(jane);
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 10_000, failureTtlMs: 5_000 });
  await expect(c.authenticateToken('broken')).rejects.toThrow('bad signature');
  await expect(c.authenticateToken('broken')).rejects.toThrow('bad signature');
  expect(calls).toHaveLength(1);
});

test('concurrent requests for one token share one verification', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { inner, calls } = counting(async (t) => {
    await gate;
    return jane(t);
  });
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 0, failureTtlMs: 0 });
  const all = Promise.all(Array.from({ length: 20 }, () => c.authenticateToken('good')));
  release();
  const results = await all;
  expect(results.every((r) => r?.user.username === 'jane')).toBe(true);
  expect(calls).toHaveLength(1);
});

test('a lookup that never finishes times out', async () => {
  const c = cachedTokenAuthenticator({ authenticateToken: () => new Promise(() => undefined) }, { successTtlMs: 10_000, failureTtlMs: 0, lookupTimeoutMs: 20 });
  await expect(c.authenticateToken('x')).rejects.toThrow('token authentication timed out');
});

test('a full cache drops its oldest entries, and expired ones go first', async () => {
  let now = 0;
  const { inner, calls } = counting(async (t) => ({ user: userInfo({ username: t }) }));
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 1000, failureTtlMs: 0, maxEntries: 3, now: () => now });
  for (const t of ['a', 'b', 'c']) await c.authenticateToken(t);
  await c.authenticateToken('d'); // full: 'a' goes
  expect(c.size()).toBe(3);
  await c.authenticateToken('b'); // still cached
  expect(calls).toEqual(['a', 'b', 'c', 'd']);
  now += 2000; // everything expired: cleaned up as new entries arrive
  await c.authenticateToken('e');
  expect(c.size()).toBe(1);
});

test('an inner authenticator that can answer synchronously is cached the same way', async () => {
  const calls: string[] = [];
  const inner: MaybeSyncTokenAuthenticator = {
    authenticateToken: async () => {
      throw new Error('not used');
    },
    authenticateTokenMaybeSync: (t) => {
      calls.push(t);
      if (t === 'broken') throw new Error('bad signature');
      if (t === 'slow') return Promise.resolve({ user: userInfo({ username: 'slow' }) });
      return t === 'good' ? { user: userInfo({ username: 'jane' }) } : null;
    },
  };
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 10_000, failureTtlMs: 0 });
  expect((await c.authenticateToken('good'))?.user.username).toBe('jane');
  expect((await c.authenticateToken('good'))?.user.username).toBe('jane');
  await expect(c.authenticateToken('broken')).rejects.toThrow('bad signature');
  await expect(c.authenticateToken('broken')).rejects.toThrow('bad signature');
  expect(await c.authenticateToken('nobody')).toBeNull();
  const both = await Promise.all([c.authenticateToken('slow'), c.authenticateToken('slow')]);
  expect(both.map((r) => r?.user.username)).toEqual(['slow', 'slow']);
  expect(calls).toEqual(['good', 'broken', 'broken', 'nobody', 'slow']);
});

test('authenticateTokenMaybeSync answers hits and I/O-free misses without a promise, and waits only for I/O', async () => {
  const inner: MaybeSyncTokenAuthenticator = {
    authenticateToken: async () => {
      throw new Error('not used');
    },
    authenticateTokenMaybeSync: (t) => {
      if (t === 'broken') throw new Error('bad signature');
      if (t === 'slow') return Promise.resolve({ user: userInfo({ username: 'slow' }) });
      return t === 'good' ? { user: userInfo({ username: 'jane' }) } : null;
    },
  };
  const c = cachedTokenAuthenticator(inner, { successTtlMs: 10_000, failureTtlMs: 10_000 });
  const first = c.authenticateTokenMaybeSync('good'); // miss, verified without I/O
  expect(first).not.toBeInstanceOf(Promise);
  expect((first as AuthResponse).user.username).toBe('jane');
  expect((c.authenticateTokenMaybeSync('good') as AuthResponse).user.username).toBe('jane'); // hit
  expect(() => c.authenticateTokenMaybeSync('broken')).toThrow('bad signature');
  expect(() => c.authenticateTokenMaybeSync('broken')).toThrow('bad signature'); // remembered failure
  expect(c.authenticateTokenMaybeSync('nobody')).toBeNull();
  const slow = c.authenticateTokenMaybeSync('slow');
  expect(slow).toBeInstanceOf(Promise);
  expect((await slow)?.user.username).toBe('slow');
  expect((c.authenticateTokenMaybeSync('slow') as AuthResponse).user.username).toBe('slow'); // now a hit
});
