// One keep-alive connection pool per client over node:https (or node:http for a plain server URL), with the TLS
// material and credentials of the config applied to every request. The pool itself is uncapped (every watch holds
// a socket for its lifetime); KubeClient caps the requests in flight (RequestSlots), which caps the sockets they use.
import * as http from 'node:http';
import * as https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ClientConfig } from './client-config';

export interface SendOptions {
  method: string;
  /** Path and query, without the server's path prefix. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/**
 * Idle sockets are closed after this, before this project's API server closes them (its keep-alive timeout is
 * 65 s, Node's convention), so a request rarely goes out on a socket the server is closing. Go's client keeps
 * idle connections 90 s, against Go servers that keep them longer.
 */
export const DEFAULT_IDLE_CONNECTION_TIMEOUT_MS = 50_000;

/**
 * One TLS context for clients built from the same material back to back (a node agent makes three: its main,
 * heartbeat and event clients): parsing the CA and key pair is ~3-4 ms each on the agent's start path. Only the
 * last one is kept, so a rotated certificate leaves nothing behind.
 */
let lastContext: { ca?: Buffer; cert?: Buffer; key?: Buffer; context: SecureContext } | null = null;
const same = (a?: Buffer, b?: Buffer) => a === b || (a !== undefined && b !== undefined && a.equals(b));

function sharedSecureContext(ca?: Buffer, cert?: Buffer, key?: Buffer): SecureContext {
  if (lastContext && same(lastContext.ca, ca) && same(lastContext.cert, cert) && same(lastContext.key, key)) return lastContext.context;
  const context = createSecureContext({ ca, cert, key });
  lastContext = { ca, cert, key, context };
  return context;
}

export class Transport {
  private agent: http.Agent;
  private readonly unsubscribe: (() => void) | undefined;
  private readonly request: typeof http.request;
  private readonly host: string;
  private readonly port: string;
  private readonly prefix: string;
  private readonly auth: Record<string, string>;

  constructor(cfg: ClientConfig) {
    const url = new URL(cfg.server);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') throw new Error(`unsupported server URL ${JSON.stringify(cfg.server)}: scheme must be https or http`);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = url.port;
    this.prefix = url.pathname.replace(/\/+$/, '');
    // keepAliveMsecs also turns on TCP keep-alive probes, as Go's dialer does (30 s), so a watch on a dead
    // peer is noticed; lifo reuses the warmest idle socket.
    // The agent's `timeout` applies to free sockets (it destroys one idle that long); a socket in use only emits
    // 'timeout', which nothing here listens to.
    const idle = cfg.idleConnectionTimeoutMs ?? DEFAULT_IDLE_CONNECTION_TIMEOUT_MS;
    const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: Infinity, maxFreeSockets: 256, scheduling: 'lifo' as const, ...(idle > 0 ? { timeout: idle } : {}) };
    // One TLS context for every connection: given ca/cert/key instead, tls.connect parses them again for each
    // socket, which was most of the CPU (and much of the memory) of opening a thousand watches.
    const pool = () => {
      if (!secure) return new http.Agent(common);
      const { cert, key } = cfg.rotatingCertificate?.current() ?? cfg;
      return new https.Agent({ ...common, secureContext: sharedSecureContext(cfg.ca, cert, key), rejectUnauthorized: !cfg.insecureSkipTLSVerify });
    };
    this.agent = pool();
    // A new certificate: a new pool (its own TLS context and session cache: a resumed session would present the
    // old certificate again), and the old pool's connections closed so nothing goes on with the old one.
    this.unsubscribe = secure
      ? cfg.rotatingCertificate?.onRotate(() => {
          const old = this.agent;
          this.agent = pool();
          old.destroy();
        })
      : undefined;
    this.request = secure ? https.request : http.request;
    this.auth = cfg.token ? { Authorization: `Bearer ${cfg.token}` } : {};
  }

  /** Sends a request; the callback gets the response (its body unread). Errors before a response go to 'error'. */
  send(opts: SendOptions, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
    const headers: Record<string, string | number> = { ...this.auth, ...opts.headers };
    if (opts.body) headers['Content-Length'] = opts.body.length;
    const req = this.request({ host: this.host, port: this.port, path: this.prefix + opts.path, method: opts.method, headers, agent: this.agent }, onResponse);
    req.end(opts.body);
    return req;
  }

  destroy(): void {
    this.unsubscribe?.();
    this.agent.destroy();
  }
}

/** The whole body of a response. */
export function readBody(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    // A connection lost mid-body ends the message without 'end' (and, on some Node versions, without 'error').
    res.on('close', () => {
      if (!res.complete) reject(Object.assign(new Error('the connection was closed before the response ended'), { code: 'ECONNRESET' }));
    });
  });
}
