// The spam filter's rate limiter: client-go's token-bucket PassiveRateLimiter (util/flowcontrol/throttle.go),
// which is golang.org/x/time/rate's Limiter asked AllowN(now, 1).

/** Starts full, refills `qps` tokens a second up to `burst`; a refused event costs nothing. */
export class PassiveTokenBucket {
  private tokens: number;
  private lastMs: number | undefined;
  private readonly qps: number;

  constructor(qps: number, private readonly burst: number) {
    // client-go carries QPS as a float32: 1/300 rounds up a little, so a token is back after exactly 300 s
    // instead of a hair later. Rounding the same way keeps that boundary where upstream has it.
    this.qps = Math.fround(qps);
    this.tokens = burst;
  }

  tryAccept(nowMs: number): boolean {
    // A clock that went back refills nothing (rate.Limiter treats it as no time passed).
    const elapsedSeconds = this.lastMs === undefined ? 0 : Math.max(0, nowMs - this.lastMs) / 1000;
    const available = Math.min(this.burst, this.tokens + elapsedSeconds * this.qps);
    if (available < 1) return false;
    this.tokens = available - 1;
    this.lastMs = nowMs;
    return true;
  }
}
