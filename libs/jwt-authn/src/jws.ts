// Compact JWS parsing. Two strictness levels, both as upstream: the cheap "whose token is this" peek at
// the unverified issuer (any doubt means "not mine"), and the full parse whose failures are errors.

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Strict unpadded base64url (Go's base64.RawURLEncoding); null when the text is not that. */
export function decodeBase64Url(s: string): Buffer | null {
  if (!B64URL.test(s) || s.length % 4 === 1) return null;
  const buf = Buffer.from(s, 'base64url');
  // Go rejects non-canonical trailing bits; re-encoding tells us.
  if (buf.toString('base64url') !== s) return null;
  return buf;
}

/**
 * The unverified `iss` of a compact JWT, or null when the token is not one this family of authenticators
 * should look at (JSON serialization, not three parts, bad base64url, not JSON, non-string iss).
 */
export function untrustedIssuer(token: string): string | null {
  if (token.trim().startsWith('{')) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const payload = decodeBase64Url(parts[1]);
  if (!payload) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return null;
  const iss = (claims as { iss?: unknown }).iss;
  if (iss === undefined || iss === null) return '';
  if (typeof iss !== 'string') return null;
  return iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss;
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

const malformed = (msg: string) => new Error(`oidc: malformed jwt: ${msg}`);

/** Full parse (go-jose ParseSigned + go-oidc payload decode); errors carry go-jose's wording. */
export function parseJws(token: string): ParsedJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw malformed('go-jose/go-jose: compact JWS format must have three parts');
  const headerBytes = decodeBase64Url(parts[0]);
  if (!headerBytes) throw malformed('illegal base64 data in protected header');
  let header: unknown;
  try {
    header = JSON.parse(headerBytes.toString('utf8'));
  } catch (e) {
    throw malformed(`go-jose/go-jose: ${(e as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw malformed('go-jose/go-jose: protected header is not an object');
  const signature = decodeBase64Url(parts[2]);
  if (!signature) throw malformed('illegal base64 data in signature');
  const payloadBytes = decodeBase64Url(parts[1]);
  if (!payloadBytes) throw malformed('oidc: malformed jwt payload: illegal base64 data');
  const h = header as Record<string, unknown>;
  const payloadText = payloadBytes.toString('utf8');
  let payload: unknown;
  try {
    payload = JSON.parse(payloadText);
  } catch (e) {
    throw new Error(`oidc: failed to unmarshal claims: ${(e as Error).message}`);
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
    signingInput: Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii'),
    signature,
  };
}
