// pkg/authentication/token/cache: remembers successful token authentications for a short time so a busy
// client does not pay a signature check per request. Keys are an HMAC of the token under a per-process
// random key, so the cache never holds a token. Concurrent misses for one token share a single lookup.
import { createHmac, randomBytes } from 'node:crypto';
import { toError } from './errors';
import { counter, gauge, histogram } from './metrics';
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
  counter({ name: 'authentication_token_cache_request_total', help: 'Total number of requests to the token cache', labelNames: ['status'] as const });
const requestDuration = () =>
  histogram({
    name: 'authentication_token_cache_request_duration_seconds',
    help: 'Duration in seconds of requests to the token cache',
    labelNames: ['status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
const fetchTotal = () =>
  counter({ name: 'authentication_token_cache_fetch_total', help: 'Total number of fetches made by the token cache', labelNames: ['status'] as const });
const activeFetches = () =>
  gauge({ name: 'authentication_token_cache_active_fetch_count', help: 'Number of in flight and blocked token cache fetches', labelNames: ['status'] as const });

function cacheKey(hmacKey: Buffer, token: string): string {
  // len32(token) ‖ token ‖ len32(#audiences=0): the upstream layout, with no API audiences configured.
  const tok = Buffer.from(token, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(tok.length);
  const tail = Buffer.alloc(4);
  return createHmac('sha256', hmacKey).update(head).update(tok).update(tail).digest('base64');
}

export function cachedTokenAuthenticator(inner: TokenAuthenticator, opts: TokenCacheOptions): CachedTokenAuthenticator {
  const hmacKey = randomBytes(32);
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? 100_000;
  const lookupTimeoutMs = opts.lookupTimeoutMs ?? 30_000;
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Outcome>>();
  const metrics = { requestTotal: requestTotal(), requestDuration: requestDuration(), fetchTotal: fetchTotal(), active: activeFetches() };

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

  function lookup(key: string, token: string): Promise<Outcome> {
    const shared = inflight.get(key);
    if (shared) {
      metrics.active.inc({ status: 'blocked' });
      return shared.finally(() => metrics.active.dec({ status: 'blocked' }));
    }
    metrics.active.inc({ status: 'in_flight' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, err: new Error('token authentication timed out') }), lookupTimeoutMs);
      timer.unref();
    });
    const run = Promise.resolve()
      .then(() => inner.authenticateToken(token))
      .then(
        (res): Outcome => ({ ok: true, res }),
        (e: unknown): Outcome => ({ ok: false, err: toError(e) }),
      );
    const p = Promise.race([run, timeout]).then((outcome) => {
      clearTimeout(timer);
      metrics.fetchTotal.inc({ status: outcome.ok ? 'ok' : 'error' });
      remember(key, outcome);
      return outcome;
    });
    inflight.set(key, p);
    void p.finally(() => {
      inflight.delete(key);
      metrics.active.dec({ status: 'in_flight' });
    });
    return p;
  }

  return {
    async authenticateToken(token: string): Promise<AuthResponse | null> {
      const started = process.hrtime.bigint();
      const key = cacheKey(hmacKey, token);
      const hit = entries.get(key);
      let outcome: Outcome;
      let status: 'hit' | 'miss';
      if (hit && hit.expires > now()) {
        status = 'hit';
        outcome = hit.outcome;
      } else {
        if (hit) entries.delete(key);
        status = 'miss';
        outcome = await lookup(key, token);
      }
      metrics.requestTotal.inc({ status });
      metrics.requestDuration.observe({ status }, Number(process.hrtime.bigint() - started) / 1e9);
      if (!outcome.ok) throw outcome.err;
      return outcome.res;
    },
    size: () => entries.size,
    clear: () => entries.clear(),
  };
}
