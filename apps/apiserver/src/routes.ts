// The handler stage: a table of routes other parts of the server add to (health, /version, /metrics here; the
// API groups in their own modules), then upstream's two kinds of 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo, UserInfo } from '@cl/auth';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  user: UserInfo;
  info: RequestInfo;
  /** Decoded path without the query. */
  path: string;
}

export interface Route {
  /** A bounded name for metrics (`/version`, `/apis/authentication.k8s.io/v1/tokenreviews`). */
  pathClass: string;
  matches(method: string, path: string): boolean;
  handle(ctx: RequestContext): Promise<void> | void;
}

export function exactRoute(path: string, handle: Route['handle'], methods?: string[]): Route {
  return {
    pathClass: path,
    matches: (method, p) => p === path && (!methods || methods.includes(method)),
    handle,
  };
}

/** Reads a request body up to `limit` bytes (kube-apiserver allows 3 MiB of JSON); larger bodies are refused. */
export function readBody(req: IncomingMessage, limit = 3 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(Object.assign(new Error('the request body is too large'), { code: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
