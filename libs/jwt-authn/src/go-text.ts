// Go's spellings of values in error messages, so the log lines match kube-apiserver's word for word.
import { goQuote } from '@cl/flags';

export { goQuote };

/** `%q` of a []string: `["a" "b"]`, `[]` when empty. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}

/** The JSON kind Go's decoder names in "cannot unmarshal <kind> into ...". */
export function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

export function unmarshalError(v: unknown, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`);
}

export function unmarshalFieldError(v: unknown, field: string, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field idToken.${field} of type ${goType}`);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's time.Time.String() for a Unix time in seconds, in the process's local zone. */
export function goTimeString(unixSeconds: number): string {
  if (unixSeconds === GO_ZERO_TIME) return '0001-01-01 00:00:00 +0000 UTC';
  const d = new Date(unixSeconds * 1000);
  const offsetMin = -d.getTimezoneOffset();
  if (offsetMin === 0) {
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000 UTC`;
  }
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const zone = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)} ${zone}`;
}

/** Sentinel for Go's zero time.Time (a missing `exp`). */
export const GO_ZERO_TIME = -62135596800;
