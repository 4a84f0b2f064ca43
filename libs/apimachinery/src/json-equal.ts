// Equality of JSON values (objects compared by keys, not prototypes or key order), for telling a write that
// changes nothing from one that does. node:util's isDeepStrictEqual also compares prototypes, which differ
// between values from JSON.parse and structuredClone in some realms (Jest's vm contexts).
// It runs on every write (is anything changed?) and on every field of a server-side apply, so it allocates
// nothing: own keys are counted as they are compared instead of listed.
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (!hasOwn(ao, k) || ao[k] === undefined) continue;
    n++;
    if (!jsonEqual(ao[k], hasOwn(bo, k) ? bo[k] : undefined)) return false;
  }
  for (const k in bo) if (hasOwn(bo, k) && bo[k] !== undefined) n--;
  return n === 0;
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
