// kubectl and client-go send TokenRequest as `application/vnd.kubernetes.protobuf`: the envelope (../authn/protobuf)
// around authentication.k8s.io/v1 TokenRequest{spec=2}, TokenRequestSpec{audiences=1, boundObjectRef=3,
// expirationSeconds=4}, BoundObjectReference{kind=1, apiVersion=2, name=3, uid=4}. Only those fields are read.

interface Field {
  no: number;
  value: Buffer | number;
}

function varint(b: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = at, shift = 0; i < b.length && i < at + 10; i++, shift += 7) {
    v += (b[i] & 0x7f) * 2 ** shift;
    if ((b[i] & 0x80) === 0) return [v, i + 1];
  }
  throw new Error('truncated varint');
}

function fields(b: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < b.length) {
    const [tag, next] = varint(b, at);
    at = next;
    const wire = tag & 7;
    if (wire === 0) {
      const [v, n] = varint(b, at);
      out.push({ no: Math.floor(tag / 8), value: v });
      at = n;
    } else if (wire === 2) {
      const [len, n] = varint(b, at);
      if (n + len > b.length) throw new Error('truncated field');
      out.push({ no: Math.floor(tag / 8), value: b.subarray(n, n + len) });
      at = n + len;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

const bytes = (fs: Field[], no: number) => fs.filter((f) => f.no === no && Buffer.isBuffer(f.value)).map((f) => f.value as Buffer);
const text = (fs: Field[], no: number) => bytes(fs, no)[0]?.toString('utf8');

/** The JSON shape of the spec in a TokenRequest's protobuf bytes (the envelope's raw). */
export function tokenRequestSpecFromProtobuf(raw: Buffer): Record<string, unknown> {
  const spec = fields(bytes(fields(raw), 2)[0] ?? Buffer.alloc(0));
  const out: Record<string, unknown> = {};
  const audiences = bytes(spec, 1).map((b) => b.toString('utf8'));
  if (audiences.length) out.audiences = audiences;
  const exp = spec.find((f) => f.no === 4 && typeof f.value === 'number');
  if (exp) out.expirationSeconds = exp.value;
  const ref = bytes(spec, 3)[0];
  if (ref) {
    const r = fields(ref);
    out.boundObjectRef = { kind: text(r, 1), apiVersion: text(r, 2), name: text(r, 3), uid: text(r, 4) };
  }
  return out;
}
