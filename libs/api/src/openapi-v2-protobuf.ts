// The Swagger 2.0 document as kube-apiserver serves it to `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
// (client-go's OpenAPISchema(), which kubectl uses for `explain --output=plaintext-openapiv2` and for kinds missing
// from /openapi/v3): the gnostic openapi_v2 messages (github.com/google/gnostic openapiv2/OpenAPIv2.proto),
// written here for the parts of a document that openApiV2 generates. Vendor extensions, defaults and enums are
// `Any` messages holding their value as YAML text, as gnostic writes them; JSON is YAML, so the value's JSON is
// written. Keys Swagger 2.0 has no field for (anyOf) have no place in the messages and are left out, as gnostic's
// parser leaves them.

type Json = Record<string, unknown>;

/** A protobuf message under construction: fields appended in the order written. */
class Message {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wireType: number) {
    this.parts.push(varint((field << 3) | wireType));
  }

  string(field: number, v: unknown): this {
    if (typeof v !== 'string' || v === '') return this;
    const b = Buffer.from(v, 'utf8');
    this.tag(field, 2);
    this.parts.push(varint(b.length), b);
    return this;
  }

  strings(field: number, v: unknown): this {
    if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') this.bytesOf(field, Buffer.from(s, 'utf8'));
    return this;
  }

  /** A bool; false is written only when `always` (a oneof member, whose presence is its meaning). */
  bool(field: number, v: unknown, always = false): this {
    if (typeof v !== 'boolean' || (!v && !always)) return this;
    this.tag(field, 0);
    this.parts.push(varint(v ? 1 : 0));
    return this;
  }

  int64(field: number, v: unknown): this {
    if (typeof v !== 'number' || !Number.isInteger(v) || v === 0) return this;
    this.tag(field, 0);
    this.parts.push(varint(v));
    return this;
  }

  double(field: number, v: unknown): this {
    if (typeof v !== 'number' || v === 0) return this;
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.tag(field, 1);
    this.parts.push(b);
    return this;
  }

  message(field: number, m: Message | null): this {
    if (m) this.bytesOf(field, m.bytes());
    return this;
  }

  private bytesOf(field: number, b: Buffer) {
    this.tag(field, 2);
    this.parts.push(varint(b.length), b);
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function varint(n: number): Buffer {
  // Non-negative values only (tags, lengths, sizes): 7 bits at a time, the high bit set on all but the last byte.
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** openapi_v2.Any: the value as YAML text (field 2). */
const any = (v: unknown) => new Message().string(2, JSON.stringify(v));

/** NamedAny entries of every `x-` key, in the field `field` of `m`. */
function vendorExtensions(m: Message, field: number, o: Json): Message {
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-') && v !== undefined) m.message(field, new Message().string(1, k).message(2, any(v)));
  return m;
}

function schema(s: Json): Message {
  const m = new Message()
    .string(1, s.$ref)
    .string(2, s.format)
    .string(3, s.title)
    .string(4, s.description);
  if (s.default !== undefined) m.message(5, any(s.default));
  m.double(6, s.multipleOf).double(7, s.maximum).bool(8, s.exclusiveMaximum).double(9, s.minimum).bool(10, s.exclusiveMinimum);
  m.int64(11, s.maxLength).int64(12, s.minLength).string(13, s.pattern).int64(14, s.maxItems).int64(15, s.minItems).bool(16, s.uniqueItems);
  m.int64(17, s.maxProperties).int64(18, s.minProperties).strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) m.message(20, any(e));
  if (isObject(s.additionalProperties)) m.message(21, new Message().message(1, schema(s.additionalProperties)));
  else if (typeof s.additionalProperties === 'boolean') m.message(21, new Message().bool(2, s.additionalProperties, true));
  if (s.type !== undefined) m.message(22, new Message().strings(1, Array.isArray(s.type) ? s.type : [s.type]));
  if (isObject(s.items)) m.message(23, new Message().message(1, schema(s.items)));
  else if (Array.isArray(s.items)) m.message(23, s.items.reduce((items: Message, i) => items.message(1, schema(i as Json)), new Message()));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) m.message(24, schema(a as Json));
  if (isObject(s.properties)) m.message(25, named(s.properties, schema));
  m.string(26, s.discriminator).bool(27, s.readOnly);
  if (s.example !== undefined) m.message(30, any(s.example));
  return vendorExtensions(m, 31, s);
}

/** A map as repeated Named* entries (field 1: name, 2: value) in field 1 of a new message. */
function named(o: Json, value: (v: Json) => Message): Message {
  const m = new Message();
  for (const [k, v] of Object.entries(o)) if (isObject(v)) m.message(1, new Message().string(1, k).message(2, value(v)));
  return m;
}

/** A non-body parameter's sub-schema: query and formData number their fields one way, path and header another. */
function nonBodyParameter(p: Json): Message {
  const queryLike = p.in === 'query' || p.in === 'formData';
  const m = new Message().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
  const o = queryLike ? 1 : 0; // query and formData have allow_empty_value at 5, shifting the rest by one
  if (queryLike) m.bool(5, p.allowEmptyValue);
  m.string(5 + o, p.type).string(6 + o, p.format);
  if (p.default !== undefined) m.message(9 + o, any(p.default));
  m.bool(19 + o, p.uniqueItems);
  if (Array.isArray(p.enum)) for (const e of p.enum) m.message(20 + o, any(e));
  vendorExtensions(m, 22 + o, p);
  const member = { header: 1, formData: 2, query: 3, path: 4 }[String(p.in)] ?? 3;
  return new Message().message(member, m);
}

function parametersItem(p: Json): Message {
  if (typeof p.$ref === 'string') return new Message().message(2, new Message().string(1, p.$ref).string(2, p.description));
  const parameter =
    p.in === 'body'
      ? new Message().message(1, vendorExtensions(new Message().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required).message(5, isObject(p.schema) ? schema(p.schema) : null), 6, p))
      : new Message().message(2, nonBodyParameter(p));
  return new Message().message(1, parameter);
}

function responses(r: Json): Message {
  const m = new Message();
  for (const [code, v] of Object.entries(r)) {
    if (!isObject(v)) continue;
    const value =
      typeof v.$ref === 'string'
        ? new Message().message(2, new Message().string(1, v.$ref).string(2, v.description))
        : new Message().message(1, vendorExtensions(new Message().string(1, v.description).message(2, isObject(v.schema) ? new Message().message(1, schema(v.schema)) : null), 5, v));
    m.message(1, new Message().string(1, code).message(2, value));
  }
  return vendorExtensions(m, 2, r);
}

function operation(op: Json): Message {
  const m = new Message().strings(1, op.tags).string(2, op.summary).string(3, op.description).string(5, op.operationId).strings(6, op.produces).strings(7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) if (isObject(p)) m.message(8, parametersItem(p));
  if (isObject(op.responses)) m.message(9, responses(op.responses));
  m.strings(10, op.schemes).bool(11, op.deprecated);
  return vendorExtensions(m, 13, op);
}

const OPERATIONS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(item: Json): Message {
  const m = new Message().string(1, item.$ref);
  for (const [verb, field] of Object.entries(OPERATIONS)) if (isObject(item[verb])) m.message(field, operation(item[verb] as Json));
  if (Array.isArray(item.parameters)) for (const p of item.parameters) if (isObject(p)) m.message(9, parametersItem(p));
  return vendorExtensions(m, 10, item);
}

/** A Swagger 2.0 document (openApiV2's) as an openapi.v2.Document message. */
export function openApiV2Protobuf(doc: Json): Buffer {
  const m = new Message().string(1, doc.swagger);
  if (isObject(doc.info)) m.message(2, vendorExtensions(new Message().string(1, doc.info.title).string(2, doc.info.version).string(3, doc.info.description), 7, doc.info));
  m.string(3, doc.host).string(4, doc.basePath).strings(5, doc.schemes).strings(6, doc.consumes).strings(7, doc.produces);
  if (isObject(doc.paths)) {
    const paths = vendorExtensions(new Message(), 1, doc.paths);
    for (const [path, item] of Object.entries(doc.paths)) if (!path.startsWith('x-') && isObject(item)) paths.message(2, new Message().string(1, path).message(2, pathItem(item)));
    m.message(8, paths);
  }
  if (isObject(doc.definitions)) m.message(9, named(doc.definitions, schema));
  return vendorExtensions(m, 16, doc).bytes();
}

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
