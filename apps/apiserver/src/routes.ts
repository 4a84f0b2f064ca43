// The handler stage: a table of routes other parts of the server add to (health, /version, /metrics here; the
// API groups in their own modules), then upstream's two kinds of 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestInfo, UserInfo } from '@cl/auth';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  user: UserInfo;
  info: RequestInfo;
  /** Decoded path without the query. */
  path: string;
  /**
   * Set for a request that asked to upgrade its connection (exec, attach, port-forward): the raw client socket
   * and the bytes read past the headers. `res` writes on that socket until a route takes it over.
   */
  upgrade?: { socket: Duplex; head: Buffer };
}

export interface Route {
  /** A bounded name for metrics (`/version`, `/apis/authentication.k8s.io/v1/tokenreviews`). */
  pathClass: string;
  matches(method: string, path: string): boolean;
  /**
   * Streams (logs, exec, port-forward, node proxy) last as long as their callers want: they are not requests the
   * graceful shutdown waits to drain, and it closes them once the listener stops taking requests.
   */
  longRunning?: boolean;
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
