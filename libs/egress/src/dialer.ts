import type { Duplex } from 'node:stream';

/**
 * Opens one byte stream to `host:port`. The stream is what HTTP clients, TLS (`tls.connect({ socket })`) and the
 * loopback forwarder run over. `signal` ends a pending attempt cleanly: the half-open tunnel is closed and the
 * promise rejects.
 */
export interface Dialer {
  dial(host: string, port: number, signal?: AbortSignal): Promise<Duplex>;
}

/** `host:port` as Go's net.JoinHostPort writes it (IPv6 literals bracketed); this is what tunnels are asked for. */
export function joinHostPort(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.includes(':') ? `[${bare}]:${port}` : `${bare}:${port}`;
}
