// The walks over an object and its schema that field management is built from, after structured-merge-diff's
// typed package: the fields an object sets (ToFieldSet), how two states differ (Compare), an applied
// configuration merged into the live object (Merge), and fields taken out of an object (RemoveItems).
import { jsonEqual } from '@cl/apimachinery';
import { fieldKey, FieldSet, formatPath, type PathKey } from './field-set';
import { itemKey, SchemaMismatchError } from './list-items';
import { concrete, entrySchema, isObject, shapeOf, withGoZeros, type Schema, type Shape } from './shape';

type ListShape = Extract<Shape, { kind: 'list' }>;

/** The fields `value` sets: leaves, atomic nodes and associative list items (maps themselves are not members). */
export function toFieldSet(schema: Schema, value: unknown, strict = false): FieldSet {
  const set = new FieldSet();
  if (value !== undefined) fieldsOf(schema, value, set, true, strict ? '' : undefined);
  return set;
}

/** `where` set: a configuration, whose list items must be told apart (duplicates and missing keys are errors). */
function fieldsOf(schema: Schema | undefined, value: unknown, node: FieldSet, root: boolean, where?: string): void {
  const shape = concrete(shapeOf(schema, value), value);
  if ((shape.kind === 'struct' || shape.kind === 'map') && isObject(value)) {
    for (const k in value) {
      const v = value[k];
      if (v !== undefined) fieldsOf(entrySchema(shape, k), v, node.child(fieldKey(k)), false, where === undefined ? undefined : `${where}.${k}`);
    }
    return;
  }
  if (shape.kind === 'list' && shape.type !== 'atomic' && Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      let key: PathKey;
      try {
        key = itemKey(shape, item);
      } catch (e) {
        if (e instanceof SchemaMismatchError && where !== undefined) throw new MergeError(`${where}: element ${i}: ${e.message}`);
        throw e;
      }
      if (where !== undefined && node.get(key)?.member) throw new MergeError(`${where}: duplicate entries for key ${formatPath([key])}`);
      const child = node.child(key);
      child.member = true;
      fieldsOf(shape.items, item, child, false, where);
    }
    return;
  }
  if (!root) node.member = true;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * How `rhs` differs from `lhs`: paths only in rhs (added, with every node under them), only in lhs, or changed leaves.
 * Both are read as their Go types would carry them (value structs and fields without omitempty present, see withGoZeros), as upstream
 * compares objects that went through them.
 */
export function compare(schema: Schema, lhs: unknown, rhs: unknown): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareNode(schema, lhs, rhs, [], c);
  return c;
}

function compareNode(schema: Schema | undefined, lhs: unknown, rhs: unknown, path: PathKey[], c: Comparison): void {
  const sample = rhs === undefined ? lhs : rhs;
  const shape = concrete(shapeOf(schema, sample), sample);
  if (!compareChildren(shape, lhs, rhs, path, c)) {
    // A leaf: a scalar, an atomic node, or a map or list empty on both sides (so null and {} stay distinct).
    if (!path.length) return;
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (!path.length) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

/** Compares a map's or list's entries; false where the node is a leaf. */
function compareChildren(shape: Shape, lhs: unknown, rhs: unknown, path: PathKey[], c: Comparison): boolean {
  if (shape.kind === 'struct' || shape.kind === 'map') {
    // null is an empty node that is there (upstream's nil map), so a node set from null does not own itself.
    const l = lhs === undefined ? undefined : lhs === null ? NO_FIELDS : isObject(lhs) ? withGoZeros(shape, lhs) : null;
    const r = rhs === undefined ? undefined : rhs === null ? NO_FIELDS : isObject(rhs) ? withGoZeros(shape, rhs) : null;
    if (l === null || r === null || (isEmptyObject(l) && isEmptyObject(r))) return false;
    for (const k in l) {
      path.push(fieldKey(k));
      compareNode(entrySchema(shape, k), l![k], r?.[k], path, c);
      path.pop();
    }
    for (const k in r) {
      if (l && k in l) continue;
      path.push(fieldKey(k));
      compareNode(entrySchema(shape, k), undefined, r[k], path, c);
      path.pop();
    }
    return true;
  }
  if (shape.kind !== 'list' || shape.type === 'atomic') return false;
  const l = lhs === undefined || lhs === null ? [] : Array.isArray(lhs) ? lhs : null;
  const r = rhs === undefined || rhs === null ? [] : Array.isArray(rhs) ? rhs : null;
  if (!l || !r || (l.length === 0 && r.length === 0)) return false;
  const li = indexItems(shape, l);
  const ri = indexItems(shape, r);
  // Items that cannot be told apart (duplicates, a missing key) make the list one leaf.
  if (!li || !ri) return false;
  for (const [k, item] of li) {
    path.push(k);
    compareNode(shape.items, item, ri.get(k), path, c);
    path.pop();
  }
  for (const [k, item] of ri) {
    if (li.has(k)) continue;
    path.push(k);
    compareNode(shape.items, undefined, item, path, c);
    path.pop();
  }
  return true;
}

const NO_FIELDS: Record<string, unknown> = Object.freeze({});

function indexItems(shape: ListShape, list: unknown[]): Map<PathKey, unknown> | null {
  const out = new Map<PathKey, unknown>();
  try {
    for (const item of list) {
      const k = itemKey(shape, item);
      if (out.has(k)) return null;
      out.set(k, item);
    }
  } catch (e) {
    if (e instanceof SchemaMismatchError) return null;
    throw e;
  }
  return out;
}

/**
 * An applied configuration merged into the live object: maps and structs field by field, sets and associative
 * lists item by item (in upstream's order: the configuration's items in its order, live-only items kept where
 * they were), everything else replaced. A null in the configuration leaves the field out, as decoding into the
 * kind's type does upstream.
 */
export function merge(schema: Schema, lhs: unknown, rhs: unknown): unknown {
  return mergeNode(schema, lhs, rhs, '');
}

export class MergeError extends Error {}

function mergeNode(schema: Schema | undefined, lhs: unknown, rhs: unknown, where: string): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || lhs === null) return rhs;
  const shape = concrete(shapeOf(schema, rhs), rhs);
  if ((shape.kind === 'struct' || shape.kind === 'map') && isObject(lhs) && isObject(rhs)) {
    const out: Record<string, unknown> = { ...lhs };
    for (const k in rhs) {
      const v = rhs[k] === null ? null : mergeNode(entrySchema(shape, k), lhs[k], rhs[k], `${where}.${k}`);
      if (v === null || v === undefined) delete out[k];
      else out[k] = v;
    }
    return out;
  }
  if (shape.kind === 'list' && shape.type !== 'atomic' && Array.isArray(lhs) && Array.isArray(rhs) && (lhs.length || rhs.length)) {
    return mergeList(shape, lhs, rhs, where);
  }
  return rhs;
}

function mergeList(shape: ListShape, lhs: unknown[], rhs: unknown[], where: string): unknown[] {
  const keyed = (list: unknown[], duplicates: boolean) => {
    const keys: PathKey[] = [];
    const byKey = new Map<PathKey, unknown>();
    for (const [i, item] of list.entries()) {
      let k: PathKey;
      try {
        k = itemKey(shape, item);
      } catch (e) {
        if (e instanceof SchemaMismatchError) throw new MergeError(`${where}: element ${i}: ${e.message}`);
        throw e;
      }
      if (byKey.has(k)) {
        if (!duplicates) throw new MergeError(`${where}: duplicate entries for key ${k}`);
        byKey.set(k, undefined); // a live duplicate is replaced by what the configuration says
      } else byKey.set(k, item);
      keys.push(k);
    }
    return { keys, byKey };
  };
  const r = keyed(rhs, false);
  const l = keyed(lhs, true);
  // The configuration's order decides among items both have; live-only items stay beside their neighbours.
  const shared = r.keys.filter((k) => l.byKey.has(k));
  let next = 0;
  const merged = new Set<PathKey>();
  const out: unknown[] = [];
  const mergeItem = (k: PathKey, live: unknown, applied: unknown) => {
    const v = mergeNode(shape.items, live, applied, where);
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < l.keys.length || ri < r.keys.length) {
    if (li < l.keys.length && ri < r.keys.length) {
      const k = l.keys[li];
      if (k === r.keys[ri]) {
        merged.add(k);
        mergeItem(k, l.byKey.get(k), r.byKey.get(k));
        li++;
        ri++;
        next = shared.indexOf(k, next) + 1;
        continue;
      }
      if (r.byKey.has(k) && next < shared.length && shared[next] !== k) {
        li++;
        continue;
      }
    }
    if (li < l.keys.length) {
      const k = l.keys[li];
      if (!r.byKey.has(k)) {
        mergeItem(k, lhs[li], undefined);
        li++;
        continue;
      }
      if (merged.has(k)) li++;
    }
    if (ri < r.keys.length) {
      const k = r.keys[ri];
      merged.add(k);
      mergeItem(k, l.byKey.get(k), r.byKey.get(k));
      ri++;
      if (next < shared.length && shared[next] === k) next++;
    }
  }
  return out;
}

/** `value` without the member paths of `set`; a map or list emptied so is left out too, as upstream. */
export function removeFields(schema: Schema, value: unknown, set: FieldSet): unknown {
  return set.empty ? value : removeNode(schema, value, set);
}

function removeNode(schema: Schema | undefined, value: unknown, set: FieldSet): unknown {
  const shape = concrete(shapeOf(schema, value), value);
  if ((shape.kind === 'struct' || shape.kind === 'map') && isObject(value)) {
    const out: Record<string, unknown> = {};
    let kept = 0;
    for (const k in value) {
      const child = set.get(fieldKey(k));
      if (child?.member) continue;
      const v = child && !child.empty ? removeNode(entrySchema(shape, k), value[k], child) : value[k];
      if (v !== undefined) {
        out[k] = v;
        kept++;
      }
    }
    return kept || isEmptyObject(value) ? out : undefined;
  }
  if (shape.kind === 'list' && shape.type !== 'atomic' && Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      let child: FieldSet | undefined;
      try {
        child = set.get(itemKey(shape, item));
      } catch (e) {
        if (!(e instanceof SchemaMismatchError)) throw e;
      }
      if (child?.member) continue;
      const v = child && !child.empty ? removeNode(shape.items, item, child) : item;
      if (v !== undefined) out.push(v);
    }
    return out.length || value.length === 0 ? out : undefined;
  }
  return value;
}

/**
 * The set with every named field (a struct's field, not a map's key) that has members under it made a member too,
 * as upstream's EnsureNamedFieldsAreMembers: owning `.spec.a.b` then means owning that `.spec.a` exists.
 */
export function withNamedFieldsAsMembers(schema: Schema, set: FieldSet): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  if (!set.children) return out;
  const shape = shapeForSet(schema, set);
  for (const [k, child] of set.children) {
    if (child.empty) continue;
    const name = k.startsWith('f:') ? k.slice(2) : undefined;
    const childSchema = name !== undefined ? entrySchema(shape, name) : shape.kind === 'list' ? shape.items : undefined;
    const c = withNamedFieldsAsMembers(childSchema ?? {}, child);
    if (name !== undefined && shape.kind === 'struct' && name in shape.fields && child.children?.size) c.member = true;
    (out.children ??= new Map()).set(k, c);
  }
  return out;
}

/** A set's node read against the schema: a union's object branch for field keys, its list branch for item keys. */
function shapeForSet(schema: Schema, set: FieldSet): Shape {
  const first = set.children?.keys().next().value as PathKey | undefined;
  const sample = first?.startsWith('f:') ? {} : first ? [] : undefined;
  return concrete(shapeOf(schema, sample), sample);
}

function isEmptyObject(o: Record<string, unknown> | undefined): boolean {
  if (!o) return true;
  for (const _ in o) return false;
  return true;
}
