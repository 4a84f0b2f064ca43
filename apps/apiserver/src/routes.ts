// The handler stage: a table of routes other parts of the server add to (health, /version, /metrics here; the
// API groups in their own modules), then upstream's two kinds of 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { apiErrors } from '@cl/apimachinery';
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

/** kube-apiserver's limit on a request body (MaxRequestBodyBytes, 3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;
// What is still read and dropped after a refused body before the connection is closed (Go's server reads 256 KiB
// so that a client that stops sending can keep its connection), and how long the closed-for-writing connection
// still drains what the client sends: closing a socket with unread input resets it, and a reset can destroy the
// 413 before the client read it (kubectl then prints "connection reset by peer").
const DRAIN_AFTER_LIMIT_BYTES = 256 * 1024;
const LINGER_MS = 500;

/**
 * Reads a request body up to `limit` bytes. A larger one (by its Content-Length, or once that many bytes came) is
 * refused with upstream's 413 Status at once, and nothing more of it is kept: the rest is dropped as it arrives,
 * and past a little more the connection is closed for writing, drained briefly, then destroyed.
 */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(apiErrors.tooLarge(`limit is ${limit}`));
    };
    const declared = Number(req.headers['content-length']);
    if (declared > limit) refuse();
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (refused) {
        if (size > limit + DRAIN_AFTER_LIMIT_BYTES) closeAfterAnswer(req);
        return;
      }
      if (size > limit) return refuse();
      chunks.push(c);
    });
    req.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!refused) reject(e);
    });
  });
}

const lingering = new WeakSet<object>();

/** Ends the connection after the answer already written to it, without resetting it while the client still sends. */
function closeAfterAnswer(req: IncomingMessage) {
  const socket = req.socket;
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
