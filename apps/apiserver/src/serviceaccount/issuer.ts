// The token issuer: what the flags and keys decided (issuer names, audiences, lifetimes), and the signature.
import { CompactSign } from 'jose';
import type { TokenClaims } from './claims';
import { effectiveAudiences, effectiveIssuers, type ServiceAccountOptions } from './flags';
import type { IssuerKeys } from './keys';

export class TokenIssuer {
  /** The first issuer signs; every one is accepted. */
  readonly issuer: string;
  readonly issuers: string[];
  readonly apiAudiences: string[];
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  readonly lookup: boolean;
  readonly jwksUri: string;

  constructor(opts: ServiceAccountOptions, readonly keys: IssuerKeys) {
    this.issuers = effectiveIssuers(opts);
    this.issuer = this.issuers[0];
    this.apiAudiences = effectiveAudiences(opts);
    this.maxExpirationSeconds = Math.floor(opts.maxExpirationMs / 1000);
    this.extendExpiration = opts.extendExpiration;
    this.lookup = opts.lookup;
    this.jwksUri = opts.jwksUri;
  }

  /** A compact JWS with upstream's header (alg and kid of the signing key). */
  sign(claims: TokenClaims): Promise<string> {
    const k = this.keys.signing;
    return new CompactSign(Buffer.from(JSON.stringify(claims))).setProtectedHeader({ alg: k.alg, kid: k.kid }).sign(k.privateKey);
  }
}
