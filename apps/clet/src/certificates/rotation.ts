// When to renew a certificate (client-go's certificate manager): at a random point between 70% and 90% of its
// lifetime, measured from notBefore, so a fleet issued at once does not renew at once; and the loop that
// renews it then, retrying with back-off until a new one is issued.

/** notBefore + (70..90% of the lifetime); `random` in [0, 1). */
export function rotationDeadline(notBefore: number, notAfter: number, random: () => number = Math.random): number {
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random());
}

export interface RotatorOptions {
  /** The current certificate's validity, or null when there is none (renew now). */
  current: () => { notBefore: number; notAfter: number } | null;
  /** Gets and installs a new certificate; rejects to be retried. */
  renew: () => Promise<void>;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  now?: () => number;
  random?: () => number;
}

const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 5 * 60_000;

/** Renews at each deadline for as long as it runs. */
export class CertificateRotator {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly name: string,
    private readonly o: RotatorOptions,
  ) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = (this.o.now ?? Date.now)();
    const cur = this.o.current();
    const deadline = cur ? rotationDeadline(cur.notBefore, cur.notAfter, this.o.random) : now;
    const wait = Math.max(0, deadline - now);
    this.o.log('Certificate rotation deadline determined', { certificate: this.name, expiration: cur ? new Date(cur.notAfter).toISOString() : '', deadline: new Date(deadline).toISOString() });
    this.timer = setTimeout(() => void this.rotate(), Math.min(wait, 2 ** 31 - 1));
    this.timer.unref();
  }

  private async rotate(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.o.renew();
      this.failures = 0;
      this.o.log('Certificate rotated', { certificate: this.name });
      this.schedule();
    } catch (e) {
      if (this.stopped) return;
      const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** this.failures++);
      this.o.log('Certificate rotation failed, retrying', { certificate: this.name, err: (e as Error).message, retryIn: `${wait}ms` });
      this.timer = setTimeout(() => void this.rotate(), wait);
      this.timer.unref();
    }
  }
}
