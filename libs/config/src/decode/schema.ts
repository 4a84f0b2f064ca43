// Schema-driven strict decoding, the job sigs.k8s.io/json's UnmarshalStrict does for Go structs:
// unknown and repeated fields are collected with their paths, a value of the wrong JSON type stops
// decoding with Go's `json: cannot unmarshal ...` text, and metav1.Duration strings become milliseconds.
import { parseDuration } from '@cl/flags';
import { jsonKindName, nodeToValue, type JNode } from './tree';

export type FieldType =
  | { k: 'string' }
  | { k: 'bool' }
  | { k: 'int32' }
  | { k: 'int64' }
  | { k: 'duration' }
  | { k: 'raw' }
  | { k: 'slice'; elem: FieldType }
  | { k: 'struct'; name: string; goType: string; fields: Record<string, FieldSpec> };

export interface FieldSpec {
  type: FieldType;
  /** Go pointer: `null` leaves the field unset instead of storing the zero value. */
  pointer?: boolean;
}

export const t = {
  string: { k: 'string' } as FieldType,
  bool: { k: 'bool' } as FieldType,
  int32: { k: 'int32' } as FieldType,
  int64: { k: 'int64' } as FieldType,
  duration: { k: 'duration' } as FieldType,
  raw: { k: 'raw' } as FieldType,
  slice: (elem: FieldType): FieldType => ({ k: 'slice', elem }),
  struct: (name: string, pkg: string, fields: Record<string, FieldSpec | FieldType>): FieldType => ({
    k: 'struct',
    name,
    goType: `${pkg}.${name}`,
    fields: Object.fromEntries(Object.entries(fields).map(([n, f]) => [n, 'k' in f ? { type: f } : f])),
  }),
  ptr: (type: FieldType): FieldSpec => ({ type, pointer: true }),
};

/** Fatal decode error: a JSON value of the wrong type, or a bad duration. */
export class DecodeTypeError extends Error {}

export interface StrictResult {
  value: Record<string, unknown>;
  /** `unknown field "a[0].b"` / `duplicate field "a"`, in document order, de-duplicated, at most 100. */
  strictErrors: string[];
}

const INT32 = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;

function goTypeName(ft: FieldType): string {
  switch (ft.k) {
    case 'slice':
      return `[]${goTypeName(ft.elem)}`;
    case 'struct':
      return ft.goType;
    case 'duration':
      return 'v1.Duration';
    case 'raw':
      return 'runtime.RawExtension';
    default:
      return ft.k;
  }
}

export function zeroValue(ft: FieldType): unknown {
  switch (ft.k) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'duration':
      return 0;
    case 'slice':
      return [];
    case 'raw':
      return undefined;
    case 'struct': {
      const o: Record<string, unknown> = {};
      for (const [k, f] of Object.entries(ft.fields)) if (!f.pointer && f.type.k !== 'raw') o[k] = zeroValue(f.type);
      return o;
    }
  }
}

/** Decodes `root` (a JSON object) against the top-level struct `schema`. */
export function decodeStrict(root: JNode, schema: FieldType & { k: 'struct' }): StrictResult {
  const strict: string[] = [];
  const seen = new Set<string>();
  const addStrict = (msg: string) => {
    if (strict.length < 100 && !seen.has(msg)) {
      seen.add(msg);
      strict.push(msg);
    }
  };

  // ctx: the innermost Go struct name and the index-free JSON path, for Go's type error text
  interface Ctx {
    struct: string;
    jsonPath: string;
  }
  const typeError = (n: JNode, ft: FieldType, ctx: Ctx, withValue = false): never => {
    const what = withValue && n.t === 'number' ? `number ${n.raw}` : jsonKindName(n);
    const where = ctx.struct ? `Go struct field ${ctx.struct}.${ctx.jsonPath}` : 'Go value';
    throw new DecodeTypeError(`json: cannot unmarshal ${what} into ${where} of type ${goTypeName(ft)}`);
  };

  const decode = (n: JNode, ft: FieldType, path: string, ctx: Ctx): unknown => {
    switch (ft.k) {
      case 'raw':
        return nodeToValue(n);
      case 'string':
        if (n.t === 'null') return '';
        if (n.t !== 'string') typeError(n, ft, ctx);
        return (n as { v: string }).v;
      case 'bool':
        if (n.t === 'null') return false;
        if (n.t !== 'bool') typeError(n, ft, ctx);
        return (n as { v: boolean }).v;
      case 'int32':
      case 'int64': {
        if (n.t === 'null') return 0;
        if (n.t !== 'number') typeError(n, ft, ctx);
        const raw = (n as { raw: string }).raw;
        const [lo, hi] = ft.k === 'int32' ? INT32 : INT64;
        if (!/^-?\d+$/.test(raw) || BigInt(raw) < lo || BigInt(raw) > hi) typeError(n, ft, ctx, true);
        return Number(raw);
      }
      case 'duration': {
        // metav1.Duration unmarshals a JSON string (null counts as "") and parses it with time.ParseDuration
        if (n.t !== 'string' && n.t !== 'null') {
          throw new DecodeTypeError(`json: cannot unmarshal ${jsonKindName(n)} into Go value of type string`);
        }
        const s = n.t === 'string' ? n.v : '';
        try {
          return parseDuration(s);
        } catch (e) {
          throw new DecodeTypeError((e as Error).message);
        }
      }
      case 'slice': {
        if (n.t === 'null') return [];
        if (n.t !== 'array') typeError(n, ft, ctx);
        return (n as { items: JNode[] }).items.map((item, i) => decode(item, ft.elem, `${path}[${i}]`, ctx));
      }
      case 'struct': {
        if (n.t === 'null') return zeroValue(ft);
        if (n.t !== 'object') typeError(n, ft, ctx);
        const out: Record<string, unknown> = {};
        const present = new Set<string>();
        for (const [key, child] of (n as { entries: Array<[string, JNode]> }).entries) {
          const childPath = path ? `${path}.${key}` : key;
          const spec = Object.prototype.hasOwnProperty.call(ft.fields, key) ? ft.fields[key] : undefined;
          if (!spec) {
            addStrict(`unknown field ${JSON.stringify(childPath)}`);
            continue;
          }
          if (present.has(key)) addStrict(`duplicate field ${JSON.stringify(childPath)}`);
          present.add(key);
          const childCtx: Ctx = { struct: ft.name, jsonPath: ctx.jsonPath ? `${ctx.jsonPath}.${key}` : key };
          if (child.t === 'null' && spec.pointer) {
            delete out[key];
            continue;
          }
          const v = decode(child, spec.type, childPath, childCtx);
          if (v !== undefined) out[key] = v;
        }
        // Go leaves absent fields at their zero value; pointers stay unset
        for (const [key, spec] of Object.entries(ft.fields)) {
          if (!(key in out) && !spec.pointer && spec.type.k !== 'raw') out[key] = zeroValue(spec.type);
        }
        return out;
      }
    }
  };

  const value = decode(root, schema, '', { struct: '', jsonPath: '' }) as Record<string, unknown>;
  return { value, strictErrors: strict };
}
