// The opaque `continue` token of a paged list, in upstream's form (base64 of {"v":"meta.k8s.io/v1","rv":N,
// "start":"<key after the last one>"}), so a token from this server looks and ages like kube-apiserver's: it
// pins the snapshot revision, and once that revision is compacted the next page is 410 Expired.
import { apiErrors } from './status';

export interface ContinueToken {
  /** The revision the first page was read at; every page reads the same snapshot. */
  revision: number;
  /** Where the next page starts, relative to the listed prefix. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: token.start })).toString('base64url');
}

export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw apiErrors.badRequest(`continue key is not valid: illegal base64 data or JSON`);
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown } | null;
  if (!p || p.v !== 'meta.k8s.io/v1') throw apiErrors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof p.rv !== 'number' || !Number.isInteger(p.rv) || p.rv <= 0) throw apiErrors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof p.start !== 'string' || p.start.length === 0) throw apiErrors.badRequest('continue key is not valid: encoded start key empty');
  // A start key may not climb out of the listed prefix.
  if (p.start.startsWith('/') || p.start.split('/').includes('..')) throw apiErrors.badRequest('continue key is not valid: illegal start key');
  return { revision: p.rv, start: p.start };
}
