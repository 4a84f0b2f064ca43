// Decoding a request body into a kind, as kube-apiserver's strict JSON decoder does: a value of the wrong JSON
// type is always a 400; unknown and duplicate fields are a 400 with fieldValidation=Strict, a Warning header with
// Warn (the default), and dropped silently with Ignore. Unknown fields are dropped in every mode, so what is
// stored is what the schema describes. Field defaults are applied on the way.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { nestingDepthExceeds } from '@cl/apimachinery';
import { duplicateFields } from './duplicate-fields';
import type { KindDefinition } from './kind';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface Decoded<T> {
  object: T;
  /** Unknown and duplicate fields, worded as upstream's warnings (`unknown field "spec.foo"`). */
  warnings: string[];
}

/** A body the kind cannot take; the API answers 400 BadRequest with this message. */
export class DecodeError extends Error {
  constructor(
    message: string,
    /** What the decoder refused, without the kind's prefix (`json: cannot unmarshal ...`). */
    readonly detail: string = message,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

/** Parses a `fieldValidation` query value; absent or empty means Warn, as upstream. */
export function parseFieldValidation(value: string | null | undefined): FieldValidation {
  if (value === null || value === undefined || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw new DecodeError(`fieldValidation parameter unsupported: ${value}`);
}

export function decode<S extends TObject>(def: KindDefinition<S>, body: string | Buffer, fieldValidation: FieldValidation = 'Warn'): Decoded<Static<S>> {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const cannot = (why: string) => new DecodeError(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`, why);
  // Everything after the parse walks the value recursively; upstream's decoder refuses such depths as a syntax error.
  if (nestingDepthExceeds(text)) throw cannot('exceeded max depth');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw cannot((e as Error).message);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw cannot(`json: cannot unmarshal ${jsonType(value)} into Go value of type ${def.kind}`);
  const problems: string[] = [];
  const walker = new Walker(def.kind, fieldValidation !== 'Ignore', problems);
  walker.walk(value, def.schema, '');
  if (fieldValidation !== 'Ignore') for (const path of duplicateFields(text)) problems.push(`duplicate field "${path}"`);
  if (walker.typeError) throw cannot(walker.typeError);
  if (problems.length && fieldValidation === 'Strict') throw cannot(`strict decoding error: ${problems.join(', ')}`);
  const object = value as Static<S>;
  def.setDefaults?.(object);
  return { object, warnings: fieldValidation === 'Warn' ? problems : [] };
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** The Go type name a schema node stands for, for upstream-shaped "cannot unmarshal" messages. */
function goType(s: TSchema): string {
  if (s.type === 'string') return 'string';
  if (s.type === 'integer') return s.format === 'int32' ? 'int32' : 'int64';
  if (s.type === 'number') return 'float64';
  if (s.type === 'boolean') return 'bool';
  if (s.type === 'array') return `[]${goType(s.items as TSchema)}`;
  if (s.type === 'object' && s.patternProperties) return `map[string]${goType(Object.values(s.patternProperties as Record<string, TSchema>)[0])}`;
  return 'struct';
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

class Walker {
  typeError: string | null = null;

  constructor(
    private readonly kind: string,
    private readonly reportUnknown: boolean,
    private readonly problems: string[],
  ) {}

  walk(value: unknown, schema: TSchema, path: string): void {
    if (this.typeError) return;
    if (schema['x-kubernetes-preserve-unknown-fields'] || schema.anyOf === undefined && schema.type === undefined) return;
    if (schema.anyOf) {
      const alternatives = schema.anyOf as TSchema[];
      const match = alternatives.find((alt) => this.accepts(alt, value));
      if (!match) this.mismatch(value, alternatives.find((a) => a.type !== 'null') ?? alternatives[0], path);
      else this.walk(value, match, path);
      return;
    }
    // A JSON null for a struct, list or map leaves the field unset, as Go's decoder does.
    if (value === null && (schema.type === 'object' || schema.type === 'array')) return;
    if (!this.accepts(schema, value)) return this.mismatch(value, schema, path);
    if (schema.type === 'array') {
      (value as unknown[]).forEach((item, i) => this.walk(item, schema.items as TSchema, `${path}[${i}]`));
    } else if (schema.type === 'object') {
      this.walkObject(value as Record<string, unknown>, schema, path);
    }
  }

  private walkObject(obj: Record<string, unknown>, schema: TSchema, path: string) {
    if (schema.patternProperties) {
      const valueSchema = Object.values(schema.patternProperties as Record<string, TSchema>)[0];
      for (const [k, v] of Object.entries(obj)) this.walk(v, valueSchema, join(path, k));
      return;
    }
    const props = (schema.properties ?? {}) as Record<string, TSchema>;
    for (const key of Object.keys(obj)) {
      const prop = props[key];
      if (!prop) {
        if (this.reportUnknown) this.problems.push(`unknown field "${join(path, key)}"`);
        delete obj[key];
        continue;
      }
      this.walk(obj[key], prop, join(path, key));
    }
    for (const [key, prop] of Object.entries(props)) {
      if (obj[key] === undefined && prop.default !== undefined) obj[key] = structuredClone(prop.default);
    }
  }

  private accepts(schema: TSchema, value: unknown): boolean {
    switch (schema.type) {
      case 'string':
        return typeof value === 'string';
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'number':
        return typeof value === 'number';
      case 'boolean':
        return typeof value === 'boolean';
      case 'null':
        return value === null;
      case 'array':
        return Array.isArray(value);
      case 'object':
        return value !== null && typeof value === 'object' && !Array.isArray(value);
      default:
        return true;
    }
  }

  private mismatch(value: unknown, schema: TSchema, path: string) {
    const what = typeof value === 'number' && schema.type === 'integer' ? `number ${value}` : jsonType(value);
    this.typeError = `json: cannot unmarshal ${what} into Go struct field ${this.kind}.${path} of type ${goType(schema)}`;
  }
}
