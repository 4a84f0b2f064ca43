// The client config of the server's own in-process components (upstream's LoopbackClientConfig): this server's
// address on loopback, its serving certificate as the trust anchor, the loopback token (./authn/loopback) and no
// client-side rate limit, as upstream's loopback config (QPS -1).
import { connect } from 'node:tls';
import type { ClientConfig } from '@cl/kube-client';
import type { Logger } from './logger';
import { versionInfo } from './version';

export interface LoopbackTarget {
  /** --bind-address */
  bindAddress: string;
  port: number;
  /** The serving certificate file's PEM (the serving certificate, then its CA when there is one). */
  servingCert: Buffer;
  token: string;
}

/** Upstream's LoopbackHostPort: the bind address, or a loopback address of its family when it is a wildcard. */
export function loopbackHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '') return '127.0.0.1';
  if (bindAddress === '::') return '::1';
  return bindAddress;
}

/**
 * `kube-apiserver/<version> (<os>/<arch>) kubernetes/<commit>`, as client-go's default user agent in
 * kube-apiserver: upstream's --shutdown-send-retry-after exempts requests whose user agent starts with
 * `kube-apiserver/` (the server's own clients), and so does this server (server.ts exemptFromRetryAfter).
 */
export function loopbackUserAgent(): string {
  const v = versionInfo();
  return `kube-apiserver/${v.gitVersion} (${v.platform}) kubernetes/${v.gitCommit ? v.gitCommit.slice(0, 7) : 'unknown'}`;
}

/**
 * The loopback client config. Upstream serves a certificate of its own to the loopback client (SNI name
 * `apiserver-loopback-client`); @cl/kube-client cannot ask for a server name, so the loopback client verifies the
 * serving certificate instead, with its file as the CA bundle. That works for the self-signed pair (valid for
 * 127.0.0.1, ::1 and a specific bind address), and for a --tls-cert-file that carries its CA and names the
 * loopback address; one TLS handshake with exactly the client's checks tells. When it fails (a certificate for a
 * DNS name only, or without its CA) the loopback client skips verification: it dials the address this process
 * itself is listening on, so no other process can answer there, and its token is valid only in this process.
 */
export async function loopbackClientConfig(target: LoopbackTarget, log: Logger): Promise<ClientConfig> {
  const host = loopbackHost(target.bindAddress);
  const base = { server: `https://${host.includes(':') ? `[${host}]` : host}:${target.port}`, token: target.token, qps: -1, userAgent: loopbackUserAgent() };
  const problem = await verifyHandshake(host, target.port, target.servingCert);
  if (problem === null) return { ...base, ca: target.servingCert };
  log.warn(`The serving certificate does not verify for the loopback client at ${host} (${problem}); in-process clients skip TLS verification`);
  return { ...base, insecureSkipTLSVerify: true };
}

/** null when a client trusting `ca` accepts the server at host:port, else why not. */
function verifyHandshake(host: string, port: number, ca: Buffer): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, ca, rejectUnauthorized: true }, () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (e) => {
      socket.destroy();
      resolve(e.message);
    });
  });
}
