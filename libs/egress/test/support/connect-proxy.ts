// A small HTTP CONNECT proxy for tests, on a unix socket or TLS (mTLS) TCP, with a switchable behaviour.
import * as net from 'node:net';
import * as tls from 'node:tls';

export type ProxyMode =
  | { kind: 'forward' } // 200, then a real TCP connection to the requested address
  | { kind: 'echo' } // 200, then echo everything back
  | { kind: 'respond'; bytes: string } // write these bytes, then close
  | { kind: 'respondAndEcho'; bytes: string } // write these bytes, then echo
  | { kind: 'close' }
  | { kind: 'silent' };

export interface ConnectProxy {
  mode: ProxyMode;
  /** Every byte each accepted connection sent, in order (CONNECT head included). */
  connections: Buffer[];
  /** Keep a copy of every byte (tests); benchmarks turn it off. */
  recordData: boolean;
  /** Subject CN of the client certificate of each TLS connection. */
  clientCNs: string[];
  address: { path: string } | { host: string; port: number };
  close(): Promise<void>;
}

export async function startConnectProxy(
  listen: { path: string } | { tls: tls.TlsOptions },
  mode: ProxyMode = { kind: 'forward' },
): Promise<ConnectProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: ConnectProxy = { mode, recordData: true, connections: [], clientCNs: [], address: { path: '' }, close: async () => undefined };
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (socket instanceof tls.TLSSocket) {
      const cn = socket.getPeerCertificate()?.subject?.CN;
      proxy.clientCNs.push(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
    }
    const index = proxy.connections.push(Buffer.alloc(0)) - 1;
    const record = (b: Buffer) => (proxy.connections[index] = Buffer.concat([proxy.connections[index], b]));
    let head = Buffer.alloc(0);
    const onHead = (chunk: Buffer) => {
      record(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.removeListener('data', onHead);
      const rest = head.subarray(end + 4);
      const target = /^CONNECT (\S+) HTTP/.exec(head.toString('latin1'))?.[1] ?? '';
      const m = proxy.mode;
      if (m.kind === 'close') return void socket.destroy();
      if (m.kind === 'silent') return;
      if (m.kind === 'respond') return void socket.end(m.bytes);
      if (m.kind === 'echo' || m.kind === 'respondAndEcho') {
        socket.write(m.kind === 'echo' ? 'HTTP/1.1 200 Connection Established\r\n\r\n' : m.bytes);
        if (rest.length) socket.write(rest);
        socket.on('data', (b: Buffer) => {
          record(b);
          socket.write(b);
        });
        return;
      }
      const sep = target.lastIndexOf(':');
      const host = target.slice(0, sep).replace(/^\[|\]$/g, '');
      const upstream = net.connect({ host, port: Number(target.slice(sep + 1)) }, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length) upstream.write(rest);
        if (proxy.recordData) socket.on('data', record);
        socket.pipe(upstream);
        upstream.pipe(socket);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
    };
    socket.on('data', onHead);
  };
  let server: net.Server;
  if ('path' in listen) {
    server = net.createServer(onConnection);
    await new Promise<void>((resolve) => server.listen(listen.path, resolve));
    proxy.address = { path: listen.path };
  } else {
    server = tls.createServer(listen.tls, onConnection);
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy.address = { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
  }
  proxy.close = () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
