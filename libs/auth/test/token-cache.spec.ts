import { register } from 'prom-client';
import { cachedTokenAuthenticator, userInfo, type AuthResponse, type TokenAuthenticator } from '../src';

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
