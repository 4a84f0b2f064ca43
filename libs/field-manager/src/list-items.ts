// The path element of a list item: a set's member by its value, an associative list's item by its key fields.
import { keyKey, valueKey, type PathKey } from './field-set';
import { isObject, type Schema } from './shape';

export class SchemaMismatchError extends Error {}

export function itemKey(list: { type: 'atomic' | 'set' | 'map'; items: Schema; keys?: readonly string[] }, item: unknown): PathKey {
  if (list.type === 'set') {
    if (item !== null && typeof item === 'object') throw new SchemaMismatchError('expected a set of scalars');
    return valueKey(item);
  }
  if (!isObject(item)) throw new SchemaMismatchError('associative list with keys has an element that is not a map');
  const fields: Record<string, unknown> = {};
  const props = (list.items.properties ?? {}) as Record<string, Schema>;
  for (const k of list.keys!) {
    // A key the item leaves out counts with the schema's default (a container port's protocol), as upstream.
    const v = item[k] ?? props[k]?.default;
    if (v === undefined) throw new SchemaMismatchError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
    fields[k] = v;
  }
  return keyKey(fields);
}
