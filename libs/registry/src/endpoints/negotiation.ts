// Content negotiation for resource responses: plain JSON, or a meta.k8s.io Table when kubectl asks for one
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io, ...); protobuf-only clients get 406.
import type { IncomingMessage } from 'node:http';
import { apiErrors } from '@cl/apimachinery';

export type ResponseForm = 'json' | 'table';

export const TABLE_CONTENT_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type, ...rest] = part.split(';').map((p) => p.trim());
      const params = new Map<string, string>();
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((m) => m.type !== '');
}

/** The first acceptable form in the client's order of preference. */
export function responseForm(req: IncomingMessage): ResponseForm {
  const header = String(req.headers.accept ?? '');
  if (!header) return 'json';
  for (const m of parseAccept(header)) {
    const json = m.type === 'application/json' || m.type === 'application/*' || m.type === '*/*';
    if (!json) continue;
    const as = m.params.get('as');
    if (!as) return 'json';
    if (as === 'Table' && m.params.get('g') === 'meta.k8s.io' && (m.params.get('v') === 'v1' || m.params.get('v') === 'v1beta1')) return 'table';
    // Other `as=` forms (PartialObjectMetadata) are not served; the client's next choice is tried.
  }
  throw apiErrors.notAcceptable('application/json, application/json;as=Table;v=v1;g=meta.k8s.io');
}

/** A body's media type without parameters (`application/json`). */
export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}
