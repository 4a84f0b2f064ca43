// Go encoding/json's compact output for the few shapes a SubjectAccessReview has: the webhook receives bytes
// identical to kube-apiserver's, and the cache key is the same string upstream keys its cache with.
// JSON.stringify already matches Go for key order (we build objects in struct order), numbers and control
// characters; what differs is Go's HTML escaping (<, >, &) and its escaping of U+2028/U+2029.

const HAS_GO_ONLY_ESCAPE = /[<>&\u2028\u2029]/;
const GO_ONLY_ESCAPES = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Compact JSON as Go's json.Marshal writes it (no trailing newline). */
export function goJsonMarshal(value: unknown): string {
  const s = JSON.stringify(value);
  // These characters can only occur inside strings, so replacing them in the whole text is safe.
  return HAS_GO_ONLY_ESCAPE.test(s) ? s.replace(GO_ONLY_ESCAPES, (c) => ESCAPES[c]) : s;
}

/** Go strings are UTF-8: a lone UTF-16 surrogate cannot be represented and becomes U+FFFD when encoded. */
export function wellFormed(s: string): string {
  return /[\ud800-\udfff]/.test(s) ? s.replace(/\p{Cs}/gu, '\ufffd') : s;
}

/** Go sorts map keys by their UTF-8 bytes; UTF-16 order differs only around surrogates, so compare bytes then. */
export function goKeyOrder(a: string, b: string): number {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\ud7ff]*$/.test(a) && /^[\u0000-\ud7ff]*$/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
