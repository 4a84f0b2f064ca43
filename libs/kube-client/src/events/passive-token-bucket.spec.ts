import { PassiveTokenBucket } from './passive-token-bucket';

describe('PassiveTokenBucket (qps 1/300, burst 25: the spam filter default)', () => {
  // Each case: accept attempts at these seconds since the first, and which were accepted.
  test.each<[string, number[], boolean[]]>([
    ['starts full: 25 at once', Array(26).fill(0), [...Array(25).fill(true), false]],
    ['a token back after exactly 300 s', [...Array(25).fill(0), 299, 300, 301], [...Array(25).fill(true), false, true, false]],
    ['refills at most to the burst', [0, 100_000, ...Array(25).fill(100_000)], [...Array(26).fill(true), false]],
    ['a refusal costs nothing', [...Array(25).fill(0), 150, 200, 300], [...Array(25).fill(true), false, false, true]],
    ['a clock that goes back refills nothing', [...Array(25).fill(600), 0, 600], [...Array(25).fill(true), false, false]],
  ])('%s', (_what, seconds, accepted) => {
    const bucket = new PassiveTokenBucket(1 / 300, 25);
    expect(seconds.map((s) => bucket.tryAccept(s * 1000))).toEqual(accepted);
  });
});
