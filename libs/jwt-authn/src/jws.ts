// Compact JWS parsing. Two strictness levels, both as upstream: the cheap "whose token is this" peek at
// the unverified issuer (any doubt means "not mine"), and the full parse whose failures are errors.


const malformed = (msg: string) => new Error(`oidc: malformed jwt: ${msg}`);

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The checks Node's decoder does not make; the decoded length is checked by the callers. */
function plausibleBase64Url(s: string): boolean {
  const rem = s.length % 4;
  if (rem === 1) return false;
  // Node's decoder also takes the standard alphabet and skips characters it does not know; the first is
  // excluded here, the second shows as a short result (cheaper than a regular expression over the text).
  if (s.includes('+') || s.includes('/')) return false;
  // Go rejects non-canonical encodings: the unused low bits of the last character must be zero.
  if (rem !== 0) {
    const last = ALPHABET.indexOf(s[s.length - 1]);
    if (last < 0 || (rem === 2 && (last & 0x0f) !== 0) || (rem === 3 && (last & 0x03) !== 0)) return false;
  }
  return true;
}

const decodedLength = (s: string) => Math.floor((s.length * 3) / 4);

/** Strict unpadded base64url (Go's base64.RawURLEncoding); null when the text is not that. */
export function decodeBase64Url(s: string): Buffer | null {
  if (!plausibleBase64Url(s)) return null;
  const buf = Buffer.from(s, 'base64url');
  return buf.length === decodedLength(s) ? buf : null;
}

// Payloads are decoded straight to text through one reused buffer: no Buffer object per token. Safe
// because decoding and reading it back happen in one synchronous step.
const scratch = Buffer.allocUnsafeSlow(8192);

/** decodeBase64Url followed by UTF-8 decoding (invalid sequences become U+FFFD, as Buffer#toString). */
export function decodeBase64UrlText(s: string): string | null {
  if (!plausibleBase64Url(s)) return null;
  const want = decodedLength(s);
  if (want > scratch.length) {
    const buf = Buffer.from(s, 'base64url');
    return buf.length === want ? buf.toString('utf8') : null;
  }
  const n = scratch.write(s, 0, 'base64url');
  return n === want ? scratch.toString('utf8', 0, n) : null;
}

// Tokens of one issuer share a handful of headers (alg/kid/typ); parsing each once saves a decode and a
// JSON.parse per token. Bounded, and only successful parses are kept.
const headerCache = new Map<string, Record<string, unknown>>();
const HEADER_CACHE_MAX = 256;

function parseHeader(segment: string): Record<string, unknown> {
  const cached = headerCache.get(segment);
  if (cached) return cached;
  const headerText = decodeBase64UrlText(segment);
  if (headerText === null) throw malformed('illegal base64 data in protected header');
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch (e) {
    throw malformed(`go-jose/go-jose: ${(e as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw malformed('go-jose/go-jose: protected header is not an object');
  if (headerCache.size >= HEADER_CACHE_MAX) headerCache.clear();
  headerCache.set(segment, Object.freeze(header) as Record<string, unknown>);
  return header as Record<string, unknown>;
}

/** A token's decoded but unverified payload, kept so the full parse does not decode it again. */
export interface PeekedToken {
  iss: string;
  /** Offsets of the two dots, so the full parse need not split again. */
  dot1: number;
  dot2: number;
  payloadText: string;
  payload: Record<string, unknown>;
}

/**
 * The unverified payload of a compact JWT, or null when the token is not one this family of authenticators
 * should look at (JSON serialization, not three parts, bad base64url, not a JSON object, non-string iss).
 */
export function peekToken(token: string): PeekedToken | null {
  const first = token.charCodeAt(0);
  // Leading whitespace is rare; only then pay for trim().
  if (first === 0x7b || ((first <= 0x20 || first === 0xa0) && token.trim().startsWith('{'))) return null;
  const dot1 = token.indexOf('.');
  const dot2 = dot1 < 0 ? -1 : token.indexOf('.', dot1 + 1);
  if (dot2 < 0 || token.indexOf('.', dot2 + 1) >= 0) return null;
  const payloadText = decodeBase64UrlText(token.slice(dot1 + 1, dot2));
  if (payloadText === null) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(payloadText);
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return null;
  const iss = (claims as { iss?: unknown }).iss;
  if (iss !== undefined && iss !== null && typeof iss !== 'string') return null;
  const issuer = typeof iss === 'string' ? (iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss) : '';
  return { iss: issuer, dot1, dot2, payloadText, payload: claims as Record<string, unknown> };
}

/** The unverified `iss` of a compact JWT, or null when the token is not one to look at (see peekToken). */
export function untrustedIssuer(token: string): string | null {
  return peekToken(token)?.iss ?? null;
}

export interface ParsedJws {
  header: Record<string, unknown>;
  alg: string;
  kid: string;
  payloadText: string;
  payload: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}


/** Full parse (go-jose ParseSigned + go-oidc payload decode); errors carry go-jose's wording. */
export function parseJws(token: string, peeked?: PeekedToken): ParsedJws {
  let dot1: number;
  let dot2: number;
  if (peeked) {
    ({ dot1, dot2 } = peeked);
  } else {
    dot1 = token.indexOf('.');
    dot2 = dot1 < 0 ? -1 : token.indexOf('.', dot1 + 1);
    if (dot2 < 0 || token.indexOf('.', dot2 + 1) >= 0) throw malformed('go-jose/go-jose: compact JWS format must have three parts');
  }
  const h = parseHeader(token.slice(0, dot1));
  const signature = decodeBase64Url(token.slice(dot2 + 1));
  if (!signature) throw malformed('illegal base64 data in signature');
  let payloadText: string;
  let payload: unknown;
  if (peeked) {
    payloadText = peeked.payloadText;
    payload = peeked.payload;
  } else {
    const text = decodeBase64UrlText(token.slice(dot1 + 1, dot2));
    if (text === null) throw malformed('oidc: malformed jwt payload: illegal base64 data');
    payloadText = text;
    try {
      payload = JSON.parse(payloadText);
    } catch (e) {
      throw new Error(`oidc: failed to unmarshal claims: ${(e as Error).message}`);
    }
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error(`oidc: failed to unmarshal claims: json: cannot unmarshal ${Array.isArray(payload) ? 'array' : typeof payload} into Go value of type oidc.idToken`);
  }
  return {
    header: h,
    alg: typeof h.alg === 'string' ? h.alg : '',
    kid: typeof h.kid === 'string' ? h.kid : '',
    payloadText,
    payload: payload as Record<string, unknown>,
    signingInput: Buffer.from(token.slice(0, dot2), 'latin1'),
    signature,
  };
}
