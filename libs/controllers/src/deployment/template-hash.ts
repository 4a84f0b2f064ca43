// The pod-template-hash that names a Deployment's ReplicaSets (`<deployment>-<hash>`) and tells their pods apart,
// and the template equality that finds a Deployment's ReplicaSet for its current template.
//
// Upstream (controller.ComputeHash) feeds fnv32a with the template printed by go-spew (DeepHashObject) and then
// the collisionCount's four bytes, and renders the 32-bit sum's decimal digits with rand.SafeEncodeString. Go's
// spew output of a Go struct cannot be reproduced from JSON, so the names differ from upstream's for the same
// template; what matters is kept: the same template always gives the same name, a different one (almost always)
// another, collisionCount moves a colliding name, and the names look alike (digits mapped onto the same
// vowel-free alphabet, 6 to 10 characters). Our input is the template as canonical JSON: object keys sorted, and
// null, empty arrays and empty objects left out (Go's semantic equality treats nil and empty alike, so templates
// that compare equal below also hash alike).
import { jsonEqual, NAME_SUFFIX_ALPHABET } from '@cl/apimachinery';
import type { PodTemplate } from '../workloads/types';

/** The label (and selector key) that carries the hash: apps/v1 DefaultDeploymentUniqueLabelKey. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits, continuing from `hash`. */
export function fnv32a(bytes: Uint8Array, hash: number = FNV32_OFFSET): number {
  let h = hash >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h;
}

/** rand.SafeEncodeString: each character mapped onto the vowel-free alphabet, so no word can be spelled. */
export function safeEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += NAME_SUFFIX_ALPHABET[s.charCodeAt(i) % NAME_SUFFIX_ALPHABET.length];
  return out;
}

/** A JSON value with null, empty arrays and empty objects removed from objects (array positions are kept). */
function withoutEmpties(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpties);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = withoutEmpties((v as Record<string, unknown>)[k]);
    if (x === undefined || x === null) continue;
    if (Array.isArray(x) && x.length === 0) continue;
    if (typeof x === 'object' && !Array.isArray(x) && Object.keys(x as object).length === 0) continue;
    out[k] = x;
  }
  return out;
}

/** The template as canonical JSON text (sorted keys, no empties). */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(withoutEmpties(v)) ?? 'null';
}

/** The hash of a pod template, moved by `collisionCount` when the Deployment has seen name collisions. */
export function podTemplateHash(template: PodTemplate | undefined, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(canonicalJson(template ?? {}), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const count = Buffer.alloc(4);
    count.writeUInt32LE(collisionCount >>> 0);
    h = fnv32a(count, h);
  }
  return safeEncode(String(h));
}

function withoutHashLabel(t: PodTemplate | undefined): unknown {
  const copy = structuredClone(t ?? {});
  if (copy.metadata?.labels) delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  return withoutEmpties(copy);
}

/**
 * EqualIgnoreHash: two templates are the same once the pod-template-hash label is left out of both (a
 * ReplicaSet's template carries it, the Deployment's does not), with nil and empty treated alike.
 */
export function templatesEqualIgnoringHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return jsonEqual(withoutHashLabel(a), withoutHashLabel(b));
}
