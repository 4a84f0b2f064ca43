// Distributed claims for the groups claim (OIDC.go claimResolver): when the token names an endpoint for
// the groups claim instead of carrying it, fetch that endpoint's JWT, verify it like an ID token of its
// own issuer, and take the claim from it. Aggregated claims (a JWT inline) are not supported upstream.
import type { HttpClient } from './http-client';
import { untrustedIssuer } from './jws';
import type { StandardClaims } from './id-token';
import type { IdTokenVerifier } from './verifier';

export interface VerifierSource {
  /** The verifier of `issuer`, or null while its discovery has not succeeded. */
  verifierFor(issuer: string): IdTokenVerifier | null;
}

export async function resolveDistributedClaim(
  claim: string,
  claims: Record<string, unknown>,
  standard: StandardClaims,
  http: HttpClient,
  verifiers: VerifierSource,
): Promise<void> {
  if (claim in claims) return; // the normal claim wins, even when null
  if (!('_claim_names' in claims)) return;
  if (!('_claim_sources' in claims) || claims._claim_sources === null) throw new Error('oidc: no claim sources');
  const srcName = standard.claimNames[claim];
  if (srcName === undefined) return;
  const src = standard.claimSources[srcName];
  if (!src) throw new Error(`id token _claim_names contained a source ${srcName} missing in _claims_sources`);
  if (src.endpoint === '') return;

  let body: string;
  try {
    const res = await http.get(src.endpoint, src.accessToken ? { authorization: `Bearer ${src.accessToken}` } : {});
    if (res.status < 200 || res.status > 226) throw new Error(`error while getting distributed claim JWT: ${res.statusText}`);
    body = res.body.toString('utf8');
  } catch (e) {
    throw new Error(`while getting distributed claim ${JSON.stringify(claim)}: ${(e as Error).message}`);
  }
  const iss = untrustedIssuer(body);
  if (iss === null) throw new Error(`getting untrusted issuer from endpoint ${src.endpoint} failed for claim ${JSON.stringify(claim)}: malformed token`);
  const verifier = verifiers.verifierFor(iss);
  if (!verifier) throw new Error(`verifying untrusted issuer ${iss} failed: verifier not initialized for issuer: ${JSON.stringify(iss)}`);
  let verified: Awaited<ReturnType<IdTokenVerifier['verify']>>;
  try {
    verified = await verifier.verify(body);
  } catch (e) {
    throw new Error(`verify distributed claim token: ${(e as Error).message}`);
  }
  if (!(claim in verified.jws.payload)) {
    throw new Error(`jwt returned by distributed claim endpoint ${JSON.stringify(src.endpoint)} did not contain claim: ${claim}`);
  }
  claims[claim] = verified.jws.payload[claim];
}
