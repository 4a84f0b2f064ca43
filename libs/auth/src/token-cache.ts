// pkg/authentication/token/cache: remembers successful token authentications for a short time so a busy
// client does not pay a signature check per request. Keys are a SHA-256 of the token under a per-process
// random secret, so the cache never holds a token. Concurrent misses for one token share a single lookup.
import { hash, randomBytes } from 'node:crypto';
import { toError } from './errors';
import { fastCounter, fastGauge, fastHistogram } from './metrics';
import type { AuthResponse, TokenAuthenticator } from './types';

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

export interface CachedTokenAuthenticator extends TokenAuthenticator {
  /** Number of live entries (for tests and metrics). */
  size(): number;
  clear(): void;
}

type Outcome = { ok: true; res: AuthResponse | null } | { ok: false; err: Error };
interface Entry {
  expires: number;
  outcome: Outcome;
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
 * SHA-256 over a random per-process secret, the token's length and the token (upstream uses an HMAC with the
 * same ingredients; a one-shot keyed hash is several times cheaper in Node and equally opaque: the secret
 * never leaves the process and keys are never shown).
 */
function cacheKey(secret: string, token: string): string {
  return hash('sha256', `${secret}${token.length}:${token}`, 'base64');
}

export function cachedTokenAuthenticator(inner: TokenAuthenticator, opts: TokenCacheOptions): CachedTokenAuthenticator {
  const secret = randomBytes(32).toString('base64');
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? 100_000;
  const lookupTimeoutMs = opts.lookupTimeoutMs ?? 30_000;
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Outcome>>();
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

  function remember(key: string, outcome: Outcome): void {
    const ttl = outcome.ok && outcome.res ? opts.successTtlMs : opts.failureTtlMs;
    if (ttl <= 0) return;
    if (entries.size >= maxEntries) {
      // Maps iterate in insertion order: drop expired ones, then the oldest.
      const t = now();
      for (const [k, e] of entries) if (e.expires <= t) entries.delete(k);
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    }
    entries.set(key, { expires: now() + ttl, outcome });
  }

  // Lookups that have not finished after lookupTimeoutMs are answered with an error by one shared sweep
  // (a timer per lookup would cost more than the rest of a cache miss).
  interface Pending {
    started: number;
    settle: (o: Outcome) => void;
  }
  const pending = new Map<string, Pending>();
  let sweeper: NodeJS.Timeout | null = null;
  function sweep(): void {
    const t = Date.now();
    for (const p of pending.values()) {
      if (t - p.started >= lookupTimeoutMs) p.settle({ ok: false, err: new Error('token authentication timed out') });
    }
    if (pending.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }

  function lookup(key: string, token: string): Promise<Outcome> {
    const shared = inflight.get(key);
    if (shared) {
      m.blocked.inc();
      return shared.finally(() => m.blocked.dec());
    }
    m.inFlight.inc();
    let settled = false;
    let resolveOuter!: (o: Outcome) => void;
    const p = new Promise<Outcome>((r) => (resolveOuter = r));
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      inflight.delete(key);
      pending.delete(key);
      m.inFlight.dec();
      (outcome.ok ? m.fetchOk : m.fetchError).inc();
      remember(key, outcome);
      resolveOuter(outcome);
    };
    inflight.set(key, p);
    pending.set(key, { started: Date.now(), settle });
    if (!sweeper) {
      sweeper = setInterval(sweep, Math.max(10, Math.min(1000, lookupTimeoutMs / 2)));
      sweeper.unref();
    }
    let run: Promise<AuthResponse | null>;
    try {
      run = inner.authenticateToken(token);
    } catch (e) {
      run = Promise.reject(e);
    }
    run.then(
      (res) => settle({ ok: true, res }),
      (e: unknown) => settle({ ok: false, err: toError(e) }),
    );
    return p;
  }

  const answer = (status: 'hit' | 'miss', started: number, outcome: Outcome): Promise<AuthResponse | null> => {
    m.total[status].inc();
    m.duration[status].observe((performance.now() - started) / 1000);
    return outcome.ok ? Promise.resolve(outcome.res) : Promise.reject(outcome.err);
  };

  return {
    authenticateToken(token: string): Promise<AuthResponse | null> {
      const started = performance.now();
      const key = cacheKey(secret, token);
      const hit = entries.get(key);
      if (hit && hit.expires > now()) return answer('hit', started, hit.outcome);
      if (hit) entries.delete(key);
      return lookup(key, token).then((outcome) => answer('miss', started, outcome));
    },
    size: () => entries.size,
    clear: () => entries.clear(),
  };
}
