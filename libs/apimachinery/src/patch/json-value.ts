// Plain JSON values as the patch algorithms see them, and the few safe helpers they share.
//
// Objects are ordinary JS objects, but every key is read as an *own* property and written with
// defineProperty: a patch may legitimately carry a key such as "__proto__" or "constructor", and an
// assignment would reach the prototype instead of the document.

export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own property `key`, or undefined when absent. */
export function getKey(obj: JsonObject, key: string): unknown {
  return hasKey(obj, key) ? obj[key] : undefined;
}

export function setKey(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

export function deleteKey(obj: JsonObject, key: string): void {
  if (hasKey(obj, key)) delete obj[key];
}

/**
 * A deep copy, so that the algorithms can work in place (as their Go originals do) and still never touch
 * the caller's values. A property whose value is undefined is dropped, as JSON.stringify would drop it (and an
 * undefined array item becomes null). It copies with a queue of its own rather than recursing: a body may nest
 * as deep as the decoder allows (10,000 levels), past what the call stack takes.
 */
export function cloneJson(value: unknown): unknown {
  if (!Array.isArray(value) && !isJsonObject(value)) return value;
  const root = Array.isArray(value) ? new Array<unknown>(value.length) : {};
  const pending: Array<[from: unknown[] | JsonObject, to: unknown[] | JsonObject]> = [[value, root]];
  const copy = (item: unknown): unknown => {
    if (Array.isArray(item)) {
      const to = new Array<unknown>(item.length);
      pending.push([item, to]);
      return to;
    }
    if (isJsonObject(item)) {
      const to: JsonObject = {};
      pending.push([item, to]);
      return to;
    }
    return item;
  };
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (let i = 0; i < from.length; i++) out[i] = copy(from[i] === undefined ? null : from[i]);
    } else {
      for (const [key, item] of Object.entries(from)) {
        if (item !== undefined) setKey(to as JsonObject, key, copy(item));
      }
    }
  }
  return root;
}

/** Structural equality of two JSON values (key order ignored, array order significant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => hasKey(b, key) && jsonEqual(a[key], b[key]));
  }
  return a === b;
}
