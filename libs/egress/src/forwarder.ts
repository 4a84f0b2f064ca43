import * as net from 'node:net';
import type { Dialer } from './dialer';

/** A loopback listener whose every connection is a dial to one fixed destination. */
export interface Forwarder {
  /** `127.0.0.1`, or the socket path when listening on a unix socket. */
  host: string;
  /** 0 on a unix socket. */
  port: number;
  /** A gRPC target: `127.0.0.1:<port>`, or `unix://<path>` (e.g. `new grpc.Client(fw.address, creds)`). */
  address: string;
  close(): Promise<void>;
}

/**
 * Lets clients that cannot take a custom socket (grpc-js, the etcd client, the OTLP exporter) reach `host:port`
 * through a Dialer: they connect to the returned loopback address and each accepted connection is piped into a
 * fresh dial. TLS, if any, stays end to end (the forwarder only moves bytes). With `options.path` it listens on
 * that unix socket instead, whose address is known before listening completes.
 */
export async function listenForwarder(dialer: Dialer, host: string, port: number, options: { path?: string } = {}): Promise<Forwarder> {
  const open = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (inbound) => {
    open.add(inbound);
    inbound.on('close', () => open.delete(inbound));
    inbound.on('error', () => inbound.destroy());
    const abort = new AbortController();
    inbound.once('close', () => abort.abort());
    inbound.pause();
    dialer.dial(host, port, abort.signal).then(
      (outbound) => {
        if (inbound.destroyed) {
          outbound.destroy();
          return;
        }
        outbound.on('error', () => inbound.destroy());
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
        inbound.pipe(outbound);
        outbound.pipe(inbound);
        inbound.resume();
      },
      () => inbound.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (options.path) server.listen(options.path, () => resolve());
    else server.listen(0, '127.0.0.1', () => resolve());
  });
  const localPort = options.path ? 0 : (server.address() as net.AddressInfo).port;
  return {
    host: options.path ?? '127.0.0.1',
    port: localPort,
    address: options.path ? `unix://${options.path}` : `127.0.0.1:${localPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
