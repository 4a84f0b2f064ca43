// Strategic merge patch as kube-apiserver 1.33 applies it: strategicpatch.StrategicMergeMapPatch from
// k8s.io/apimachinery v0.33 (mergeMap with MergeParallelList and IgnoreUnmatchedNulls), with the patch
// strategy of each list supplied by the caller instead of read from Go struct tags.
//
// Behaviour worth knowing (all upstream's):
// - A map merges recursively; a null patch value deletes the field; `$patch: replace` on a map replaces it
//   with the rest of the patch map, `$patch: delete` empties it (the field stays, as {}).
// - A `merge` list of maps matches items by merge key and merges them; `{"<key>": v, "$patch": "delete"}`
//   removes every item with that key; a `{"$patch": "replace"}` item makes the other patch items the list.
//   Without `$setElementOrder`, items new to the list come out *before* the items the patch did not name
//   (see smp-order.ts).
// - A `set` list (a primitive list with patchStrategy merge) is the union, deduplicated;
//   `$deleteFromPrimitiveList/<field>` removes values from it.
// - A `replace` list is replaced whole.
// - `$setElementOrder/<field>` orders the merged list: named items in the given order, the rest placed by
//   their position in the original.
// - `$retainKeys` clears the original's fields not listed (and every non-null patch field must be listed).
// Directive keys never reach the result (see fromPatch in smp-directives.ts for where we are stricter than
// upstream's raw copies, which typed decoding cleans up in kube-apiserver).
import { patchErrors } from './errors';
import { GoPanic, goKind, jsonKindWord, scalarKey } from './go-values';
import { cloneJson, deleteKey, getKey, hasKey, isJsonObject, setKey, type JsonObject } from './json-value';
import {
  DELETE_FROM_PRIMITIVE_LIST,
  PATCH_DIRECTIVE,
  SET_ELEMENT_ORDER,
  applyRetainKeys,
  directiveField,
  fieldFromPatch,
  fromPatch,
  listFromPatch,
} from './smp-directives';
import { badArgType, badJsonDoc, badPatchType, noMergeKey, plain } from './smp-errors';
import { findByMergeKey, orderMergedList, partitionByPresence, sliceElementKind, validateSetElementOrder } from './smp-order';

export type ListPatchStrategy = { type: 'merge'; key: string } | { type: 'set' } | { type: 'replace' };
/**
 * The patch strategy of the list at `path`: field names from the root, list items transparent
 * (['spec', 'containers', 'ports'] for spec.containers[*].ports).
 */
export type StrategyLookup = (path: readonly string[]) => ListPatchStrategy;

export function applyStrategicMergePatch(original: unknown, patch: unknown, strategyAt: StrategyLookup): unknown {
  // patch.go decodes the body into map[string]interface{}; null decodes to an empty patch.
  const ownPatch = cloneJson(patch) ?? {};
  if (!isJsonObject(ownPatch)) {
    throw patchErrors.badRequest(`json: cannot unmarshal ${jsonKindWord(ownPatch)} into Go value of type map[string]interface {}`);
  }
  // A nil original map is merged into as an empty one.
  const target = cloneJson(original) ?? {};
  if (!isJsonObject(target)) throw badJsonDoc();
  try {
    return new StrategicMerger(strategyAt).mergeMap(target, ownPatch, []);
  } catch (err) {
    if (err instanceof GoPanic) throw patchErrors.panic(err.message);
    throw err;
  }
}

/**
 * The original list's backing array as upstream's in-place edits leave it. `$setElementOrder` orders by the
 * original list *after* the merge deleted items from it (shifting the rest left) and appended new items
 * into the slots that freed; this tracks those edits so the order comes out the same.
 */
interface Backing {
  items: unknown[];
  length: number;
}

const backingOf = (list: readonly unknown[]): Backing => ({ items: [...list], length: list.length });

function removeFromBacking(backing: Backing, index: number): void {
  backing.items.copyWithin(index, index + 1, backing.length);
  backing.length--;
}

class StrategicMerger {
  constructor(private readonly strategyAt: StrategyLookup) {}

  /** mergeMap: merges `patch` into `original` (both owned, edited in place) and returns the result. */
  mergeMap(original: JsonObject, patch: JsonObject, path: readonly string[]): JsonObject {
    if (hasKey(patch, PATCH_DIRECTIVE)) return this.mapDirective(getKey(patch, PATCH_DIRECTIVE), patch);
    applyRetainKeys(original, patch);
    this.applyElementOrders(original, patch, path);
    // Upstream ranges over a Go map, in random order. Where the order shows (a value both added by `x` and
    // removed by `$deleteFromPrimitiveList/x`, or several errors at once) its outcome varies from request to
    // request; we use the patch's key order.
    for (const key of Object.keys(patch)) this.mergeField(original, key, patch[key], path);
    return original;
  }

  private mapDirective(directive: unknown, patch: JsonObject): JsonObject {
    if (directive === 'replace') {
      deleteKey(patch, PATCH_DIRECTIVE);
      const replaced = fromPatch(patch);
      return isJsonObject(replaced) ? replaced : {};
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }

  private mergeField(original: JsonObject, patchKey: string, patchValue: unknown, path: readonly string[]): void {
    let key = patchKey;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST) || patchKey;

    if (patchValue === null) {
      deleteKey(original, key);
      return;
    }
    const current = getKey(original, key);
    if (current === undefined || goKind(current) !== goKind(patchValue)) {
      if (!isDeleteList) this.takeFromPatch(original, key, patchValue);
      return;
    }
    if (isJsonObject(current) && isJsonObject(patchValue)) {
      setKey(original, key, this.mergeMap(current, patchValue, [...path, key]));
    } else if (Array.isArray(current) && Array.isArray(patchValue)) {
      setKey(original, key, this.mergeListField(current, patchValue, [...path, key], isDeleteList, backingOf(current)));
    } else {
      this.takeFromPatch(original, key, patchValue);
    }
  }

  private takeFromPatch(original: JsonObject, key: string, patchValue: unknown): void {
    const value = fieldFromPatch(patchValue);
    if (value === undefined) deleteKey(original, key);
    else setKey(original, key, value);
  }

  /** mergeSliceHandler: delete lists and merge/set lists merge, replace lists are replaced. */
  private mergeListField(original: unknown[], patch: unknown[], path: readonly string[], isDeleteList: boolean, backing: Backing): unknown[] {
    const strategy = this.strategyAt(path);
    if (strategy.type === 'replace' && !isDeleteList) return listFromPatch(patch);
    return this.mergeList(original, patch, path, strategy, isDeleteList, backing);
  }

  /** mergeSlice. */
  private mergeList(original: unknown[], patch: unknown[], path: readonly string[], strategy: ListPatchStrategy, isDeleteList: boolean, backing: Backing): unknown[] {
    if (original.length === 0 && patch.length === 0) return original;
    const kind = sliceElementKind(original, patch);
    const mergeKey = strategy.type === 'merge' ? strategy.key : '';
    if (kind !== 'map') {
      if (isDeleteList) return withoutValues(original, patch);
      const merged = dedupe([...original, ...patch]);
      const [patchItems, serverOnly] = partitionByPresence(merged, patch, mergeKey);
      return orderMergedList({ patchItems, serverOnly, patchOrder: patch, serverOrder: original, mergeKey, kind });
    }
    // schema.Name() upstream: the Go kind of the list's element type.
    if (mergeKey === '') throw plain(`cannot merge lists without merge key for ${strategy.type === 'set' ? 'string' : 'struct'}`);
    const { base, items, replaced } = applySpecialItems(patch, mergeKey, backing);
    const merged = this.mergeItems(base, items, path, mergeKey, replaced ? undefined : backing);
    const [patchItems, serverOnly] = partitionByPresence(merged, items, mergeKey);
    return orderMergedList({ patchItems, serverOnly, patchOrder: items, serverOrder: base, mergeKey, kind });
  }

  /** mergeSliceWithoutSpecialElements: patch items merge into the item with their key, or are appended. */
  private mergeItems(base: readonly unknown[], items: readonly unknown[], path: readonly string[], mergeKey: string, backing: Backing | undefined): unknown[] {
    const merged = [...base];
    for (const item of items) {
      if (!isJsonObject(item)) throw badArgType('map', item);
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const at = findByMergeKey(merged, mergeKey, item[mergeKey]);
      const target = merged[at];
      if (at >= 0 && isJsonObject(target)) {
        merged[at] = this.mergeMap(target, item, path);
        continue;
      }
      const added = fromPatch(item);
      merged.push(added);
      // append() writes into the original's backing array while it has room (slots freed by deletions).
      if (backing && backing.length < backing.items.length) backing.items[backing.length++] = added;
    }
    return merged;
  }

  /** mergePatchIntoOriginal: every `$setElementOrder/<field>` directive, with the list it orders. */
  private applyElementOrders(original: JsonObject, patch: JsonObject, path: readonly string[]): void {
    for (const key of Object.keys(patch)) {
      if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
      const order = patch[key];
      deleteKey(patch, key);
      if (!Array.isArray(order)) throw badArgType('slice', order);
      const field = directiveField(key, SET_ELEMENT_ORDER);
      const originalList = listAt(original, field);
      const patchList = listAt(patch, field);
      const fieldPath = [...path, field];
      const strategy = this.strategyAt(fieldPath);
      const mergeKey = strategy.type === 'merge' ? strategy.key : '';
      validateSetElementOrder(patchList ?? [], order, mergeKey);

      const backing = backingOf(originalList ?? []);
      let merged: unknown[];
      if (originalList && patchList) merged = this.mergeListField(originalList, patchList, fieldPath, false, backing);
      else if (originalList) merged = originalList;
      else if (patchList) merged = listFromPatch(patchList);
      else continue;

      const [patchItems, serverOnly] = partitionByPresence(merged, order, mergeKey);
      const kind = sliceElementKind(backing.items, patchList ?? []);
      setKey(original, field, orderMergedList({ patchItems, serverOnly, patchOrder: order, serverOrder: backing.items, mergeKey, kind }));
      deleteKey(patch, field);
    }
  }
}

/** The list at `field`, undefined when absent; anything else there is an error (ErrBadArgType). */
function listAt(obj: JsonObject, field: string): unknown[] | undefined {
  if (!hasKey(obj, field)) return undefined;
  const value = obj[field];
  if (!Array.isArray(value)) throw badArgType('slice', value);
  return value;
}

/**
 * mergeSliceWithSpecialElements: applies `$patch: delete` items to the backing array (every item with that
 * merge key goes) and `$patch: replace`; returns the list to merge into and the remaining patch items.
 */
function applySpecialItems(patch: readonly unknown[], mergeKey: string, backing: Backing): { base: unknown[]; items: unknown[]; replaced: boolean } {
  const items: unknown[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isJsonObject(item) || !hasKey(item, PATCH_DIRECTIVE)) {
      items.push(item);
      continue;
    }
    const directive = item[PATCH_DIRECTIVE];
    if (directive === 'delete') {
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      deleteMatching(backing, mergeKey, item[mergeKey]);
    } else if (directive === 'replace') {
      replace = true; // keep scanning: later directives are still checked
    } else if (directive === 'merge') {
      throw plain('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  // With replace, the remaining items are the list, a fresh one: later appends no longer touch the original.
  if (replace) return { base: items.map(fromPatch), items: [], replaced: true };
  return { base: backing.items.slice(0, backing.length), items, replaced: false };
}

function deleteMatching(backing: Backing, mergeKey: string, value: unknown): void {
  for (;;) {
    const at = findByMergeKey(backing.items.slice(0, backing.length), mergeKey, value);
    if (at < 0) return;
    removeFromBacking(backing, at);
  }
}

/** deduplicateScalars; which copy survives does not matter, the order is normalised afterwards. */
function dedupe(items: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = scalarKey(item) ?? '';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** deleteFromSlice: the items of `current` not equal to any of `toDelete`. */
function withoutValues(current: readonly unknown[], toDelete: readonly unknown[]): unknown[] {
  const doomed = new Set(toDelete.map((item) => scalarKey(item)));
  return current.filter((item) => !doomed.has(scalarKey(item)));
}
