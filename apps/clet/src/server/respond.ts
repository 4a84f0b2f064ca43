// Small response writers shared by the handlers (Go's http.Error / restful WriteError shapes).
import type { ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

export const sendText = (res: ServerResponse, status: number, body: string) => send(res, status, body);

export const sendJson = (res: ServerResponse, body: unknown) => send(res, 200, JSON.stringify(body), 'application/json');

export const notFound = (res: ServerResponse) => send(res, 404, '404 page not found\n');
