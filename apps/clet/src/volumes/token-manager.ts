// Service account tokens of projected volumes, as upstream's kubelet token manager (pkg/kubelet/token): one
// TokenRequest per pod, volume source and audience, kept and re-used until it needs a refresh: when it is older
// than 24 h, or within the last 20% of its lifetime (both less a jitter of up to 10 s, so that many pods do not
// refresh at once). Refreshed tokens reach the container through the volume's next write (each pod sync).
import type { ApiObjects, TokenRequestResult, TokenRequestSpec } from './api-objects';

const MAX_TTL_MS = 24 * 3600_000;
const MAX_JITTER_MS = 10_000;

export interface Clock {
  now(): number;
}

/** Upstream's requiresRefresh: `now` and `jitterMs` are inputs so the rule is testable. */
export function requiresRefresh(tr: TokenRequestResult, now: number, jitterMs: number): boolean {
  const seconds = tr.spec.expirationSeconds;
  if (seconds === undefined) return false;
  const exp = Date.parse(tr.status.expirationTimestamp);
  const iat = exp - seconds * 1000;
  if (now > iat + MAX_TTL_MS - jitterMs) return true;
  return now > exp - Math.floor((seconds * 20) / 100) * 1000 - jitterMs;
}

export class TokenManager {
  private readonly cache = new Map<string, TokenRequestResult>();

  constructor(private readonly api: ApiObjects, private readonly clock: Clock = { now: Date.now }, private readonly jitter: () => number = () => Math.floor(Math.random() * MAX_JITTER_MS / 1000) * 1000) {}

  /** The token for `key` (pod UID, volume, audience), from the cache while it is fresh. */
  async token(key: string, namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<string> {
    const cached = this.cache.get(key);
    if (cached && !requiresRefresh(cached, this.clock.now(), this.jitter())) return cached.status.token;
    const tr = await this.api.requestToken(namespace, serviceAccount, spec);
    this.cache.set(key, tr);
    return tr.status.token;
  }

  /** Forgets the tokens of a pod (its keys start with the pod UID). */
  forgetPod(uid: string): void {
    for (const k of this.cache.keys()) if (k.startsWith(`${uid}/`)) this.cache.delete(k);
  }

  /** Drops expired entries (pods gone without a forget). */
  prune(): void {
    const now = this.clock.now();
    for (const [k, tr] of this.cache) if (Date.parse(tr.status.expirationTimestamp) < now) this.cache.delete(k);
  }
}
