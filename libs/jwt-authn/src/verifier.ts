// One issuer's ID token verifier (go-oidc IDTokenVerifier + the Kubernetes audience check): standard
// claims first, then the algorithm allow-list, then the signature against the issuer's key set.
import { goQuote, goQuoteList } from './go-text';
import { verifyAudienceIntersects, verifyStandardClaims, type AudienceCheck, type StandardClaims } from './id-token';
import { parseJws, type ParsedJws, type PeekedToken } from './jws';
import type { RemoteKeySet } from './key-set';

/** oidc.AllValidSigningAlgorithms(): what a config-file server accepts. */
export const ALL_VALID_SIGNING_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const;

export function audienceCheck(audiences: readonly string[]): AudienceCheck {
  const set = new Set(audiences);
  return { clientId: set.size === 1 ? [...set][0] : '', audiences: set };
}

export interface VerifiedToken {
  jws: ParsedJws;
  standard: StandardClaims;
}

export class IdTokenVerifier {
  constructor(
    readonly issuer: string,
    private readonly keySet: RemoteKeySet,
    private readonly aud: AudienceCheck,
    private readonly algs: readonly string[],
    private readonly nowSeconds: () => number,
  ) {}

  /**
   * Throws (synchronously, or through the returned promise) the inner message; callers add their own
   * prefix (`oidc: verify token: `). Synchronous when the signing key is already imported.
   */
  verify(token: string, peeked?: PeekedToken): VerifiedToken | Promise<VerifiedToken> {
    const jws = parseJws(token, peeked);
    const standard = verifyStandardClaims(jws.payload, this.issuer, this.aud, this.nowSeconds());
    if (!jws.alg && !('alg' in jws.header)) throw new Error('oidc: id token not signed');
    if (!this.algs.includes(jws.alg)) {
      throw new Error(`oidc: id token signed with unsupported algorithm, expected ${goQuoteList(this.algs)} got ${goQuote(jws.alg)}`);
    }
    // Closures only on the rare path that waits for keys: the common synchronous path allocates none.
    let pending: void | Promise<void>;
    try {
      pending = this.keySet.verify(jws);
    } catch (e) {
      throw signatureFailed(e);
    }
    if (pending) {
      return pending.then(
        () => this.finish(jws, standard),
        (e: unknown) => {
          throw signatureFailed(e);
        },
      );
    }
    return this.finish(jws, standard);
  }

  private finish(jws: ParsedJws, standard: StandardClaims): VerifiedToken {
    verifyAudienceIntersects(this.aud, standard.aud);
    return { jws, standard };
  }
}

const signatureFailed = (e: unknown): Error => new Error(`failed to verify signature: ${(e as Error).message}`);
