// The strategic merge patch directives, and how values copied from a patch shed them.
import { GoPanic, goKind } from './go-values';
import { cloneJson, deleteKey, getKey, hasKey, isJsonObject, setKey, type JsonObject } from './json-value';
import { badPrimitiveListFormat, badRetainKeysFormat, badSetElementOrderFormat } from './smp-errors';

export const PATCH_DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** Keys that only steer the merge. Prefix tests, as upstream's strings.HasPrefix. */
function isDirectiveKey(key: string): boolean {
  return key === PATCH_DIRECTIVE || key === RETAIN_KEYS || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER);
}

const DROP = Symbol('drop');

/**
 * A patch value taken as is into the result (a field the original lacks, a list with the replace strategy,
 * the new items of a merged list, a map under `$patch: replace`).
 *
 * Upstream (discardNullValuesFromPatch + removeDirectives) drops null members, and any map or list item
 * that carries `$patch`; in a few of these places it keeps the value raw instead and relies on decoding into
 * the typed object to drop unknown `$...` keys and nulls. We always clean, so that no directive key ever
 * reaches a result: `$retainKeys`, `$setElementOrder/...` and `$deleteFromPrimitiveList/...` keys go too.
 */
export function fromPatch(value: unknown): unknown {
  const cleaned = clean(value);
  return cleaned === DROP ? null : cleaned;
}

/** fromPatch for a whole field value: undefined when the value is itself a `$patch` map (the field goes). */
export function fieldFromPatch(value: unknown): unknown {
  const cleaned = clean(value);
  return cleaned === DROP ? undefined : cleaned;
}

export function listFromPatch(list: readonly unknown[]): unknown[] {
  return list.map(clean).filter((item) => item !== DROP);
}

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return listFromPatch(value);
  if (!isJsonObject(value)) return cloneJson(value);
  // A `$patch: null` member is discarded as a null before removeDirectives looks for the marker.
  if (hasKey(value, PATCH_DIRECTIVE) && value[PATCH_DIRECTIVE] !== null) return DROP;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null || isDirectiveKey(key)) continue;
    const cleaned = clean(item);
    if (cleaned !== DROP) setKey(out, key, cleaned);
  }
  return out;
}

/** extractKey: the field a `$deleteFromPrimitiveList/<field>` or `$setElementOrder/<field>` key names. */
export function directiveField(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST | typeof SET_ELEMENT_ORDER): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST ? badPrimitiveListFormat() : badSetElementOrderFormat();
  }
  return key.slice(slash + 1);
}

/**
 * `$retainKeys`: every other non-null patch field must be listed, and fields of the original that are not
 * listed are cleared before the merge.
 */
export function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const list = getKey(patch, RETAIN_KEYS);
  deleteKey(patch, RETAIN_KEYS);
  if (!Array.isArray(list)) throw badRetainKeysFormat();
  const retained = new Set<string>();
  for (const item of list) {
    const kind = goKind(item);
    // Upstream keys a Go map by each item: a map or list item cannot be hashed.
    if (kind === 'map' || kind === 'slice') throw new GoPanic(`runtime error: hash of unhashable type ${kind === 'map' ? 'map[string]interface {}' : '[]interface {}'}`);
    if (typeof item === 'string') retained.add(item);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained.has(key)) throw badRetainKeysFormat();
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) deleteKey(original, key);
  }
}
