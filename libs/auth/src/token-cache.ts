// pkg/authentication/token/cache: remembers successful token authentications for a short time so a busy
// client does not pay a signature check per request. Keys are a SHA-256 of the token under a per-process
// random secret, so the cache never holds a token. Concurrent misses for one token share a single lookup.
import { hash, randomBytes } from 'node:crypto';
// Imported rather than the global, which Node defines as a getter that every call would go through.
import { performance } from 'node:perf_hooks';
import { toError } from './errors';
import { fastCounter, fastGauge, fastHistogram } from './metrics';
import { asMaybeSync, promiseOf } from './maybe-promise';
import type { AuthResponse, MaybeSyncTokenAuthenticator, TokenAuthenticator } from './types';

export interface TokenCacheOptions {
  /** How long an accepted token is remembered (upstream: 10s). 0 disables caching successes. */
  successTtlMs: number;
  /** How long a rejected token is remembered (upstream: 0, i.e. never). */
  failureTtlMs: number;
  /** Ceiling on remembered entries; the oldest are dropped first. */
  maxEntries?: number;
  /** A shared lookup is abandoned after this long (upstream: 30s). */
  lookupTimeoutMs?: number;
  /** Test hook. */
  now?: () => number;
}

export interface CachedTokenAuthenticator extends MaybeSyncTokenAuthenticator {
  /** Number of live entries (for tests and metrics). */
  size(): number;
  clear(): void;
}

type Outcome = { ok: true; res: AuthResponse | null } | { ok: false; err: Error };

/** One remembered answer; one object per token (no separate outcome) keeps the retained heap small. */
class Entry {
  constructor(
    readonly expires: number,
    readonly res: AuthResponse | null,
    readonly err: Error | null,
  ) {}
}

const requestTotal = () =>
  fastCounter({ name: 'authentication_token_cache_request_total', help: 'Total number of requests to the token cache', labelNames: ['status'] as const });
const requestDuration = () =>
  fastHistogram({
    name: 'authentication_token_cache_request_duration_seconds',
    help: 'Duration in seconds of requests to the token cache',
    labelNames: ['status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
const fetchTotal = () =>
  fastCounter({ name: 'authentication_token_cache_fetch_total', help: 'Total number of fetches made by the token cache', labelNames: ['status'] as const });
const activeFetches = () =>
  fastGauge({ name: 'authentication_token_cache_active_fetch_count', help: 'Number of in flight and blocked token cache fetches', labelNames: ['status'] as const });

/**
 * SHA-256 over a random per-process secret of fixed length followed by the token (upstream uses an HMAC with
 * the same ingredients; a one-shot keyed hash is several times cheaper in Node and equally opaque: the secret
 * never leaves the process and keys are never shown). The raw digest (as a 32-character binary string) is
 * the map key: no text encoding of the digest per token.
 */
function cacheKey(secret: string, token: string): string {
  return hash('sha256', secret + token, 'binary');
}

export function cachedTokenAuthenticator(inner: TokenAuthenticator, opts: TokenCacheOptions): CachedTokenAuthenticator {
  const secret = randomBytes(32).toString('base64');
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? 100_000;
  const lookupTimeoutMs = opts.lookupTimeoutMs ?? 30_000;
  const entries = new Map<string, Entry>();
  // Label children resolved once: prom-client's per-call label hashing costs more than a cache hit.
  const active = activeFetches();
  const m = {
    total: { hit: requestTotal().child({ status: 'hit' }), miss: requestTotal().child({ status: 'miss' }) },
    duration: { hit: requestDuration().child({ status: 'hit' }), miss: requestDuration().child({ status: 'miss' }) },
    fetchOk: fetchTotal().child({ status: 'ok' }),
    fetchError: fetchTotal().child({ status: 'error' }),
    inFlight: active.child({ status: 'in_flight' }),
    blocked: active.child({ status: 'blocked' }),
  };

  let insertsSinceSweep = 0;
  function remember(key: string, res: AuthResponse | null, err: Error | null): void {
    const ttl = err === null && res !== null ? opts.successTtlMs : opts.failureTtlMs;
    if (ttl <= 0) return;
    // Map order is insertion order, and with one TTL per outcome kind also (nearly) expiry order: every
    // few inserts drop expired entries from the front, and the oldest whenever full. O(1) amortised.
    const t = now();
    if (entries.size >= maxEntries || ++insertsSinceSweep >= 16) {
      insertsSinceSweep = 0;
      for (const [k, e] of entries) {
        if (entries.size < maxEntries && e.expires > t) break;
        entries.delete(k);
      }
    }
    entries.set(key, new Entry(t + ttl, res, err));
  }

  // Lookups that have not finished after lookupTimeoutMs are answered with an error by one shared sweep
  // (a timer per lookup would cost more than the rest of a cache miss).
  interface Flight {
    promise: Promise<Outcome>;
    started: number;
    settle: (o: Outcome) => void;
  }
  const inflight = new Map<string, Flight>();
  let sweeper: NodeJS.Timeout | null = null;
  function sweep(): void {
    const t = Date.now();
    for (const f of inflight.values()) {
      if (t - f.started >= lookupTimeoutMs) f.settle({ ok: false, err: new Error('token authentication timed out') });
    }
    if (inflight.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }

  function lookup(key: string, token: string, started?: Promise<AuthResponse | null>): Promise<Outcome> {
    const shared = inflight.get(key);
    if (shared) {
      m.blocked.inc();
      return shared.promise.finally(() => m.blocked.dec());
    }
    m.inFlight.inc();
    let settled = false;
    let resolve!: (o: Outcome) => void;
    const flight: Flight = {
      promise: new Promise<Outcome>((r) => (resolve = r)),
      started: Date.now(),
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        inflight.delete(key);
        m.inFlight.dec();
        (outcome.ok ? m.fetchOk : m.fetchError).inc();
        if (outcome.ok) remember(key, outcome.res, null);
        else remember(key, null, outcome.err);
        resolve(outcome);
      },
    };
    inflight.set(key, flight);
    if (!sweeper) {
      sweeper = setInterval(sweep, Math.max(10, Math.min(1000, lookupTimeoutMs / 2)));
      sweeper.unref();
    }
    let run: Promise<AuthResponse | null>;
    try {
      run = started ?? inner.authenticateToken(token);
    } catch (e) {
      run = Promise.reject(e);
    }
    run.then(
      (res) => flight.settle({ ok: true, res }),
      (e: unknown) => flight.settle({ ok: false, err: toError(e) }),
    );
    return flight.promise;
  }

  const maybeSync = asMaybeSync(inner);

  function answered(status: 'hit' | 'miss', started: number, res: AuthResponse | null, err: Error | null): AuthResponse | null {
    m.total[status].inc();
    m.duration[status].observe((performance.now() - started) / 1000);
    if (err !== null) throw err;
    return res;
  }

  function finish(status: 'hit' | 'miss', started: number, outcome: Outcome): AuthResponse | null {
    return outcome.ok ? answered(status, started, outcome.res, null) : answered(status, started, null, outcome.err);
  }

  /** A hit, or a miss the inner authenticator answers without I/O, is answered (or thrown) synchronously. */
  function authenticateTokenMaybeSync(token: string): AuthResponse | null | Promise<AuthResponse | null> {
    const started = performance.now();
    const key = cacheKey(secret, token);
    const hit = entries.get(key);
    if (hit !== undefined) {
      if (hit.expires > now()) return answered('hit', started, hit.res, hit.err);
      entries.delete(key);
    }
    if (maybeSync !== null && (inflight.size === 0 || !inflight.has(key))) {
      // A synchronous answer cannot race another lookup of the same token: no single-flight needed.
      let r: AuthResponse | null | Promise<AuthResponse | null>;
      try {
        r = maybeSync.authenticateTokenMaybeSync(token);
      } catch (e) {
        const err = toError(e);
        m.fetchError.inc();
        remember(key, null, err);
        return answered('miss', started, null, err);
      }
      if (!(r instanceof Promise)) {
        m.fetchOk.inc();
        remember(key, r, null);
        return answered('miss', started, r, null);
      }
      return lookup(key, token, r).then((outcome) => finish('miss', started, outcome));
    }
    return lookup(key, token).then((outcome) => finish('miss', started, outcome));
  }

  return {
    authenticateTokenMaybeSync,
    authenticateToken: (token: string) => promiseOf(() => authenticateTokenMaybeSync(token)),
    size: () => entries.size,
    clear: () => entries.clear(),
  };
}
