// All `jwt[]` entries of one AuthenticationConfiguration as a single token authenticator: tried in list
// order, fail-on-error (upstream tokenunion.NewFailOnError), so the one issuer that claims a token decides.
import { aggregate, promiseOf, type AuthResponse, type MaybeSyncTokenAuthenticator } from '@cl/auth';
import type { AuthenticationConfiguration, JWTAuthenticator as JWTAuthenticatorConfig } from '@cl/config';
import { JwtAuthenticator, type JwtAuthenticatorOptions } from './jwt-authenticator';
import { peekToken } from './jws';

export class JwtAuthenticators implements MaybeSyncTokenAuthenticator {
  readonly authenticators: JwtAuthenticator[];

  constructor(entries: readonly JWTAuthenticatorConfig[], opts: JwtAuthenticatorOptions = {}) {
    const built: JwtAuthenticator[] = [];
    try {
      for (const e of entries) built.push(new JwtAuthenticator(e, opts));
    } catch (e) {
      for (const b of built) b.close();
      throw e;
    }
    this.authenticators = built;
  }

  static fromConfig(cfg: AuthenticationConfiguration, opts: JwtAuthenticatorOptions = {}): JwtAuthenticators {
    return new JwtAuthenticators(cfg.jwt ?? [], opts);
  }

  authenticateToken(token: string): Promise<AuthResponse | null> {
    return promiseOf(() => this.authenticateTokenMaybeSync(token));
  }

  /** MaybeSyncTokenAuthenticator: a value (or a throw) when no I/O is needed, else a promise. */
  authenticateTokenMaybeSync(token: string): AuthResponse | null | Promise<AuthResponse | null> {
    // Issuer URLs are unique and each authenticator only takes tokens whose `iss` is its URL, so the
    // fail-on-error walk in list order reduces to: peek once, hand the token to the one that matches.
    const peeked = peekToken(token);
    if (!peeked) return null;
    for (const a of this.authenticators) {
      if (a.issuerURL === peeked.iss) return a.authenticatePeekedMaybeSync(token, peeked);
    }
    return null;
  }

  /** Throws the aggregate of every authenticator that has not completed discovery. */
  healthCheck(): void {
    const errors: Error[] = [];
    for (const a of this.authenticators) {
      try {
        a.healthCheck();
      } catch (e) {
        errors.push(e as Error);
      }
    }
    const err = aggregate(errors);
    if (err) throw err;
  }

  /** Polls the health check (first after every first discovery attempt) until healthy or the timeout. */
  async waitUntilHealthy(timeoutMs: number, intervalMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
    await Promise.race([Promise.all(this.authenticators.map((a) => a.firstAttempt())), giveUp]);
    clearTimeout(timer);
    for (;;) {
      let last: Error;
      try {
        this.healthCheck();
        return;
      } catch (e) {
        last = e as Error;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw aggregate([last, new Error('context deadline exceeded')])!;
      await sleep(Math.min(intervalMs, left));
    }
  }

  close(): void {
    for (const a of this.authenticators) a.close();
  }
}
