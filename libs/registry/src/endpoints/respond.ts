// Writing responses as kube-apiserver does: compact JSON (pretty for curl, wget, browsers or ?pretty=true),
// nosniff, and Status objects whose HTTP code is their `code`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from '@cl/apimachinery';

export function wantsPretty(req: IncomingMessage): boolean {
  const ua = req.headers['user-agent'] ?? '';
  if (/^(curl|Wget|Mozilla\/5\.0)/.test(ua)) return true;
  const q = (req.url ?? '').split('?')[1] ?? '';
  return q.includes('pretty=') && new URLSearchParams(q).get('pretty') === 'true';
}

/** Sends a body already serialized (lists assemble theirs from cached item JSON). */
export function writeText(res: ServerResponse, code: number, text: string | Buffer, contentType = 'application/json'): void {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.length);
  res.end(text);
}

export function writeJson(req: IncomingMessage, res: ServerResponse, code: number, obj: unknown, contentType = 'application/json'): void {
  writeText(res, code, (wantsPretty(req) ? JSON.stringify(obj, null, 2) : JSON.stringify(obj)) + '\n', contentType);
}

export function writeStatus(req: IncomingMessage, res: ServerResponse, status: Status): void {
  writeJson(req, res, status.code, status);
}
