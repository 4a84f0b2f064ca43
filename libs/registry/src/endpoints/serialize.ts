// Cached objects never change once decoded (every write makes a new one), so each is serialized once and the
// text reused by every list and every watcher it goes to: fan-out costs one stringify per event, not per watcher.
import type { KubeObject } from '@cl/apimachinery';

const whole = new WeakMap<object, string>();
const asItem = new WeakMap<object, string>();

export function objectJson(o: KubeObject): string {
  let s = whole.get(o);
  if (s === undefined) {
    s = JSON.stringify(o);
    whole.set(o, s);
  }
  return s;
}

/** The object as a list item: upstream's typed lists leave out each item's kind and apiVersion. */
export function itemJson(o: KubeObject): string {
  let s = asItem.get(o);
  if (s === undefined) {
    s = JSON.stringify({ ...o, apiVersion: undefined, kind: undefined });
    asItem.set(o, s);
  }
  return s;
}
