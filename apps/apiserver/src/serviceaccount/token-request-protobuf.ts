// kubectl and client-go send TokenRequest as `application/vnd.kubernetes.protobuf`: the envelope (../authn/protobuf)
// around authentication.k8s.io/v1 TokenRequest{spec=2}, TokenRequestSpec{audiences=1, boundObjectRef=3,
// expirationSeconds=4}, BoundObjectReference{kind=1, apiVersion=2, name=3, uid=4}. Only those fields are read.

import { bytesOf, fields, type Field } from '../authn/protobuf';

const text = (fs: Field[], no: number) => bytesOf(fs, no)[0]?.toString('utf8');

/** The JSON shape of the spec in a TokenRequest's protobuf bytes (the envelope's raw). */
export function tokenRequestSpecFromProtobuf(raw: Buffer): Record<string, unknown> {
  const spec = fields(bytesOf(fields(raw), 2)[0] ?? Buffer.alloc(0));
  const out: Record<string, unknown> = {};
  const audiences = bytesOf(spec, 1).map((b) => b.toString('utf8'));
  if (audiences.length) out.audiences = audiences;
  const exp = spec.find((f) => f.no === 4 && typeof f.value === 'number');
  if (exp) out.expirationSeconds = exp.value;
  const ref = bytesOf(spec, 3)[0];
  if (ref) {
    const r = fields(ref);
    out.boundObjectRef = { kind: text(r, 1), apiVersion: text(r, 2), name: text(r, 3), uid: text(r, 4) };
  }
  return out;
}
