import { Backoff } from './backoff';
import { TokenBucket, tokenBucketFor } from './token-bucket';

// Reservations at given times (ms) and the wait each one gets, as x/time/rate's Reserve.
test.each([
  ['qps 2, burst 1: one now, then one every 500 ms', 2, 1, [0, 0, 0, 0], [0, 500, 1000, 1500]],
  ['qps 5, burst 10: ten at once, the 11th after 200 ms', 5, 10, Array(11).fill(0), [...Array(10).fill(0), 200]],
  ['refill: a second later there is a token again', 2, 1, [0, 0, 1500], [0, 500, 0]],
  ['refill never exceeds the burst', 1, 2, [0, 10_000, 10_000, 10_000], [0, 0, 0, 1000]],
])('%s', (_name, qps, burst, at, waits) => {
  let now = 0;
  const bucket = new TokenBucket(qps, burst, () => now);
  const got = at.map((t) => {
    now = t;
    return Math.round(bucket.reserve());
  });
  expect(got).toEqual(waits);
});

test.each([
  [undefined, undefined, { qps: 5, burst: 10 }],
  [0, 0, { qps: 5, burst: 10 }],
  [50, 100, { qps: 50, burst: 100 }],
  [-1, 10, null],
])('qps %p burst %p -> %j (client-go defaults)', (qps, burst, want) => {
  const b = tokenBucketFor(qps, burst);
  expect(b && { qps: b.qps, burst: b.burst }).toEqual(want);
});

test('an aborted wait rejects instead of waiting', async () => {
  const bucket = new TokenBucket(0.001, 1);
  bucket.reserve();
  const ac = new AbortController();
  const waiting = bucket.wait(ac.signal);
  ac.abort();
  await expect(waiting).rejects.toThrow('the client is closed');
});

test('the reflector backoff: 800 ms doubling to 30 s, jitter up to 100 %, reset after 2 idle minutes', () => {
  let now = 0;
  let rnd = 0;
  const b = new Backoff(undefined, () => rnd, () => now);
  const steps = Array.from({ length: 8 }, () => {
    now += 1000;
    return b.next();
  });
  expect(steps).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  rnd = 0.5;
  now += 1000;
  expect(b.next()).toBe(45_000);
  now += 121_000;
  expect(b.next()).toBe(1200);
});
