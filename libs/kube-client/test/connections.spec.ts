// How a KubeClient uses connections, against scripted local servers: requests in flight are capped while watches
// are not (and reuse idle connections), idle connections are closed before the server's keep-alive ends them,
// and a request that went out on a kept-alive socket the server reset is sent again once on a fresh connection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_MAX_CONNECTIONS, KubeClient } from '../src';

interface Scripted {
  server: Server;
  base: string;
  /** Connections the server accepted, and those still open. */
  accepted: Socket[];
  open: Set<Socket>;
  requests: string[];
}

async function scripted(handle: (req: IncomingMessage, res: ServerResponse, nth: number) => void): Promise<Scripted> {
  const s = { accepted: [] as Socket[], open: new Set<Socket>(), requests: [] as string[] } as Scripted;
  const perSocket = new WeakMap<Socket, number>();
  s.server = createServer((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    s.requests.push(`${req.method} ${req.url}`);
    handle(req, res, nth);
  });
  s.server.keepAliveTimeout = 600_000;
  s.server.on('connection', (sock: Socket) => {
    s.accepted.push(sock);
    s.open.add(sock);
    sock.on('close', () => s.open.delete(sock));
  });
  await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
  s.base = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
  return s;
}

async function stop(s: Scripted): Promise<void> {
  s.server.closeAllConnections();
  await new Promise((r) => s.server.close(r));
}

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 3000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`gave up waiting for ${what}`);
};

describe('connections', () => {
  test.each<[string, number | undefined, number]>([
    ['maxConnections 3', 3, 3],
    ['the default', undefined, DEFAULT_MAX_CONNECTIONS],
    ['a negative cap (none)', -1, 40],
  ])('%s: 40 requests in flight use at most that many connections; a watch still gets one', async (_name, maxConnections, expected) => {
    const held: ServerResponse[] = [];
    const s = await scripted((req, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"type":"ADDED","object":{"metadata":{"name":"w","resourceVersion":"1"}}}\n');
        return;
      }
      held.push(res);
    });
    const c = new KubeClient({ server: s.base, qps: -1, maxConnections });
    const calls = Array.from({ length: 40 }, (_, i) => c.get<{ n: number }>(`/api/v1/namespaces/ns/configmaps/c${i}`));
    await until(`${expected} requests held`, () => held.length === expected);
    const seen: string[] = [];
    const w = c.watch('/api/v1/pods', {}, (_type, obj) => seen.push(obj.metadata.name));
    await until('the watch event', () => seen.length === 1);
    expect(s.accepted.length).toBe(expected + 1);
    // Each answer frees a connection for a waiting request, on the same socket.
    while (held.length < 40 || held.some((r) => !r.writableEnded)) {
      for (const r of held) if (!r.writableEnded) r.end('{"n":1}');
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await Promise.all(calls)).toHaveLength(40);
    expect(s.accepted.length).toBe(expected + 1);
    w.stop();
    c.close();
    await stop(s);
  });

  test('closing the client fails the requests still waiting for a slot', async () => {
    const s = await scripted(() => undefined); // never answers
    const c = new KubeClient({ server: s.base, qps: -1, maxConnections: 1 });
    const first = c.get('/api/v1/a').catch((e: Error) => e.name);
    const second = c.get('/api/v1/b').catch((e: Error) => e.name);
    await until('the first request', () => s.requests.length === 1);
    c.close();
    expect(await second).toBe('ClientClosedError');
    expect(await first).toBe('ClientClosedError');
    expect(s.requests).toEqual(['GET /api/v1/a']);
    await stop(s);
  });

  test('a watch after a list goes out on the list\'s connection', async () => {
    const s = await scripted((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (req.url?.includes('watch=true')) res.end('{"type":"ADDED","object":{"metadata":{"name":"w","resourceVersion":"2"}}}\n');
      else res.end('{"metadata":{"resourceVersion":"1"},"items":[]}');
    });
    const c = new KubeClient({ server: s.base, qps: -1 });
    await c.list('/api/v1/pods');
    const seen: string[] = [];
    const w = c.watch('/api/v1/pods', { resourceVersion: '1' }, (_type, obj) => seen.push(obj.metadata.name));
    await w.done;
    expect(seen).toEqual(['w']);
    expect(s.accepted.length).toBe(1);
    c.close();
    await stop(s);
  });

  test.each<[string, number, boolean]>([
    ['idleConnectionTimeoutMs 100 closes an idle connection', 100, false],
    ['idleConnectionTimeoutMs 0 keeps it', 0, true],
  ])('%s', async (_name, idleConnectionTimeoutMs, kept) => {
    const s = await scripted((_req, res) => res.end('{}'));
    const c = new KubeClient({ server: s.base, qps: -1, idleConnectionTimeoutMs });
    await c.get('/api/v1/namespaces');
    expect(s.open.size).toBe(1);
    if (!kept) await until('the client to close its idle connection', () => s.open.size === 0);
    else {
      await new Promise((r) => setTimeout(r, 400));
      expect(s.open.size).toBe(1);
    }
    c.close();
    await stop(s);
  });

  test.each(['GET', 'POST'])('%s on a kept-alive socket the server resets is sent again once on a new connection', async (method) => {
    const s = await scripted((req, res, nth) => {
      // The second request on a connection finds it reset, as one the server closes for idleness.
      if (nth === 2) return req.socket.resetAndDestroy();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ nth }));
    });
    const c = new KubeClient({ server: s.base, qps: -1 });
    const send = () => (method === 'GET' ? c.get('/api/v1/namespaces/a') : c.create('/api/v1/namespaces', { metadata: { name: 'a' } }));
    expect(await send()).toEqual({ nth: 1 });
    expect(await send()).toEqual({ nth: 1 }); // the first request of a second connection
    expect(s.accepted.length).toBe(2);
    expect(s.requests).toHaveLength(3);
    c.close();
    await stop(s);
  });

  test('a reset of a fresh connection is the caller\'s error, not sent again', async () => {
    const s = await scripted((req) => req.socket.resetAndDestroy());
    const c = new KubeClient({ server: s.base, qps: -1 });
    await expect(c.get('/api/v1/namespaces')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(s.requests).toHaveLength(1);
    c.close();
    await stop(s);
  });
});
