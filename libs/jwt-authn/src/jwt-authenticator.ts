// One authenticator per `jwt[]` entry (OIDC.go jwtAuthenticator): claims tokens whose unverified `iss` is
// its issuer URL, discovers the issuer in the background (retrying every 10s), verifies, maps, validates.
import { performance } from 'node:perf_hooks';
import { promiseOf, type AuthResponse, type HistogramChild, type TokenAuthenticator } from '@cl/auth';
import type { JWTAuthenticator as JWTAuthenticatorConfig } from '@cl/config';
import type { CelCompiler } from './cel';
import { celValueFromJson, intsToBigint } from './cel-values';
import { ClaimMapper } from './claim-mappings';
import { discoverProvider } from './discovery';
import { resolveDistributedClaim, type VerifierSource } from './distributed-claims';
import { goQuote } from './go-text';
import { httpClient, type HttpClient } from './http-client';
import { peekToken, type PeekedToken } from './jws';
import { RemoteKeySet } from './key-set';
import { jwtLatency, sha256Label } from './metrics';
import { ALL_VALID_SIGNING_ALGS, audienceCheck, IdTokenVerifier, type VerifiedToken } from './verifier';

export type Logger = (msg: string) => void;

export interface JwtAuthenticatorOptions {
  /** Accepted `alg` values; defaults to every algorithm a config-file server accepts. */
  supportedSigningAlgs?: readonly string[];
  /** Compiles expressions the configuration carries no compiled program for. */
  compile?: CelCompiler;
  /** Milliseconds since the epoch (test hook). */
  now?: () => number;
  log?: Logger;
  /** Discovery retry interval (upstream: 10s). */
  discoveryRetryMs?: number;
  /** Timeout of every HTTP request (upstream: 30s). */
  httpTimeoutMs?: number;
}

export const defaultLogger: Logger = (msg) => process.stderr.write(`${msg}\n`);

/** Retries an async initialisation every `intervalMs` until it succeeds or `stop()` is called. */
class Poller<T> {
  value: T | null = null;
  lastError: Error | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly attempt: () => Promise<T>,
    private readonly intervalMs: number,
    private readonly onError: (e: Error) => void,
  ) {
    void this.run();
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    try {
      this.value = await this.attempt();
      this.lastError = null;
    } catch (e) {
      this.lastError = e as Error;
      if (!this.stopped) this.onError(e as Error);
    }
    for (const w of this.waiters.splice(0)) w();
    if (this.value === null && !this.stopped) {
      this.timer = setTimeout(() => void this.run(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Resolves after the next attempt finishes (or at once when already done). */
  settled(): Promise<void> {
    if (this.value !== null || this.stopped) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w();
  }
}

export class JwtAuthenticator implements TokenAuthenticator {
  readonly issuerURL: string;
  private readonly mapper: ClaimMapper;
  private readonly http: HttpClient;
  private readonly algs: readonly string[];
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly retryMs: number;
  private readonly discovery: Poller<IdTokenVerifier>;
  private readonly others = new Map<string, Poller<IdTokenVerifier>>();
  private readonly issuerHash: string;
  private readonly latency: { success: HistogramChild; failure: HistogramChild };

  constructor(private readonly cfg: JWTAuthenticatorConfig, opts: JwtAuthenticatorOptions = {}) {
    this.issuerURL = cfg.issuer.url;
    this.algs = opts.supportedSigningAlgs?.length ? [...opts.supportedSigningAlgs] : [...ALL_VALID_SIGNING_ALGS];
    for (const a of this.algs) {
      if (!(ALL_VALID_SIGNING_ALGS as readonly string[]).includes(a)) throw new Error(`oidc: unsupported signing alg: ${goQuote(a)}`);
    }
    this.mapper = new ClaimMapper(cfg, opts.compile);
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? defaultLogger;
    this.retryMs = opts.discoveryRetryMs ?? 10_000;
    this.http = httpClient({ ca: cfg.issuer.certificateAuthority || undefined, timeoutMs: opts.httpTimeoutMs ?? 30_000 });
    this.issuerHash = sha256Label(this.issuerURL);
    this.latency = {
      success: jwtLatency().child({ result: 'success', jwt_issuer_hash: this.issuerHash }),
      failure: jwtLatency().child({ result: 'failure', jwt_issuer_hash: this.issuerHash }),
    };
    this.discovery = this.discover(this.issuerURL, cfg.issuer.discoveryURL, (e) => this.log(`oidc authenticator: initializing plugin: ${e.message}`));
  }

  private discover(issuer: string, discoveryURL: string | undefined, onError: (e: Error) => void): Poller<IdTokenVerifier> {
    const aud = audienceCheck(this.cfg.issuer.audiences ?? []);
    return new Poller(
      async () => {
        const p = await discoverProvider(issuer, discoveryURL, this.http, this.cfg.issuer.audiences?.[0] ?? '');
        return new IdTokenVerifier(p.issuer, new RemoteKeySet(p.jwksUri, this.http, this.now), aud, this.algs, () => Math.floor(this.now() / 1000));
      },
      this.retryMs,
      onError,
    );
  }

  /** Throws while discovery has not succeeded (upstream HealthCheck). */
  healthCheck(): void {
    if (this.discovery.value) return;
    const cause = this.discovery.lastError?.message ?? `oidc: authenticator for issuer ${goQuote(this.issuerURL)} is not initialized`;
    throw new Error(`oidc: authenticator for issuer ${goQuote(this.issuerURL)} is not healthy: ${cause}`);
  }

  /** Resolves once the first discovery attempt has finished (successfully or not). */
  firstAttempt(): Promise<void> {
    return this.discovery.settled();
  }

  close(): void {
    this.discovery.stop();
    for (const p of this.others.values()) p.stop();
  }

  authenticateToken(token: string): Promise<AuthResponse | null> {
    const peeked = peekToken(token);
    if (!peeked || peeked.iss !== this.issuerURL) return Promise.resolve(null);
    return this.authenticatePeeked(token, peeked);
  }

  /** For a token already known to carry this issuer; records the latency metric (upstream: misses only). */
  authenticatePeeked(token: string, peeked: PeekedToken): Promise<AuthResponse> {
    return promiseOf(() => this.authenticatePeekedMaybeSync(token, peeked));
  }

  /** Same, but answers synchronously (or throws) when no I/O is needed: the token cache's fast path. */
  authenticatePeekedMaybeSync(token: string, peeked: PeekedToken): AuthResponse | Promise<AuthResponse> {
    const started = performance.now();
    let res: AuthResponse | Promise<AuthResponse>;
    try {
      res = this.verifyAndMap(token, peeked);
    } catch (e) {
      this.latency.failure.observe((performance.now() - started) / 1000);
      throw e;
    }
    if (res instanceof Promise) {
      return res.then(
        (r) => {
          this.latency.success.observe((performance.now() - started) / 1000);
          return r;
        },
        (e: unknown) => {
          this.latency.failure.observe((performance.now() - started) / 1000);
          throw e;
        },
      );
    }
    this.latency.success.observe((performance.now() - started) / 1000);
    return res;
  }

  private readonly verifierSource: VerifierSource = {
    verifierFor: (iss) => {
      if (iss === this.issuerURL) return this.discovery.value;
      // Like upstream, a new distributed-claims issuer is discovered lazily; until then its claims fail.
      let p = this.others.get(iss);
      if (!p) {
        p = this.discover(iss, undefined, (e) => this.log(`oidc: distributed claims issuer ${iss}: ${e.message}`));
        this.others.set(iss, p);
      }
      return p.value;
    },
  };

  /** Synchronous unless keys must be fetched or a distributed claim resolved. */
  private verifyAndMap(token: string, peeked: PeekedToken): AuthResponse | Promise<AuthResponse> {
    const verifier = this.discovery.value;
    if (!verifier) throw new Error('oidc: authenticator not initialized');
    let verified: VerifiedToken | Promise<VerifiedToken>;
    try {
      verified = verifier.verify(token, peeked);
    } catch (e) {
      throw verifyFailed(e);
    }
    if (verified instanceof Promise) {
      return verified.then(
        (v) => this.mapVerified(v),
        (e: unknown) => {
          throw verifyFailed(e);
        },
      );
    }
    return this.mapVerified(verified);
  }

  private mapVerified(verified: VerifiedToken): AuthResponse | Promise<AuthResponse> {
    const groupsClaim = this.mapper.groupsClaim;
    const payload = verified.jws.payload;
    // Only distributed claims change the claims; copy them only when that can happen.
    const needsResolution = groupsClaim !== '' && !(groupsClaim in payload) && '_claim_names' in payload;
    if (!needsResolution) return { user: this.mapper.map(payload, this.mapper.needsCelClaims ? celClaimsOf(verified, payload, groupsClaim) : noCelClaims) };
    const claims: Record<string, unknown> = { ...payload };
    return resolveDistributedClaim(groupsClaim, claims, verified.standard, this.http, this.verifierSource).then(
      () => ({ user: this.mapper.map(claims, celClaimsOf(verified, claims, groupsClaim)) }),
      (e: Error) => {
        throw new Error(`oidc: could not expand distributed claims: ${e.message}`);
      },
    );
  }
}

const verifyFailed = (e: unknown): Error => new Error(`oidc: verify token: ${(e as Error).message}`);

/** Given to the mapper when no expression reads the claims, so no closure is made per token. */
const noCelClaims = (): unknown => {
  throw new Error('oidc: claims requested by an authenticator without claim expressions');
};

/** The CEL form of the claims, built at most once and only when an expression asks for it. */
function celClaimsOf(verified: VerifiedToken, claims: Record<string, unknown>, groupsClaim: string): () => unknown {
  let cel: unknown;
  return () => {
    if (cel === undefined) {
      try {
        const v = celValueFromJson(verified.jws.payloadText, verified.jws.payload) as Record<string, unknown>;
        if (groupsClaim && claims[groupsClaim] !== verified.jws.payload[groupsClaim]) v[groupsClaim] = intsToBigint(claims[groupsClaim]);
        cel = v;
      } catch (e) {
        throw new Error(`oidc: could not convert claims to unstructured: ${(e as Error).message}`);
      }
    }
    return cel;
  };
}
