// How upstream's field errors print the Go values that ObjectMeta validation reports, so our messages read the
// same as the API server's. Internal to names/.
import { GoLiteral, goQuote } from '../field';
import type { OwnerReference } from '../meta';

/** Go's `time.Time{}` (0001-01-01T00:00:00Z): what an unset metav1.Time holds, and prints. */
const ZERO_TIME_MS = -62135596800000;

/**
 * A nil pointer field (deletionTimestamp, deletionGracePeriodSeconds) prints as the quoted string "null": upstream
 * swaps nil for the string "null" and then quotes it like any string.
 */
export const GO_NIL_POINTER = new GoLiteral('"null"');

/** Milliseconds since the epoch for a metav1.Time as JSON carries it; unset (or null) is Go's zero time. */
export function timeMillis(t: string | null | undefined): number {
  if (!t) return ZERO_TIME_MS;
  return Date.parse(t);
}

/** Two metav1.Time values are semantically equal when they name the same instant, whatever their spelling. */
export function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  const ma = timeMillis(a);
  const mb = timeMillis(b);
  if (Number.isNaN(ma) || Number.isNaN(mb)) return a === b;
  return ma === mb;
}

/**
 * Go's Time.String (`2006-01-02 15:04:05.999999999 -0700 MST`) in UTC, as metav1.Time prints in an error: the API
 * server runs in UTC. Unparseable text is shown as it came.
 */
export function goTimeString(t: string | null | undefined): GoLiteral {
  const ms = timeMillis(t);
  if (Number.isNaN(ms)) return new GoLiteral(goQuote(t ?? ''));
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const clock = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const millis = d.getUTCMilliseconds();
  // Go trims trailing zeros of the fraction and drops it when zero.
  const frac = millis ? '.' + pad(millis, 3).replace(/0+$/, '') : '';
  return new GoLiteral(`${date} ${clock}${frac} +0000 UTC`);
}

/**
 * `%#v` of a *bool field. Go prints the pointer's address there, which means nothing to a reader and differs per
 * run; we print the value instead (`(*bool)(true)`).
 */
function goBoolPointer(b: boolean | undefined): string {
  return typeof b === 'boolean' ? `(*bool)(${b})` : '(*bool)(nil)';
}

/** `%#v` of a metav1.OwnerReference. */
export function goOwnerReference(ref: OwnerReference): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion ?? '')}, Kind:${goQuote(ref.kind ?? '')}, ` +
    `Name:${goQuote(ref.name ?? '')}, UID:${goQuote(ref.uid ?? '')}, ` +
    `Controller:${goBoolPointer(ref.controller)}, BlockOwnerDeletion:${goBoolPointer(ref.blockOwnerDeletion)}}`
  );
}

/** `%#v` of a []metav1.OwnerReference. */
export function goOwnerReferences(refs: readonly OwnerReference[]): string {
  return `[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}`;
}
