// What a kind's schema says about each node, in structured-merge-diff's terms: a struct of named fields, a map of
// arbitrary keys, a list that is atomic, a set, or a map keyed by some of its items' fields, a scalar, or an
// untyped node (x-kubernetes-preserve-unknown-fields) whose maps are walked and whose lists are owned whole. The
// schema is a plain JSON Schema object as TypeBox builds it (properties, patternProperties, anyOf, items, and
// Kubernetes' x-kubernetes-* extensions), so any kind described that way, a CRD's included, works. Two markers are
// cl's own, for fields upstream's objects always carry because they pass through the Go type: `x-cl-value-struct`
// on a struct declared by value (not a pointer), `{}` at least, and `x-cl-null-when-unset` on a field without
// omitempty (or a metav1.Time), null when unset.

/** A JSON Schema node with Kubernetes' extensions. */
export type Schema = { readonly [k: string]: unknown };

export type Shape =
  | { kind: 'struct'; fields: Readonly<Record<string, Schema>>; rest?: Schema; zeros?: readonly Zero[] }
  | { kind: 'map'; values: Schema }
  | { kind: 'list'; type: 'atomic' | 'set'; items: Schema }
  | { kind: 'list'; type: 'map'; items: Schema; keys: readonly string[] }
  | { kind: 'atomic' }
  | { kind: 'untyped' };

/** A field present before it is set: `{}` where Go holds a struct by value, null where it writes an unset field. */
type Zero = { field: string; value: 'struct' | 'null' };

const shapes = new WeakMap<Schema, Shape>();
const UNTYPED: Shape = { kind: 'untyped' };
const ATOMIC: Shape = { kind: 'atomic' };
export const UNTYPED_SCHEMA: Schema = { 'x-kubernetes-preserve-unknown-fields': true };
/** The markers of a field Go declares as a struct by value, and of one it writes as null when unset. */
export const VALUE_STRUCT = 'x-cl-value-struct';
export const NULL_WHEN_UNSET = 'x-cl-null-when-unset';

/** The shape of `schema` for `value` (a union's branch is picked by the value's JSON type). */
export function shapeOf(schema: Schema | undefined, value: unknown): Shape {
  if (!schema) return UNTYPED;
  const union = schema.anyOf as Schema[] | undefined;
  if (union) {
    const want = Array.isArray(value) ? 'array' : value !== null && typeof value === 'object' ? 'object' : 'scalar';
    const branch = union.find((b) => (want === 'scalar' ? b.type !== 'array' && b.type !== 'object' : b.type === want));
    return branch && want !== 'scalar' ? shapeOf(branch, value) : ATOMIC;
  }
  let s = shapes.get(schema);
  if (!s) shapes.set(schema, (s = resolve(schema)));
  return s;
}

function resolve(schema: Schema): Shape {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (schema.type === 'object' || properties || schema.patternProperties) {
    if (schema['x-kubernetes-map-type'] === 'atomic') return ATOMIC;
    const pattern = schema.patternProperties as Record<string, Schema> | undefined;
    const additional = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
    const values = (pattern && Object.values(pattern)[0]) ?? additional;
    if (properties) {
      const zeros: Zero[] = [];
      for (const [field, p] of Object.entries(properties)) {
        if (p[VALUE_STRUCT] === true) zeros.push({ field, value: 'struct' });
        else if (p[NULL_WHEN_UNSET] === true) zeros.push({ field, value: 'null' });
      }
      return {
        kind: 'struct',
        fields: properties,
        ...(values ? { rest: values } : schema['x-kubernetes-preserve-unknown-fields'] ? { rest: UNTYPED_SCHEMA } : {}),
        ...(zeros.length ? { zeros } : {}),
      };
    }
    return values ? { kind: 'map', values } : UNTYPED;
  }
  if (schema.type === 'array') {
    const items = (schema.items as Schema | undefined) ?? UNTYPED_SCHEMA;
    const type = schema['x-kubernetes-list-type'];
    const keys = schema['x-kubernetes-list-map-keys'] as string[] | undefined;
    if (type === 'map' && keys?.length) return { kind: 'list', type: 'map', items, keys };
    if (type === 'set') return { kind: 'list', type: 'set', items };
    return { kind: 'list', type: 'atomic', items };
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] && schema.type === undefined) return UNTYPED;
  return ATOMIC;
}

/** The schema of a struct's or map's entry `key`. */
export function entrySchema(shape: Shape, key: string): Schema | undefined {
  if (shape.kind === 'struct') return shape.fields[key] ?? shape.rest ?? UNTYPED_SCHEMA;
  if (shape.kind === 'map') return shape.values;
  return UNTYPED_SCHEMA;
}

/** An untyped node as what it holds: a map is walked as one, anything else is owned whole. */
export function concrete(shape: Shape, value: unknown): Shape {
  if (shape.kind !== 'untyped') return shape;
  return isObject(value) ? UNTYPED_MAP : ATOMIC;
}
const UNTYPED_MAP: Shape = { kind: 'map', values: UNTYPED_SCHEMA };

/**
 * A struct as upstream sees it after a round trip through the Go type: value structs `{}` where missing or null,
 * fields without omitempty null where missing (so they exist on both sides of a comparison and never own themselves:
 * no `.` entry); `obj` itself when nothing is missing.
 */
export function withGoZeros(shape: Shape, obj: Record<string, unknown>): Record<string, unknown> {
  if (shape.kind !== 'struct' || !shape.zeros) return obj;
  let out: Record<string, unknown> | undefined;
  for (const { field, value } of shape.zeros) {
    const v = obj[field];
    if (v === undefined || (v === null && value === 'struct')) (out ??= { ...obj })[field] = value === 'struct' ? {} : null;
  }
  return out ?? obj;
}

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
