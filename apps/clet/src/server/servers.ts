// The three listeners: the plain-HTTP health server, the plain-HTTP read-only server and the HTTPS main
// server with its authentication/authorization filter.
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureVersion } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HealthChecks, pingCheck } from '@cl/healthz';
import { requestPath } from '@cl/auth';
import { createHandler, notFound, type HandlerDeps } from './handlers';
import { nodeAttributes, nodeSubresources, type ServerAuth } from './auth';
import { markUpgrade } from './streaming';
import { logLine, type LogFn } from '../log';

// Upstream's server settings: idle 90s, read/write 4h, 1 MiB of headers.
const SERVER_OPTIONS = { keepAliveTimeout: 90_000, requestTimeout: 4 * 3600_000, maxHeaderSize: 1 << 20 };

export interface Listening {
  server: Server;
  address: string;
  port: number;
}

function listen(server: Server, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      const what = e.code === 'EADDRINUSE' ? 'bind: address already in use' : e.code === 'EACCES' ? 'bind: permission denied' : e.message;
      reject(new Error(`listen tcp ${host.includes(':') ? `[${host}]` : host}:${port}: ${what}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const a = server.address() as AddressInfo;
      resolve({ server, address: a.address, port: a.port });
    });
  });
}

/** Unexpected handler failures answer 500 and never take the process down. */
function guard(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  log: LogFn,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((e) => {
      log(logLine('Unhandled error serving request', { path: req.url }, { severity: 'E', err: e }));
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Internal Server Error\n');
      } else res.destroy();
    });
  };
}

/**
 * Upgrade requests (exec, attach, port-forward streams) go through the same handlers as plain ones: a
 * response object on the raw socket answers errors, and the streaming handler takes the socket over.
 */
const upgradedSockets = new WeakMap<Server, Set<Duplex>>();

function serveUpgrades(server: Server, handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  const open = new Set<Duplex>();
  upgradedSockets.set(server, open);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => socket.end());
    markUpgrade(req, socket, head);
    handle(req, res);
  });
}

const bindHost = (address: string) => (address === '' ? '0.0.0.0' : address);

/** The localhost health server: /healthz with only the ping check, everything else 404. */
export function startHealthServer(address: string, port: number, log: LogFn): Promise<Listening> {
  const health = new HealthChecks({ log }).add(['healthz'], pingCheck());
  const server = createHttpServer(SERVER_OPTIONS, guard(async (req, res) => {
    const path = requestPath(req);
    if ((path === '/healthz' || path.startsWith('/healthz/')) && (await health.handle(req, res))) return;
    notFound(res);
  }, log));
  return listen(server, bindHost(address), port);
}

export function startReadOnlyServer(address: string, port: number, deps: HandlerDeps, log: LogFn): Promise<Listening> {
  const handler = createHandler({ ...deps, debugging: false, configz: undefined });
  const handle = guard((req, res) => handler(req, res, requestPath(req)), log);
  const server = createHttpServer(SERVER_OPTIONS, handle);
  serveUpgrades(server, handle);
  return listen(server, bindHost(address), port);
}

export interface MainServerOptions {
  address: string;
  port: number;
  cert: Buffer;
  key: Buffer;
  clientCA: Buffer | null;
  minVersion: SecureVersion;
  ciphers?: string;
  auth: ServerAuth;
  fineGrainedAuthz: boolean;
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function startMainServer(opts: MainServerOptions, deps: HandlerDeps, log: LogFn): Promise<Listening> {
  const handler = createHandler(deps);
  const filtered = async (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    let user;
    try {
      user = (await opts.auth.authenticator.authenticate(req))?.user;
    } catch (e) {
      log(logLine('Unable to authenticate the request', {}, { severity: 'E', err: e }));
    }
    if (!user) return sendText(res, 401, 'Unauthorized');
    const subresources = nodeSubresources(path, opts.fineGrainedAuthz);
    const verb = nodeAttributes(user, req, path, deps.nodeName, '').verb;
    for (const sub of subresources) {
      const attrs = nodeAttributes(user, req, path, deps.nodeName, sub);
      let decision;
      try {
        decision = await opts.auth.authorizer.authorize(attrs);
      } catch (e) {
        log(logLine('Authorization error', { user: user.username, verb, resource: 'nodes', subresource: sub }, { severity: 'E', err: e }));
        return sendText(res, 500, `Authorization error (user=${user.username}, verb=${verb}, resource=nodes, subresource=${sub})`);
      }
      if (decision.decision === 'Allow') return handler(req, res, path);
    }
    log(logLine('Forbidden', { user: user.username, verb, resource: 'nodes', subresources }));
    return sendText(res, 403, `Forbidden (user=${user.username}, verb=${verb}, resource=nodes, subresource(s)=[${subresources.join(' ')}])\n`);
  };
  const server = createHttpsServer(
    {
      ...SERVER_OPTIONS,
      cert: opts.cert,
      key: opts.key,
      minVersion: opts.minVersion,
      ...(opts.ciphers ? { ciphers: opts.ciphers } : {}),
      // Request, never require, a client certificate: other credentials may still authenticate.
      requestCert: opts.clientCA !== null,
      rejectUnauthorized: false,
      ...(opts.clientCA ? { ca: opts.clientCA } : {}),
    },
    guard(filtered, log),
  );
  serveUpgrades(server, guard(filtered, log));
  return listen(server, bindHost(opts.address), opts.port);
}

export function closeServer(l: Listening): Promise<void> {
  return new Promise((resolve) => {
    l.server.close(() => resolve());
    l.server.closeAllConnections();
    // Streams the server handed over (exec, attach, port-forward) are not its connections any more.
    for (const s of upgradedSockets.get(l.server) ?? []) s.destroy();
  });
}
