// The three listeners: the plain-HTTP health server, the plain-HTTP read-only server and the HTTPS main
// server with its authentication/authorization filter.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureVersion } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { HealthChecks, pingCheck } from '@cl/healthz';
import { requestPath } from '@cl/auth';
import { createHandler, notFound, type HandlerDeps } from './handlers';
import { nodeAttributes, nodeSubresources, type ServerAuth } from './auth';

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
  log: (line: string) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((e) => {
      log(`E "Unhandled error serving request" path=${JSON.stringify(req.url)} err=${JSON.stringify((e as Error).message)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Internal Server Error\n');
      } else res.destroy();
    });
  };
}

const bindHost = (address: string) => (address === '' ? '0.0.0.0' : address);

/** The localhost health server: /healthz with only the ping check, everything else 404. */
export function startHealthServer(address: string, port: number, log: (l: string) => void): Promise<Listening> {
  const health = new HealthChecks({ log }).add(['healthz'], pingCheck());
  const server = createHttpServer(SERVER_OPTIONS, guard(async (req, res) => {
    const path = requestPath(req);
    if ((path === '/healthz' || path.startsWith('/healthz/')) && (await health.handle(req, res))) return;
    notFound(res);
  }, log));
  return listen(server, bindHost(address), port);
}

export function startReadOnlyServer(address: string, port: number, deps: HandlerDeps, log: (l: string) => void): Promise<Listening> {
  const handler = createHandler({ ...deps, debugging: false, configz: undefined });
  const server = createHttpServer(SERVER_OPTIONS, guard((req, res) => handler(req, res, requestPath(req)), log));
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
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

export function startMainServer(opts: MainServerOptions, deps: HandlerDeps, log: (l: string) => void): Promise<Listening> {
  const handler = createHandler(deps);
  const filtered = async (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    let user;
    try {
      user = (await opts.auth.authenticator.authenticate(req))?.user;
    } catch (e) {
      log(`E "Unable to authenticate the request" err=${JSON.stringify((e as Error).message)}`);
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
        log(`E "Authorization error" user=${JSON.stringify(user.username)} verb=${JSON.stringify(verb)} resource="nodes" subresource=${JSON.stringify(sub)} err=${JSON.stringify((e as Error).message)}`);
        return sendText(res, 500, `Authorization error (user=${user.username}, verb=${verb}, resource=nodes, subresource=${sub})`);
      }
      if (decision.decision === 'Allow') return handler(req, res, path);
    }
    log(`I "Forbidden" user=${JSON.stringify(user.username)} verb=${JSON.stringify(verb)} resource="nodes" subresources=${JSON.stringify(subresources)}`);
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
  return listen(server, bindHost(opts.address), opts.port);
}

export function closeServer(l: Listening): Promise<void> {
  return new Promise((resolve) => {
    l.server.close(() => resolve());
    l.server.closeAllConnections();
  });
}
