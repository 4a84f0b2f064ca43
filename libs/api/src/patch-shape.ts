// The first value of a merge or strategic-merge patch whose JSON type the kind's field cannot take
// (`{"metadata":{"labels":"invalid"}}`). A patch only changes what it names, so such a value is always the patch's:
// walking the patch (small) beside the schema finds it without decoding the patched object twice. The message is
// upstream's for a strategic merge patch, whose result goes through the unstructured converter
// (runtime.DefaultUnstructuredConverter.FromUnstructured: "cannot restore map from string"); a merge patch's result is
// decoded as JSON instead, so its caller reports the JSON decoder's message.
import type { TSchema } from '@sinclair/typebox';
import type { KindDefinition } from './kind';

/** A value's Go kind as the converter names it (JSON numbers keep their integers as int64, as upstream decodes patches). */
function goKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? 'slice' : 'map';
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function scalarType(s: TSchema): string {
  if (s.type === 'integer') return s.format === 'int32' ? 'int32' : 'int64';
  if (s.type === 'number') return 'float64';
  return s.type === 'boolean' ? 'bool' : 'string';
}

/** The converter's error for `v` in a field of schema `s`, or null when it takes it (then the walk goes on below). */
function mismatch(v: unknown, s: TSchema): string | null {
  const kind = goKind(v);
  if (s.type === 'object' && (s.patternProperties || s.additionalProperties)) return isMap(v) ? null : `cannot restore map from ${kind}`;
  if (s.type === 'object') return isMap(v) ? null : `cannot restore struct from: ${kind}`;
  if (s.type === 'array') return Array.isArray(v) ? null : `cannot restore slice from ${kind}`;
  const dt = scalarType(s);
  // Go's reflect rules: a value of the field's type, or one convertible to it (numbers among themselves; an
  // integer "converts" to a string but the converter refuses that); anything else is a type it does not handle.
  if (dt === 'string') return kind === 'string' ? null : kind === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string';
  if (dt === 'bool') return kind === 'bool' ? null : 'unrecognized type: bool';
  if (kind === 'int64') return null;
  if (kind === 'float64') return dt === 'float64' ? null : `cannot convert float64 to ${dt}`;
  return `unrecognized type: ${dt}`;
}

/** Keys of a strategic merge patch that are directives, not fields ($patch, $retainKeys, $setElementOrder/..., ...). */
const isDirective = (key: string) => key.startsWith('$');

function walk(v: unknown, s: TSchema): string | null {
  // null deletes; quantities, int-or-strings, times and raw JSON have converters of their own; untyped is anything.
  if (v === null || s.anyOf || s['x-kubernetes-preserve-unknown-fields'] || s.type === undefined) return null;
  const bad = mismatch(v, s);
  if (bad) return bad;
  if (s.type === 'array') {
    for (const item of v as unknown[]) {
      const e = walk(item, s.items as TSchema);
      if (e) return e;
    }
    return null;
  }
  if (s.type !== 'object') return null;
  const values = s.patternProperties ? (Object.values(s.patternProperties as Record<string, TSchema>)[0] as TSchema) : undefined;
  const props = (s.properties ?? {}) as Record<string, TSchema>;
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    if (isDirective(key)) continue;
    const field = values ?? props[key];
    // Unknown fields are fieldValidation's to report.
    const e = field ? walk(value, field) : null;
    if (e) return e;
  }
  return null;
}

/** The converter's message for the first value of `patch` the kind cannot hold, or null when the patch fits. */
export function patchShapeError(def: KindDefinition, patch: unknown): string | null {
  return isMap(patch) ? walk(patch, def.schema) : null;
}

/** A JSON value as Go's `%+v` prints what json.Unmarshal made of it: `map[metadata:map[labels:invalid]]`. */
export function goPrint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goPrint).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goPrint(x)}`).join(' ')}]`;
  }
  if (typeof v === 'number' && !Number.isInteger(v)) return goFloat(v);
  return String(v);
}

/** A float64 as %v prints it: the shortest form, with an exponent of at least two digits below 1e-4 and from 1e21. */
function goFloat(v: number): string {
  const exp = Math.floor(Math.log10(Math.abs(v)));
  if (exp >= -4 && exp < 21) return String(v);
  const [mantissa, e] = v.toExponential().split('e');
  const sign = e.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
}
