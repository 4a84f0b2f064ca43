// Content negotiation for resource responses: plain JSON, a meta.k8s.io Table when kubectl asks for one
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io, ...), or metadata only (as=PartialObjectMetadata and
// as=PartialObjectMetadataList, which client-go's metadata client and the garbage collector ask for); protobuf-only
// clients get 406.
import type { IncomingMessage } from 'node:http';
import { apiErrors } from '@cl/apimachinery';

/** `partial` and `partial-list` are upstream's PartialObjectMetadata and PartialObjectMetadataList targets. */
export type ResponseForm = 'json' | 'table' | 'partial' | 'partial-list';

/** The form chosen, and for the meta.k8s.io forms the version asked for (v1 or v1beta1). */
export interface Negotiated {
  form: ResponseForm;
  metaVersion: 'v1' | 'v1beta1';
}

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

const META_FORMS: Record<string, ResponseForm> = { Table: 'table', PartialObjectMetadata: 'partial', PartialObjectMetadataList: 'partial-list' };

/**
 * The first acceptable form in the client's order of preference. As upstream's negotiation, a metadata form is
 * acceptable on every endpoint; whether it fits the answer (an object, a list) is decided when the answer is shaped.
 */
export function negotiate(req: IncomingMessage): Negotiated {
  const header = String(req.headers.accept ?? '');
  if (!header) return { form: 'json', metaVersion: 'v1' };
  for (const m of parseAccept(header)) {
    const json = m.type === 'application/json' || m.type === 'application/*' || m.type === '*/*';
    if (!json) continue;
    const as = m.params.get('as');
    if (!as) return { form: 'json', metaVersion: 'v1' };
    const form = META_FORMS[as];
    const version = m.params.get('v');
    if (form && m.params.get('g') === 'meta.k8s.io' && (version === 'v1' || version === 'v1beta1')) return { form, metaVersion: version };
    // Other `as=` forms are not served; the client's next choice is tried.
  }
  throw apiErrors.notAcceptable('application/json, application/json;as=Table;v=v1;g=meta.k8s.io');
}

export function responseForm(req: IncomingMessage): ResponseForm {
  return negotiate(req).form;
}

/** A body's media type without parameters (`application/json`). */
export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}
