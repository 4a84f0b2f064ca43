// The checks every server has (ping, log), the boot-step checks behind `poststarthook/<name>`, and the
// readyz `shutdown` check, with upstream's failure reasons.

export interface HealthCheck {
  readonly name: string;
  /**
   * Returns (or resolves) when healthy; throws (or rejects) with the reason, which is logged and shown only on the
   * per-check endpoint. Checks that know their answer at once may return synchronously: a health request runs
   * every check, and skipping a promise per check is most of a /livez request's own cost.
   */
  check(): Promise<void> | void;
}

export function pingCheck(): HealthCheck {
  return { name: 'ping', check: () => undefined };
}

const LOG_FLUSH_INTERVAL_MS = 60_000;
const LOG_BLOCKED_AFTER_MS = 120_000;

/**
 * `log`: fails with `logging blocked` when the logger's flush has not completed within two minutes. As upstream,
 * the periodic flush starts with the first check, so an idle server does not keep a timer it never reports on.
 */
export function logCheck(flush: () => Promise<void>, now: () => number = Date.now): HealthCheck & { stop(): void } {
  let lastFlushed = 0;
  let timer: NodeJS.Timeout | undefined;
  const runFlush = () =>
    flush().then(
      () => {
        lastFlushed = now();
      },
      () => undefined,
    );
  return {
    name: 'log',
    check() {
      if (!timer) {
        lastFlushed = now();
        timer = setInterval(runFlush, LOG_FLUSH_INTERVAL_MS);
        timer.unref();
        void runFlush();
      }
      if (now() - lastFlushed > LOG_BLOCKED_AFTER_MS) throw new Error('logging blocked');
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

/** A startup step's check: fails with `not finished` until `finish()` is called. */
export class BootStep implements HealthCheck {
  private done = false;
  constructor(readonly name: string) {}
  finish(): void {
    this.done = true;
  }
  get finished(): boolean {
    return this.done;
  }
  check(): void {
    if (!this.done) throw new Error('not finished');
  }
}

/** readyz `shutdown`: fails from the moment shutdown is initiated, for good. */
export class ShutdownCheck implements HealthCheck {
  readonly name = 'shutdown';
  private initiated = false;
  initiate(): void {
    this.initiated = true;
  }
  check(): void {
    if (this.initiated) throw new Error('process is shutting down');
  }
}
