// meta.k8s.io Status responses as kube-apiserver writes them (compact JSON, pretty for curl/wget/browsers
// or ?pretty=true), so kubectl prints its usual `Error from server (...)` messages.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) {
    // Keep upstream's field order: details before code.
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
  }
  return body;
}

function wantsPretty(req: IncomingMessage): boolean {
  const ua = req.headers['user-agent'] ?? '';
  if (/^(curl|Wget|Mozilla\/5\.0)/.test(ua)) return true;
  const q = (req.url ?? '').split('?')[1] ?? '';
  return new URLSearchParams(q).get('pretty') === 'true';
}

export function writeJson(req: IncomingMessage, res: ServerResponse, code: number, obj: unknown): void {
  const text = (wantsPretty(req) ? JSON.stringify(obj, null, 2) : JSON.stringify(obj)) + '\n';
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function writeStatus(req: IncomingMessage, res: ServerResponse, status: StatusBody): void {
  writeJson(req, res, status.code, status);
}

export const statuses = {
  unauthorized: () => statusBody(401, 'Unauthorized', 'Unauthorized'),
  internal: (message: string) => statusBody(500, 'InternalError', `Internal error occurred: ${message}`, {}),
  notFound: () => statusBody(404, 'NotFound', 'the server could not find the requested resource', {}),
  badRequest: (message: string) => statusBody(400, 'BadRequest', message, {}),
};
