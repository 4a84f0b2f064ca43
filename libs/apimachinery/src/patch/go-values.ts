// How the Go code we mirror sees a decoded JSON value: its dynamic type, `==` between two interface{}
// values, and `%v` / reflect type names for error messages.
//
// kube-apiserver decodes integers as int64 and other numbers as float64 (UnmarshalCaseSensitivePreserveInts,
// DefaultUnstructuredConverter), so two numbers of equal value but different "type" are not `==` in Go. A JS
// number has lost the literal's spelling, so an integral number counts as int64 here: `1.0` in a patch body
// is the one case we cannot tell apart.
import { isJsonObject } from './json-value';

export type GoKind = 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil';

export function goKind(value: unknown): GoKind {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (isJsonObject(value)) return 'map';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return 'nil';
}

/** A Go runtime panic; the public entry points turn it into a 500 PatchError. */
export class GoPanic extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoPanic';
  }
}

const GO_TYPE_NAMES: Record<GoKind, string> = {
  map: 'map[string]interface {}',
  slice: '[]interface {}',
  string: 'string',
  int64: 'int64',
  float64: 'float64',
  bool: 'bool',
  nil: '%!s(<nil>)', // reflect.TypeOf(nil) printed with %s
};

/** reflect.TypeOf(v) printed with %s. */
export function goTypeName(value: unknown): string {
  return GO_TYPE_NAMES[goKind(value)];
}

/** Go's `==` on two interface{} values holding decoded JSON: it panics on two maps or two slices. */
export function goEqual(a: unknown, b: unknown): boolean {
  const kind = goKind(a);
  if (kind !== goKind(b)) return false;
  if (kind === 'map' || kind === 'slice') throw new GoPanic(`runtime error: comparing uncomparable type ${GO_TYPE_NAMES[kind]}`);
  return kind === 'nil' || a === b;
}

/**
 * A string that is equal for two scalars exactly when Go's `==` is true, for use as a Map key.
 * Undefined for maps and slices (uncomparable in Go).
 */
export function scalarKey(value: unknown): string | undefined {
  const kind = goKind(value);
  if (kind === 'map' || kind === 'slice') return undefined;
  return kind === 'nil' ? 'nil' : `${kind}:${String(value)}`;
}

/** strconv 'g' with shortest precision, as fmt's %v prints a float64. */
function formatFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exp] = value.toExponential().split('e');
  const exponent = Number(exp);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

/** Go prints maps as map[k:v ...] with sorted keys and slices as [a b], applying the verb to each element. */
function formatCompound(value: unknown, element: (item: unknown) => string): string | undefined {
  if (Array.isArray(value)) return `[${value.map(element).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((key) => `${key}:${element(value[key])}`).join(' ')}]`;
  }
  return undefined;
}

/** fmt's %v of a decoded JSON value. */
export function goFormat(value: unknown): string {
  const compound = formatCompound(value, goFormat);
  if (compound !== undefined) return compound;
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatFloat(value);
  return String(value);
}

/** fmt's %s of an interface{} value: a string as is, any other scalar as %!s(type=value). */
export function goFormatS(value: unknown): string {
  const compound = formatCompound(value, goFormatS);
  if (compound !== undefined) return compound;
  const kind = goKind(value);
  if (kind === 'string') return String(value);
  if (kind === 'nil') return '%!s(<nil>)';
  return `%!s(${kind}=${goFormat(value)})`;
}

/** The word encoding/json's UnmarshalTypeError uses for a JSON value ("cannot unmarshal array into ..."). */
export function jsonKindWord(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'number' ? 'number' : 'string';
}
