// Kubernetes' protobuf encoding of request bodies (`application/vnd.kubernetes.protobuf`), which typed clients
// send: `kubectl create configmap`, client-go clientsets, kubelets. A body is the magic `k8s\0` and a
// runtime.Unknown (typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2); raw is the kind's message, decoded here
// from the kind's own schema (each field's `pb` number), into the JSON object a JSON client would have sent.
// Go's encoder writes every non-pointer field, zero or not; zero scalars are dropped here, as JSON's omitempty
// would have left them out.
import type { TSchema } from '@sinclair/typebox';
import { DecodeError } from './decode';
import { apiVersionOf, type KindDefinition } from './kind';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new DecodeError('protobuf: unexpected end of varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new DecodeError('protobuf: varint overflow');
    }
  }

  bytes(): Buffer {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new DecodeError('protobuf: length beyond the end of the message');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(wireType: number) {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new DecodeError(`protobuf: unsupported wire type ${wireType}`);
  }

  /** Each field of a message: its number, wire type, and (for length-delimited fields) its bytes. */
  *fields(): Generator<{ field: number; wireType: number }> {
    while (!this.done) {
      const tag = Number(this.varint());
      yield { field: tag >>> 3, wireType: tag & 7 };
    }
  }
}

type Json = Record<string, unknown>;

const fieldTables = new WeakMap<TSchema, Map<number, [string, TSchema]>>();

function fieldTable(schema: TSchema): Map<number, [string, TSchema]> {
  let t = fieldTables.get(schema);
  if (!t) {
    t = new Map();
    const inline = new Map<number, Record<string, TSchema>>();
    for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
      if (typeof prop['x-cl-proto'] === 'number') t.set(prop['x-cl-proto'] as number, [name, prop]);
      const embedded = prop['x-cl-proto-embedded'] as [number, number] | undefined;
      if (embedded) {
        // A field of an inline Go struct: field embedded[1] of the message at field embedded[0] of this one.
        const { 'x-cl-proto-embedded': _, ...own } = prop;
        const props = inline.get(embedded[0]) ?? {};
        props[name] = { ...own, 'x-cl-proto': embedded[1] } as TSchema;
        inline.set(embedded[0], props);
      }
    }
    for (const [outer, properties] of inline) t.set(outer, ['', { type: 'object', properties, 'x-cl-proto-inline': true } as unknown as TSchema]);
    fieldTables.set(schema, t);
  }
  return t;
}

/** metav1.Time / MicroTime {seconds = 1, nanos = 2} as RFC 3339; null for the zero time. */
function decodeTime(buf: Buffer, micro: boolean): string | null {
  const r = new Reader(buf);
  let seconds = 0n;
  let nanos = 0;
  for (const { field, wireType } of r.fields()) {
    if (field === 1 && wireType === 0) seconds = BigInt.asIntN(64, r.varint());
    else if (field === 2 && wireType === 0) nanos = Number(BigInt.asIntN(32, r.varint()));
    else r.skip(wireType);
  }
  if (seconds === 0n && nanos === 0) return null;
  const iso = new Date(Number(seconds) * 1000 + Math.floor(nanos / 1e6)).toISOString();
  return micro ? iso.replace(/\.\d+Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`) : iso.replace(/\.\d+Z$/, 'Z');
}

/** resource.Quantity {string = 1}, intstr.IntOrString {type = 1, intVal = 2, strVal = 3}, runtime.RawExtension {raw = 1}. */
function decodeSpecial(kind: string, buf: Buffer): unknown {
  const r = new Reader(buf);
  if (kind === 'time' || kind === 'microtime') return decodeTime(buf, kind === 'microtime');
  let type = 0;
  let intVal = 0;
  let str = '';
  let raw: Buffer | null = null;
  for (const { field, wireType } of r.fields()) {
    if (kind === 'quantity' && field === 1 && wireType === 2) str = r.bytes().toString('utf8');
    else if (kind === 'intorstring' && field === 1 && wireType === 0) type = Number(r.varint());
    else if (kind === 'intorstring' && field === 2 && wireType === 0) intVal = Number(BigInt.asIntN(32, r.varint()));
    else if (kind === 'intorstring' && field === 3 && wireType === 2) str = r.bytes().toString('utf8');
    else if (kind === 'raw' && field === 1 && wireType === 2) raw = r.bytes();
    else r.skip(wireType);
  }
  if (kind === 'quantity') return str;
  if (kind === 'intorstring') return type === 1 ? str : intVal;
  if (!raw || raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new DecodeError('protobuf: a RawExtension that is not JSON');
  }
}

function scalar(schema: TSchema, r: Reader, wireType: number): unknown {
  if (schema.type === 'string' && wireType === 2) {
    const b = r.bytes();
    return schema.format === 'byte' ? b.toString('base64') : b.toString('utf8');
  }
  if (schema.type === 'integer' && wireType === 0) return Number(schema.format === 'int32' ? BigInt.asIntN(32, r.varint()) : BigInt.asIntN(64, r.varint()));
  if (schema.type === 'boolean' && wireType === 0) return r.varint() !== 0n;
  if (schema.type === 'number' && wireType === 1) {
    const v = r.buf.readDoubleLE(r.pos);
    r.pos += 8;
    return v;
  }
  r.skip(wireType);
  return undefined;
}

/** A value of `schema` from one occurrence of its field. */
function value(schema: TSchema, r: Reader, wireType: number): unknown {
  const special = schema['x-cl-proto-type'] as string | undefined;
  if (special) return wireType === 2 ? decodeSpecial(special, r.bytes()) : (r.skip(wireType), undefined);
  if (schema.type === 'object' && wireType === 2) return message(schema, r.bytes());
  return scalar(schema, r, wireType);
}

const isZero = (v: unknown) => v === undefined || v === null || v === '' || v === 0 || v === false;

function message(schema: TSchema, buf: Buffer): Json {
  const out: Json = {};
  const r = new Reader(buf);
  if (schema.patternProperties) throw new DecodeError('protobuf: a map outside a message field');
  const table = fieldTable(schema);
  for (const { field, wireType } of r.fields()) {
    const entry = table.get(field);
    if (!entry) {
      r.skip(wireType);
      continue;
    }
    const [name, prop] = entry;
    if (prop['x-cl-proto-inline']) {
      // The message of an inline struct: its fields are this object's own in JSON.
      if (wireType === 2) Object.assign(out, message(prop, r.bytes()));
      else r.skip(wireType);
      continue;
    }
    if (prop.type === 'array') {
      const item = prop.items as TSchema;
      const list = (out[name] ??= []) as unknown[];
      if (wireType === 2 && (item.type === 'integer' || item.type === 'boolean')) {
        // Packed scalars.
        const inner = new Reader(r.bytes());
        while (!inner.done) list.push(scalar(item, inner, 0));
      } else {
        list.push(value(item, r, wireType));
      }
    } else if (prop.type === 'object' && prop.patternProperties && wireType === 2) {
      // A map entry {key = 1, value = 2}.
      const valueSchema = Object.values(prop.patternProperties as Record<string, TSchema>)[0];
      const entryReader = new Reader(r.bytes());
      let key = '';
      let v: unknown = valueSchema.type === 'string' ? '' : undefined;
      for (const f of entryReader.fields()) {
        if (f.field === 1 && f.wireType === 2) key = entryReader.bytes().toString('utf8');
        else if (f.field === 2) v = value(valueSchema, entryReader, f.wireType);
        else entryReader.skip(f.wireType);
      }
      ((out[name] ??= {}) as Json)[key] = v;
    } else {
      const v = value(prop, r, wireType);
      if (isZero(v)) delete out[name];
      else out[name] = v;
    }
  }
  return out;
}

/** The JSON object a protobuf request body of `def` stands for; DecodeError for a body that is not one. */
export function decodeProtobuf(def: KindDefinition, body: Buffer): Json {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw new DecodeError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  const r = new Reader(body.subarray(4));
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | null = null;
  for (const { field, wireType } of r.fields()) {
    if (field === 1 && wireType === 2) {
      const tm = new Reader(r.bytes());
      for (const f of tm.fields()) {
        if (f.field === 1 && f.wireType === 2) apiVersion = tm.bytes().toString('utf8');
        else if (f.field === 2 && f.wireType === 2) kind = tm.bytes().toString('utf8');
        else tm.skip(f.wireType);
      }
    } else if (field === 2 && wireType === 2) raw = r.bytes();
    else r.skip(wireType);
  }
  if (kind && kind !== def.kind) throw new DecodeError(`the kind in the data (${kind}) does not match the expected kind (${def.kind})`);
  const object = message(def.schema, raw ?? Buffer.alloc(0));
  return { apiVersion: apiVersion || apiVersionOf(def), kind: kind || def.kind, ...object };
}
