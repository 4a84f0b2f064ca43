// The standard-claim checks of go-oidc's IDTokenVerifier.Verify and the Kubernetes audience check, in
// upstream order: decode, distributed-claim references, issuer, audience, expiry (no leeway), not-before
// (60s leeway). The signature is checked by the caller after these, so an expired forgery says "expired".
import { GO_ZERO_TIME, goQuote, goQuoteList, goTimeString, unmarshalError, unmarshalFieldError } from './go-text';

export const NBF_LEEWAY_SECONDS = 60;

export interface StandardClaims {
  iss: string;
  aud: string[];
  /** Unix seconds; GO_ZERO_TIME when absent. */
  exp: number;
  nbf?: number;
  claimNames: Record<string, string>;
  claimSources: Record<string, { endpoint: string; accessToken: string }>;
}

export interface AudienceCheck {
  /** Set when there is a single distinct audience (go-oidc ClientID). */
  clientId: string;
  /** All configured audiences (k8s verifyAudience). */
  audiences: ReadonlySet<string>;
}

const fail = (msg: string) => new Error(`oidc: failed to unmarshal claims: ${msg}`);

// The field helpers take the value read by name at the call site: one property shape per site keeps
// those loads fast (a shared `payload[name]` load sees every name and goes megamorphic).
function stringField(v: unknown, name: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw fail(unmarshalFieldError(v, name, 'string').message);
  return v;
}

/** go-oidc's jsonTime: a number (float truncated) or a string holding one. */
function timeField(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) n = Number(v);
  else if (v === null) throw fail('strconv.ParseFloat: parsing "": invalid syntax');
  else if (typeof v === 'string') throw fail(`json: invalid number literal, trying to unmarshal ${goQuote(JSON.stringify(v))} into Number`);
  else throw fail(unmarshalError(v, 'json.Number').message);
  return Math.trunc(n);
}

function audience(payload: Record<string, unknown>): string[] {
  const v = payload.aud;
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || x === null)) return v.map((x) => (x === null ? '' : (x as string)));
  throw fail(unmarshalError(v, '[]string').message);
}

// Most tokens carry no distributed claims: they share these (never written to) instead of fresh objects.
const NO_CLAIM_NAMES: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CLAIM_SOURCES: StandardClaims['claimSources'] = Object.freeze({}) as StandardClaims['claimSources'];

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return NO_CLAIM_NAMES;
  if (typeof v !== 'object' || Array.isArray(v)) throw fail(unmarshalFieldError(v, what, 'map[string]string').message);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x !== null && typeof x !== 'string') throw fail(unmarshalFieldError(x, what, 'string').message);
    out[k] = (x as string | null) ?? '';
  }
  return out;
}

function sources(v: unknown): StandardClaims['claimSources'] {
  if (v === undefined || v === null) return NO_CLAIM_SOURCES;
  if (typeof v !== 'object' || Array.isArray(v)) throw fail(unmarshalFieldError(v, '_claim_sources', 'map[string]oidc.claimSource').message);
  const out: StandardClaims['claimSources'] = {};
  for (const [k, s] of Object.entries(v as Record<string, unknown>)) {
    if (s === null) {
      out[k] = { endpoint: '', accessToken: '' };
      continue;
    }
    if (typeof s !== 'object' || Array.isArray(s)) throw fail(unmarshalFieldError(s, '_claim_sources', 'oidc.claimSource').message);
    const src = s as Record<string, unknown>;
    for (const f of ['endpoint', 'access_token']) {
      if (src[f] !== undefined && src[f] !== null && typeof src[f] !== 'string') throw fail(unmarshalFieldError(src[f], `_claim_sources.${f}`, 'string').message);
    }
    out[k] = { endpoint: (src.endpoint as string | undefined) ?? '', accessToken: (src.access_token as string | undefined) ?? '' };
  }
  return out;
}

/** Decodes and checks the standard claims; throws the inner go-oidc message (caller adds `oidc: verify token: `). */
export function verifyStandardClaims(
  payload: Record<string, unknown>,
  providerIssuer: string,
  aud: AudienceCheck,
  nowSeconds: number,
): StandardClaims {
  const iss = stringField(payload.iss, 'iss');
  stringField(payload.sub, 'sub');
  stringField(payload.nonce, 'nonce');
  stringField(payload.at_hash, 'at_hash');
  const audList = audience(payload);
  const exp = timeField(payload.exp);
  timeField(payload.iat);
  const nbf = timeField(payload.nbf);
  const claimNames = stringMap(payload._claim_names, '_claim_names');
  const claimSources = sources(payload._claim_sources);

  for (const name in claimNames) {
    const src = claimNames[name];
    if (src === '') throw new Error('oidc: failed to obtain source from claim name');
    if (!(src in claimSources)) throw new Error('oidc: source does not exist');
  }
  const googleException = providerIssuer === 'https://accounts.google.com' && iss === 'accounts.google.com';
  if (iss !== providerIssuer && !googleException) {
    throw new Error(`oidc: id token issued by a different provider, expected ${goQuote(providerIssuer)} got ${goQuote(iss)}`);
  }
  if (aud.clientId && !audList.includes(aud.clientId)) {
    throw new Error(`oidc: expected audience ${goQuote(aud.clientId)} got ${goQuoteList(audList)}`);
  }
  const expiry = exp ?? GO_ZERO_TIME;
  if (expiry < nowSeconds) throw new Error(`oidc: token is expired (Token Expiry: ${goTimeString(expiry)})`);
  if (nbf !== undefined && nowSeconds + NBF_LEEWAY_SECONDS < nbf) {
    throw new Error(`oidc: current time ${goTimeString(nowSeconds)} before the nbf (not before) time: ${goTimeString(nbf)}`);
  }
  return { iss, aud: audList, exp: expiry, nbf, claimNames, claimSources };
}

/** Kubernetes' own audience check, which runs after the signature. */
export function verifyAudienceIntersects(aud: AudienceCheck, got: readonly string[]): void {
  for (let i = 0; i < got.length; i++) if (aud.audiences.has(got[i])) return;
  throw new Error(`oidc: expected audience in ${goQuoteList([...aud.audiences].sort())} got ${goQuoteList(got)}`);
}
