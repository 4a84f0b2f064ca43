import { slowStartBatch } from './slow-start';

describe('slowStartBatch', () => {
  test.each([
    // [count, fail on call, batches, successes]
    [1, 0, [1], 1],
    [5, 0, [1, 2, 2], 5],
    [10, 0, [1, 2, 4, 3], 10],
    [10, 1, [1], 0],
    [10, 3, [1, 2], 2],
    [10, 5, [1, 2, 4], 6],
  ])('%d calls, call #%d failing: batches %p, %d successes', async (count, failOn, batches, successes) => {
    const sizes: number[] = [];
    let running = 0;
    let calls = 0;
    const result = await slowStartBatch(count, 1, async () => {
      const n = ++calls;
      if (running++ === 0) sizes.push(0);
      sizes[sizes.length - 1]++;
      await new Promise((r) => setImmediate(r));
      running--;
      if (n === failOn) throw new Error(`call ${n}`);
    });
    expect(sizes).toEqual(batches);
    expect(result.successes).toBe(successes);
    expect(result.error === undefined).toBe(failOn === 0);
  });
});
