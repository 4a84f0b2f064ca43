// Just enough of Kubernetes' protobuf envelope to read the two review kinds kubectl and the kubelet send as
// `application/vnd.kubernetes.protobuf`: the "k8s\0" magic, runtime.Unknown{typeMeta, raw}, and in raw the
// TokenReview spec (token, audiences). Answers are always JSON, which client-go accepts.

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** One field of a protobuf message: its number, wire type and value (varints as numbers, length-delimited as bytes). */
export interface Field {
  no: number;
  wire: number;
  value: Buffer | number;
}

function readVarint(b: Buffer, at: number): [number, number] {
  let v = 0;
  let shift = 0;
  for (let i = at; i < b.length && i < at + 10; i++) {
    v += (b[i] & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b[i] & 0x80) === 0) return [v, i + 1];
  }
  throw new Error('truncated varint');
}

/** The fields of a protobuf message in order (fixed-width ones skipped: nothing read here uses them). */
export function fields(b: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < b.length) {
    const [tag, next] = readVarint(b, at);
    at = next;
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) {
      const [v, n] = readVarint(b, at);
      out.push({ no, wire, value: v });
      at = n;
    } else if (wire === 2) {
      const [len, n] = readVarint(b, at);
      if (n + len > b.length) throw new Error('truncated field');
      out.push({ no, wire, value: b.subarray(n, n + len) });
      at = n + len;
    } else if (wire === 1) {
      at += 8;
    } else if (wire === 5) {
      at += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

/** The length-delimited values of field `no`, in order. */
export const bytesOf = (fs: Field[], no: number) => fs.filter((f) => f.no === no && Buffer.isBuffer(f.value)).map((f) => f.value as Buffer);

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  raw: Buffer;
}

/** Unwraps the envelope; throws with a short reason when the bytes are not one. */
export function decodeEnvelope(body: Buffer): DecodedObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw new Error('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  const unknown = fields(body.subarray(4));
  const typeMeta = fields(bytesOf(unknown, 1)[0] ?? Buffer.alloc(0));
  return {
    apiVersion: (bytesOf(typeMeta, 1)[0] ?? Buffer.alloc(0)).toString('utf8'),
    kind: (bytesOf(typeMeta, 2)[0] ?? Buffer.alloc(0)).toString('utf8'),
    raw: bytesOf(unknown, 2)[0] ?? Buffer.alloc(0),
  };
}

/** The JSON shape of a TokenReview's spec from its protobuf bytes (field 2 of the object). */
export function tokenReviewSpec(raw: Buffer): { token: string; audiences: string[] } {
  const spec = fields(bytesOf(fields(raw), 2)[0] ?? Buffer.alloc(0));
  return {
    token: (bytesOf(spec, 1)[0] ?? Buffer.alloc(0)).toString('utf8'),
    audiences: bytesOf(spec, 2).map((b) => b.toString('utf8')),
  };
}
