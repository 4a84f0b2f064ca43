// go-oidc's remoteKeySet: the issuer's JWKS, fetched on first need, re-fetched (one request shared by all
// waiters) only when a signature matches no cached key and the cache is about to expire. A failed fetch
// keeps the old keys. Keys are imported with jose and verified with node:crypto (synchronous, fast).
import { constants, createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { importJWK, type JWK } from 'jose';
import type { HttpClient, HttpResponse } from './http-client';
import type { ParsedJws } from './jws';

interface CachedKey {
  kid: string;
  jwk: JWK;
  /** Import in progress or done, per algorithm. */
  byAlg: Map<string, Promise<KeyObject | null>>;
  /** Finished imports, so the common case verifies without awaiting anything. */
  ready: Map<string, KeyObject | null>;
}

const KNOWN_KTY = new Set(['RSA', 'EC', 'OKP', 'oct']);
export const REFRESH_AHEAD_MS = 30_000;

/** Freshness lifetime from Cache-Control / Expires (RFC 7234), relative to `now`; 0 when not cacheable. */
export function freshnessMs(headers: HttpResponse['headers'], now: number): number {
  const cc = String(headers['cache-control'] ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache)\b/.test(cc)) return 0;
  const age = Number(headers.age ?? 0) || 0;
  const m = /(?:^|,)\s*s-maxage\s*=\s*"?(\d+)/.exec(cc) ?? /(?:^|,)\s*max-age\s*=\s*"?(\d+)/.exec(cc);
  if (m) return Math.max(0, (Number(m[1]) - age) * 1000);
  const expires = headers.expires ? Date.parse(String(headers.expires)) : NaN;
  if (!Number.isNaN(expires)) {
    const date = headers.date ? Date.parse(String(headers.date)) : now;
    return Math.max(0, expires - (Number.isNaN(date) ? now : date));
  }
  return 0;
}

type VerifyOptions = { hash: string; padding?: number; saltLength?: number; dsaEncoding?: 'ieee-p1363' };

// Per algorithm, the digest and the options node:crypto needs (built once, not per signature).
const VERIFY_OPTIONS = new Map<string, VerifyOptions>();
for (const bits of ['256', '384', '512']) {
  VERIFY_OPTIONS.set(`RS${bits}`, { hash: `sha${bits}` });
  VERIFY_OPTIONS.set(`PS${bits}`, { hash: `sha${bits}`, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  VERIFY_OPTIONS.set(`ES${bits}`, { hash: `sha${bits}`, dsaEncoding: 'ieee-p1363' });
}

function verifyWith(alg: string, key: KeyObject, input: Buffer, sig: Buffer): boolean {
  const o = VERIFY_OPTIONS.get(alg);
  if (o === undefined) return false;
  try {
    // RSA PKCS#1 v1.5 takes the prepared KeyObject itself; the others need their padding / encoding.
    if (o.padding === undefined && o.dsaEncoding === undefined) return cryptoVerify(o.hash, input, key, sig);
    return cryptoVerify(o.hash, input, { key, padding: o.padding, saltLength: o.saltLength, dsaEncoding: o.dsaEncoding }, sig);
  } catch {
    return false;
  }
}

export class RemoteKeySet {
  private keys: CachedKey[] = [];
  private expiry = 0;
  private inflight: Promise<void> | null = null;

  constructor(
    private readonly jwksUri: string,
    private readonly http: HttpClient,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Returns synchronously when an already imported key verifies the signature (the common case);
   * otherwise a promise. Failures: `failed to verify id token signature` or `fetching keys ...`.
   */
  verify(jws: ParsedJws): void | Promise<void> {
    const fast = this.tryReady(jws);
    if (fast === true) return;
    return this.verifySlow(jws, fast === null);
  }

  private async verifySlow(jws: ParsedJws, importPending: boolean): Promise<void> {
    if (importPending && (await this.tryCached(jws))) return;
    if (!(this.now() + REFRESH_AHEAD_MS > this.expiry)) throw new Error('failed to verify id token signature');
    await this.refresh();
    if (await this.tryCached(jws)) return;
    throw new Error('failed to verify id token signature');
  }

  /** true: verified; false: no imported candidate verifies; null: some candidate is not imported yet. */
  private tryReady(jws: ParsedJws): boolean | null {
    let complete = true;
    for (const k of this.keys) {
      if (jws.kid !== '' && k.kid !== jws.kid) continue;
      const key = k.ready.get(jws.alg);
      if (key === undefined) complete = false;
      else if (key && verifyWith(jws.alg, key, jws.signingInput, jws.signature)) return true;
    }
    return complete ? false : null;
  }

  private async tryCached(jws: ParsedJws): Promise<boolean> {
    for (const k of this.keys) {
      if (jws.kid !== '' && k.kid !== jws.kid) continue;
      const key = await this.keyFor(k, jws.alg);
      if (key && verifyWith(jws.alg, key, jws.signingInput, jws.signature)) return true;
    }
    return false;
  }

  private keyFor(k: CachedKey, alg: string): Promise<KeyObject | null> {
    let p = k.byAlg.get(alg);
    if (!p) {
      // jose refuses a key whose type does not fit the algorithm (go-jose does the same check); the
      // node:crypto KeyObject of the same JWK then verifies synchronously, without WebCrypto's overhead.
      const jwk = { ...k.jwk, alg: undefined, use: undefined, key_ops: undefined, ext: undefined };
      p = importJWK(jwk, alg).then(
        (ck) => (ck instanceof Uint8Array ? null : createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' })),
        () => null,
      ).then((key) => {
        k.ready.set(alg, key);
        return key;
      });
      k.byAlg.set(alg, p);
    }
    return p;
  }

  private refresh(): Promise<void> {
    if (!this.inflight) {
      this.inflight = this.fetchKeys().finally(() => (this.inflight = null));
    }
    return this.inflight;
  }

  private async fetchKeys(): Promise<void> {
    let res: HttpResponse;
    try {
      res = await this.http.get(this.jwksUri);
    } catch (e) {
      throw new Error(`fetching keys oidc: get keys failed ${(e as Error).message}`);
    }
    const body = res.body.toString('utf8');
    if (res.status !== 200) throw new Error(`fetching keys oidc: get keys failed: ${res.statusText} ${body}`);
    let parsed: { keys?: unknown };
    try {
      parsed = JSON.parse(body) as { keys?: unknown };
      if (parsed === null || typeof parsed !== 'object') throw new Error('json: cannot unmarshal into Go value of type jose.JSONWebKeySet');
      if (parsed.keys !== undefined && !Array.isArray(parsed.keys)) throw new Error('json: cannot unmarshal into Go struct field JSONWebKeySet.keys');
    } catch (e) {
      throw new Error(`fetching keys oidc: failed to decode keys: ${(e as Error).message} ${body}`);
    }
    const keys: CachedKey[] = [];
    for (const raw of (parsed.keys as unknown[] | undefined) ?? []) {
      const jwk = raw as JWK;
      if (!jwk || typeof jwk !== 'object' || !KNOWN_KTY.has(String(jwk.kty))) {
        throw new Error(`fetching keys oidc: failed to decode keys: go-jose/go-jose: unknown json web key type '${String((jwk as JWK | null)?.kty ?? '')}' ${body}`);
      }
      keys.push({ kid: typeof jwk.kid === 'string' ? jwk.kid : '', jwk, byAlg: new Map(), ready: new Map() });
    }
    const fetchedAt = this.now();
    this.keys = keys;
    this.expiry = fetchedAt + freshnessMs(res.headers, fetchedAt);
  }
}
