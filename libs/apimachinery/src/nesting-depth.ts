// Bodies nest arrays and objects as deep as a client likes; every recursive walk over them (decoding, patches,
// validation, copies, and V8's own JSON.stringify, which overflows near 5,000 levels) would overflow the stack.
// Upstream's JSON decoder stops at 10,000 levels with a syntax error ("exceeded max depth"); this server stops at
// 1,000, with the same error, measured on the raw text in one pass without recursion, so nothing recursive ever
// sees a deeper value. Real objects nest a few dozen levels (a CRD's OpenAPI schema perhaps a hundred).

/** The deepest nesting the decoders accept (upstream's is 10,000: see above for why this one is lower). */
export const MAX_NESTING_DEPTH = 1_000;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether `text` (JSON, or YAML's flow collections) opens more than `max` arrays or objects inside one another.
 * Brackets inside double-quoted strings do not count; anything else that opens counts, so malformed input can only
 * make the answer yes earlier, never let a deeper value through.
 */
export function nestingDepthExceeds(text: string | Uint8Array, max = MAX_NESTING_DEPTH): boolean {
  const at: (i: number) => number = typeof text === 'string' ? (i) => text.charCodeAt(i) : (i) => text[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
  }
  return false;
}
