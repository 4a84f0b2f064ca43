import { logCheck } from './checks';

describe('log check', () => {
  test('fails with "logging blocked" when the flush has not completed for two minutes', async () => {
    let t = 1_000_000;
    let flushes = 0;
    const check = logCheck(
      () => {
        flushes++;
        return new Promise<void>(() => undefined); // a logger stuck forever
      },
      () => t,
    );
    try {
      expect(() => check.check()).not.toThrow();
      expect(flushes).toBe(1);
      t += 119_000;
      expect(() => check.check()).not.toThrow();
      t += 2_000;
      expect(() => check.check()).toThrow('logging blocked');
    } finally {
      check.stop();
    }
  });
});
