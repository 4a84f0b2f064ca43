// kubectl and client-go send built-in objects as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`):
// the `k8s\0` magic, a runtime.Unknown envelope, and the object's generated.proto message. This decodes the
// two review kinds into the same plain shape the JSON path produces (authorization/v1 generated.proto), with the
// field walker the authentication reviews and TokenRequest use (../authn/protobuf).

import { bytesOf, fields, type Field } from '../authn/protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Fields = Field[];

// A field that is not repeated may still appear more than once on the wire: the last one wins (protobuf's rule).
const last = (f: Fields, n: number): Buffer | undefined => bytesOf(f, n).at(-1);
const str = (f: Fields, n: number): string | undefined => last(f, n)?.toString('utf8');
const strs = (f: Fields, n: number): string[] => bytesOf(f, n).map((b) => b.toString('utf8'));
const msg = (f: Fields, n: number): Fields | undefined => {
  const b = last(f, n);
  return b ? fields(b) : undefined;
};

function setIf(o: Record<string, unknown>, k: string, v: string | undefined): void {
  if (v !== undefined && v !== '') o[k] = v;
}

function selector(f: Fields | undefined): Record<string, unknown> | undefined {
  if (!f) return undefined;
  const out: Record<string, unknown> = {};
  setIf(out, 'rawSelector', str(f, 1));
  const reqs = bytesOf(f, 2).map((b) => {
    const r = fields(b);
    return { key: str(r, 1) ?? '', operator: str(r, 2) ?? '', values: strs(r, 3) };
  });
  if (reqs.length) out.requirements = reqs;
  return out;
}

function spec(f: Fields | undefined, self: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!f) return out;
  const ra = msg(f, 1);
  if (ra) {
    const r: Record<string, unknown> = {};
    ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'].forEach((k, i) => setIf(r, k, str(ra, i + 1)));
    const fs = selector(msg(ra, 8));
    const ls = selector(msg(ra, 9));
    if (fs) r.fieldSelector = fs;
    if (ls) r.labelSelector = ls;
    out.resourceAttributes = r;
  }
  const nra = msg(f, 2);
  if (nra) {
    const n: Record<string, unknown> = {};
    setIf(n, 'path', str(nra, 1));
    setIf(n, 'verb', str(nra, 2));
    out.nonResourceAttributes = n;
  }
  if (self) return out;
  setIf(out, 'user', str(f, 3));
  const groups = strs(f, 4);
  if (groups.length) out.groups = groups;
  const extra: Record<string, string[]> = {};
  for (const entry of bytesOf(f, 5)) {
    const e = fields(entry);
    const value = msg(e, 2);
    extra[str(e, 1) ?? ''] = value ? strs(value, 1) : [];
  }
  if (Object.keys(extra).length) out.extra = extra;
  setIf(out, 'uid', str(f, 6));
  return out;
}

/** Decodes a protobuf-encoded (Self)SubjectAccessReview; throws on anything that is not one. */
export function decodeReviewProtobuf(body: Buffer, self: boolean): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new Error('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const unknown = fields(body.subarray(MAGIC.length));
  const typeMeta = msg(unknown, 1);
  const raw = last(unknown, 2) ?? Buffer.alloc(0);
  const obj = fields(raw);
  const metadata = msg(obj, 1);
  const out: Record<string, unknown> = { spec: spec(msg(obj, 2), self) };
  if (typeMeta) {
    setIf(out, 'apiVersion', str(typeMeta, 1));
    setIf(out, 'kind', str(typeMeta, 2));
  }
  // Only the name matters for "metadata must be empty"; other metadata fields are not decoded.
  if (metadata) out.metadata = { name: str(metadata, 1) ?? '' };
  return out;
}

/** Decodes a protobuf-encoded SelfSubjectRulesReview: its spec's namespace (SelfSubjectRulesReviewSpec field 1). */
export function decodeRulesReviewProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new Error('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const unknown = fields(body.subarray(MAGIC.length));
  const obj = fields(last(unknown, 2) ?? Buffer.alloc(0));
  const s = msg(obj, 2);
  return { spec: s ? { namespace: str(s, 1) ?? '' } : {} };
}
