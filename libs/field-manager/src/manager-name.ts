// Who a write is recorded for: `?fieldManager=`, else the User-Agent's program name, as upstream derives it.

export const FIELD_MANAGER_MAX_LENGTH = 128;

/** The part of a User-Agent before the first `/` (`kubectl/v1.33.0 (linux/amd64) ...` -> `kubectl`), printable, at most 128 characters. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0];
  return [...name].filter(isPrintable).join('').slice(0, FIELD_MANAGER_MAX_LENGTH);
}

/** Upstream's ValidateFieldManager: the field errors' details, as [kind, message] pairs for the caller to build. */
export function validateFieldManager(manager: string): ({ type: 'TooLong'; max: number } | { type: 'Invalid'; detail: string })[] {
  const out: ({ type: 'TooLong'; max: number } | { type: 'Invalid'; detail: string })[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) out.push({ type: 'TooLong', max: FIELD_MANAGER_MAX_LENGTH });
  let at = 0;
  for (const ch of manager) {
    if (!isPrintable(ch)) out.push({ type: 'Invalid', detail: `invalid character ${goRune(ch)} (at position ${at})` });
    at += Buffer.byteLength(ch);
  }
  return out;
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const isPrintable = (ch: string) => PRINTABLE.test(ch);

/** Go's %#U: `U+0007`, with the character quoted when printable. */
function goRune(ch: string): string {
  const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `U+${code}`;
}
