// Element order of merged lists (strategicpatch's normalizeElementOrder and friends).
//
// After a merge, upstream splits the items into those the patch (or `$setElementOrder`) names and the
// "server-only" rest, sorts the first group by the patch's order and the second by the original's, then
// interleaves them: a server-only item goes before a patch item only when both appear in the original and
// it came first there. So without `$setElementOrder`, items new to a list come out *before* the items the
// patch did not mention.
import { goStableSort } from './go-sort';
import { GoPanic, goEqual, goFormat, goKind, scalarKey, type GoKind } from './go-values';
import { getKey, hasKey, isJsonObject } from './json-value';
import { PATCH_DIRECTIVE } from './smp-directives';
import { badArgType, noListOfLists, noMergeKey, notAMap, plain } from './smp-errors';

/** What index() compares: an item's merge-key value in a list of maps, else the item itself. */
function lookupValue(item: unknown, mergeKey: string, kind: GoKind): unknown {
  if (kind !== 'map') return item;
  return isJsonObject(item) ? (getKey(item, mergeKey) ?? null) : null;
}

/** index(list, item): the first position holding an equal value, -1 if none; Go `==` semantics. */
class OrderIndex {
  private readonly first = new Map<string, number>();

  constructor(
    private readonly list: readonly unknown[],
    private readonly mergeKey: string,
    private readonly kind: GoKind,
  ) {
    list.forEach((item, i) => {
      const key = scalarKey(lookupValue(item, mergeKey, kind));
      if (key !== undefined && !this.first.has(key)) this.first.set(key, i);
    });
  }

  indexOf(item: unknown): number {
    const value = lookupValue(item, this.mergeKey, this.kind);
    const key = scalarKey(value);
    if (key !== undefined) return this.first.get(key) ?? -1;
    return this.list.findIndex((other) => goEqual(value, lookupValue(other, this.mergeKey, this.kind)));
  }
}

/** sliceElementType: the one Go type of every item of the lists. */
export function sliceElementKind(...lists: ReadonlyArray<readonly unknown[]>): GoKind {
  let kind: GoKind | undefined;
  for (const item of lists.flat()) {
    const current = goKind(item);
    if (kind === undefined) {
      // reflect.TypeOf(nil) is a nil Type; upstream calls Kind() on it.
      if (current === 'nil') throw new GoPanic('runtime error: invalid memory address or nil pointer dereference');
      if (current === 'slice') throw noListOfLists();
      kind = current;
    } else if (current !== kind) {
      throw plain(`list element types are not identical: ${goFormat(lists)}`);
    }
  }
  if (kind === undefined) throw plain('no elements in any of the given slices');
  return kind;
}

/** findMapInSliceBasedOnKeyValue: position of the first map whose merge key equals `value`. */
export function findByMergeKey(list: readonly unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isJsonObject(item)) throw notAMap(i);
    if (hasKey(item, mergeKey) && goEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

function unhashable(kind: GoKind): GoPanic {
  return new GoPanic(`runtime error: hash of unhashable type ${kind === 'map' ? 'map[string]interface {}' : '[]interface {}'}`);
}

function hashKey(value: unknown): string {
  const key = scalarKey(value);
  if (key === undefined) throw unhashable(goKind(value));
  return key;
}

/** Splits `merged` into the items present in `by` and the rest, keeping their order. */
export function partitionByPresence(merged: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const rest: unknown[] = [];
  if (mergeKey === '') {
    const keys = new Set(by.map(hashKey));
    for (const item of merged) (keys.has(hashKey(item)) ? present : rest).push(item);
    return [present, rest];
  }
  for (const item of merged) {
    if (!isJsonObject(item)) throw badArgType('map', item);
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    (findByMergeKey(by, mergeKey, item[mergeKey]) >= 0 ? present : rest).push(item);
  }
  return [present, rest];
}

function validateMergeKeys(mergeKey: string, ...lists: ReadonlyArray<readonly unknown[]>): void {
  for (const item of lists.flat()) {
    if (!isJsonObject(item)) throw badArgType('map', item);
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
  }
}

/** extractToDeleteItems: [items to keep, items carrying `$patch: delete`]. */
function splitDeleteItems(list: readonly unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw badArgType('map', item);
    (hasKey(item, PATCH_DIRECTIVE) && item[PATCH_DIRECTIVE] === 'delete' ? toDelete : keep).push(item);
  }
  return [keep, toDelete];
}

/** normalizeSliceOrder: `toSort` stably sorted by position in `order`, delete items last. */
function sortByOrder(toSort: readonly unknown[], order: readonly unknown[], mergeKey: string, kind: GoKind): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeys(mergeKey, toSort, order);
    [items, toDelete] = splitDeleteItems(toSort);
  }
  const index = new OrderIndex(order, mergeKey, kind);
  goStableSort(items, (a, b) => {
    const ia = index.indexOf(a);
    if (ia < 0) return true;
    const ib = index.indexOf(b);
    return ib < 0 || ia < ib;
  });
  return [...items, ...toDelete];
}

/** mergeSortedSlice: interleaves server-only items (left) into patch items (right). */
function interleave(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: GoKind): unknown[] {
  const index = new OrderIndex(serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = index.indexOf(left[i]);
      const ri = index.indexOf(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

export interface OrderInput {
  patchItems: readonly unknown[];
  serverOnly: readonly unknown[];
  patchOrder: readonly unknown[];
  serverOrder: readonly unknown[];
  mergeKey: string;
  kind: GoKind;
}

/** normalizeElementOrder. */
export function orderMergedList({ patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind }: OrderInput): unknown[] {
  const sortedPatch = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return interleave(sortedServer, sortedPatch, serverOrder, mergeKey, kind);
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return goEqual(left, right);
  if (!isJsonObject(left)) throw badArgType('map', left);
  if (!isJsonObject(right)) throw badArgType('map', right);
  if (!hasKey(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

const hasDirective = (item: unknown): boolean => isJsonObject(item) && hasKey(item, PATCH_DIRECTIVE);

/**
 * validatePatchWithSetOrderList: the patch list's items (deletions and other directives aside) must appear
 * in the `$setElementOrder` list, in the same relative order.
 */
export function validateSetElementOrder(patchList: readonly unknown[], order: readonly unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : splitDeleteItems(patchList)[0];
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (hasDirective(items[p])) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length && s >= order.length) {
    throw plain(`The order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(order)}\n`);
  }
}
