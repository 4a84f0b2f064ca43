// The rotation deadline (client-go's 70-90% jitter) and the renew loop, with an injected clock and randomness.
import { CertificateRotator, rotationDeadline } from './rotation';

test.each([
  [0, 0, 100_000, 70_000],
  [0.5, 0, 100_000, 80_000],
  [0.999, 0, 100_000, 89_980],
  [0, 1_000, 61_000, 43_000],
])('random %s over [%s, %s] gives %s', (r, from, to, want) => {
  expect(rotationDeadline(from, to, () => r)).toBeCloseTo(want, 0);
});

describe('CertificateRotator', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('renews at the deadline, then at the new certificate\'s deadline; a failure is retried', async () => {
    let now = 0;
    let cert = { notBefore: 0, notAfter: 100_000 };
    const renewals: number[] = [];
    let fail = 1;
    const r = new CertificateRotator('client', {
      current: () => cert,
      renew: async () => {
        if (fail-- > 0) throw new Error('not yet');
        renewals.push(now);
        cert = { notBefore: now, notAfter: now + 100_000 };
      },
      log: () => undefined,
      now: () => now,
      random: () => 0.5,
    });
    r.start();
    now = 79_999;
    await jest.advanceTimersByTimeAsync(79_999);
    expect(renewals).toEqual([]);
    now = 80_000;
    await jest.advanceTimersByTimeAsync(1);
    // The first attempt failed; the retry comes 2s later.
    expect(renewals).toEqual([]);
    now = 82_000;
    await jest.advanceTimersByTimeAsync(2_000);
    expect(renewals).toEqual([82_000]);
    now = 162_000;
    await jest.advanceTimersByTimeAsync(80_000);
    expect(renewals).toEqual([82_000, 162_000]);
    r.stop();
  });

  test('without a certificate it asks at once', async () => {
    const renew = jest.fn(async () => undefined);
    const r = new CertificateRotator('serving', { current: () => null, renew, log: () => undefined, now: () => 0 });
    r.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(renew).toHaveBeenCalledTimes(1);
    r.stop();
  });
});
