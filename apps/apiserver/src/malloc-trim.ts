// When the API server gives freed native memory back to the kernel (glibc's malloc_trim, @cl/native-memory).
//
// Why: a TLS connection holds ~80 KB of native memory (OpenSSL buffers, the socket's handles). Node frees it when
// the connection closes, but glibc keeps the freed pages in its main arena, so after 1,000 idle connections or 50
// slow-body clients have gone the server's RSS stays ~20 MB above its baseline (bench/api "hostile clients").
// malloc_trim(0) returns those pages in a few milliseconds, but it walks the whole heap holding malloc's lock, so
// it is not run on every close: only after a burst (many connections closed since the last trim), once nothing has
// opened or closed for a moment (the burst is over, and a new one would just take the pages again), and at most
// once per interval. A burst's trim is followed by one more, once it is quiet again, for the memory that what was
// still running at the first (a request load on kept-alive connections) frees when it ends: bench/api's row measured
// +16 MB left with the burst's trim alone. Steady churn never goes quiet and so never trims; its memory is reused.
import type { Socket } from 'node:net';

export interface TrimPolicy {
  /** Connections closed since the last trim before one is worth it. */
  minClosed: number;
  /** How long no connection may have opened or closed. */
  quietMs: number;
  /** The shortest time between two trims. */
  minIntervalMs: number;
}

export const DEFAULT_TRIM_POLICY: TrimPolicy = { minClosed: 100, quietMs: 2_000, minIntervalMs: 10_000 };

export interface TrimState {
  /** Connections closed since the last trim (or the start). */
  closedSinceTrim: number;
  /** When a connection last opened or closed (ms, on the caller's clock). */
  lastActivityAt: number;
  /** When the last trim ran; null before the first. */
  lastTrimAt: number | null;
  /** The last trim was a burst's (not its follow-up): the next needs one closed connection, not `minClosed`. */
  followUp: boolean;
}

/** Trim now, look again in `ms`, or nothing to do until more connections close. */
export type TrimDecision = { kind: 'trim' } | { kind: 'wait'; ms: number } | { kind: 'none' };

export function trimDecision(s: TrimState, now: number, p: TrimPolicy = DEFAULT_TRIM_POLICY): TrimDecision {
  if (s.closedSinceTrim < (s.followUp ? 1 : p.minClosed)) return { kind: 'none' };
  const quietAt = s.lastActivityAt + p.quietMs;
  const at = s.lastTrimAt === null ? quietAt : Math.max(quietAt, s.lastTrimAt + p.minIntervalMs);
  return now >= at ? { kind: 'trim' } : { kind: 'wait', ms: at - now };
}

export interface ConnectionTrimmerDeps {
  /** malloc_trim(0); true when memory went back to the kernel. */
  trim: () => boolean;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => { unref?: () => unknown };
  policy?: TrimPolicy;
  /** Each trim, with how long it took (the log's v(2) line). */
  onTrim?: (released: boolean, closed: number, tookMs: number) => void;
}

/**
 * Counts connections opening and closing and trims when trimDecision says so. One timer at most, re-armed when
 * it fires rather than on every event, so a burst of 1,000 closes costs 1,000 counter updates and no timers.
 */
export class ConnectionTrimmer {
  private readonly state: TrimState;
  private timer = false;
  private readonly now: () => number;
  private readonly setTimer: NonNullable<ConnectionTrimmerDeps['setTimer']>;
  private readonly policy: TrimPolicy;

  constructor(private readonly deps: ConnectionTrimmerDeps) {
    this.now = deps.now ?? (() => performance.now());
    this.setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.policy = deps.policy ?? DEFAULT_TRIM_POLICY;
    this.state = { closedSinceTrim: 0, lastActivityAt: this.now(), lastTrimAt: null, followUp: false };
  }

  opened(): void {
    this.state.lastActivityAt = this.now();
  }

  closed(): void {
    this.state.closedSinceTrim++;
    this.state.lastActivityAt = this.now();
    if (!this.timer) this.check();
  }

  /** Watches a server's connections: each one's open and close. */
  watch(server: { on(event: 'connection', fn: (socket: Socket) => void): unknown }): void {
    const closed = () => this.closed();
    server.on('connection', (socket) => {
      this.opened();
      socket.once('close', closed);
    });
  }

  private check(): void {
    const d = trimDecision(this.state, this.now(), this.policy);
    if (d.kind === 'none') return;
    if (d.kind === 'wait') {
      this.timer = true;
      // Unref'd: a pending trim never keeps a stopping server alive.
      this.setTimer(() => {
        this.timer = false;
        this.check();
      }, d.ms).unref?.();
      return;
    }
    const closed = this.state.closedSinceTrim;
    const started = this.now();
    const released = this.deps.trim();
    const done = this.now();
    this.state.followUp = !this.state.followUp && closed >= this.policy.minClosed;
    this.state.closedSinceTrim = 0;
    this.state.lastTrimAt = done;
    this.deps.onTrim?.(released, closed, done - started);
  }
}
