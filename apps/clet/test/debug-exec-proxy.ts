// Stands in for the API server's pod exec subresource (a test fixture, not the real API server): maps
// /api/v1/namespaces/{ns}/pods/{pod}/exec upgrades to the node agent's /exec with a client certificate,
// and GET of a pod to the node agent's /pods, so kubectl 1.33 can exec through the node agent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { request as httpsRequest } from 'node:https';

export interface ExecProxy {
  port: number;
  /** One line per exec stream still open: which side has ended, bytes each way (for a hung kubectl's report). */
  openStreams(): string[];
  /** Destroys every open stream too: a stream that never ended must not hold the test's teardown. */
  close(): Promise<void>;
}

interface Relay { path: string; client: Duplex; up: Duplex; toClet: number; fromClet: number }

export function startExecProxy(clet: string, cert: string, key: string): Promise<ExecProxy> {
  const target = new URL(clet);
  const relays = new Set<Relay>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    // Just enough discovery for kubectl to find pods and their exec subresource.
    const discovery: Record<string, object> = {
      '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
      '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
      '/api/v1': {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
          { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
        ],
      },
    };
    if (discovery[path]) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify(discovery[path]));
    }
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)$/.exec(path);
    if (!m) { res.writeHead(404, { 'Content-Type': 'application/json' }); return res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}'); }
    httpsRequest(`${clet}/pods`, { cert, key, rejectUnauthorized: false }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => {
        const pod = JSON.parse(body).items.find((p: { metadata: { name: string; namespace: string } }) => p.metadata.namespace === m[1] && p.metadata.name === m[2]);
        res.writeHead(pod ? 200 : 404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(pod ? { kind: 'Pod', apiVersion: 'v1', ...pod } : { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 }));
      });
    })
      .on('error', (e) => {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`the node agent's /pods: ${e.message}`);
      })
      .end();
  });
  server.on('upgrade', (req, socket, head) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(u.pathname);
    if (!m) return socket.destroy();
    const q = new URLSearchParams();
    for (const c of u.searchParams.getAll('command')) q.append('command', c);
    for (const s of ['stdin', 'stdout', 'stderr', 'tty']) if (u.searchParams.get(s) === 'true') q.set(s, '1');
    const path = `/exec/${m[1]}/${m[2]}/${u.searchParams.get('container')}?${q}`;
    const up = connect({ host: target.hostname, port: Number(target.port), cert, key, rejectUnauthorized: false }, () => {
      const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${target.host}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() !== 'host') lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) up.write(head);
      // Counted from here on, as the pipes start: a 'data' listener set earlier would take kubectl's bytes away.
      socket.on('data', (d: Buffer) => (relay.toClet += d.length));
      up.on('data', (d: Buffer) => (relay.fromClet += d.length));
      up.pipe(socket);
      socket.pipe(up);
    });
    const relay: Relay = { path: `${req.method} ${path} (${req.headers.upgrade})`, client: socket, up, toClet: 0, fromClet: 0 };
    relays.add(relay);
    // Either side closing closes the other. pipe() alone does not: once the agent's side is gone, kubectl's socket
    // is unpiped and paused, never reads kubectl's FIN and stays open (the HTTP server allows half-open sockets),
    // which kept this fixture's close() waiting for good (seen in a stress run: 11 of 800 upgrades; the likely cause of a
    // CI run's timeout here).
    const closeBoth = () => {
      relays.delete(relay);
      socket.destroy();
      up.destroy();
    };
    up.once('close', () => {
      if (socket.destroyed || socket.writableFinished) return closeBoth();
      socket.end();
      socket.once('finish', closeBoth);
    });
    socket.once('close', closeBoth);
    up.on('error', closeBoth);
    socket.on('error', closeBoth);
  });
  const side = (d: Duplex) => (d.destroyed ? 'closed' : d.readableEnded ? 'ended' : 'open');
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        openStreams: () => [...relays].map((r) => `${r.path}: kubectl side ${side(r.client)}, agent side ${side(r.up)}, ${r.toClet} bytes to the agent, ${r.fromClet} back`),
        close: () => {
          for (const r of relays) {
            r.client.destroy();
            r.up.destroy();
          }
          server.closeAllConnections();
          return new Promise((r) => server.close(() => r()));
        },
      }),
    ),
  );
}
