import * as net from 'node:net';
import * as tls from 'node:tls';
import { EgressDialError, abortText, describeConnectError, errorText } from './errors';

/** Where the tunnel server listens and how to reach it (TLS settings already loaded from their files). */
export type HttpConnectTarget =
  | { transport: 'uds'; udsName: string }
  | { transport: 'tcp'; host: string; port: number; tls?: tls.SecureContextOptions };

/** Go's bufio default is 4 KiB; a CONNECT response head larger than this is not a proxy talking to us. */
const MAX_RESPONSE_HEAD = 64 * 1024;

/** The address used in upstream error texts: the socket path, or `url.Host`. */
export function proxyAddressOf(target: HttpConnectTarget): string {
  return target.transport === 'uds' ? target.udsName : hostPort(target.host, target.port);
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Opens the raw (or TLS) connection to the tunnel server; failures are stage `connect`. */
export function connectTunnelServer(target: HttpConnectTarget, signal?: AbortSignal): Promise<net.Socket> {
  const network = target.transport === 'uds' ? 'unix' : 'tcp';
  const address = proxyAddressOf(target);
  return new Promise((resolve, reject) => {
    let socket: net.Socket;
    if (target.transport === 'uds') {
      socket = net.connect({ path: target.udsName });
    } else if (target.tls) {
      // Go sends no SNI for IP literals and verifies the IP SAN; Node does the same when servername is absent.
      socket = tls.connect({
        host: target.host,
        port: target.port,
        ...target.tls,
        servername: net.isIP(target.host) ? undefined : target.host,
        minVersion: 'TLSv1.2',
      });
    } else {
      socket = net.connect({ host: target.host, port: target.port });
    }
    // Go's dialer sets TCP_NODELAY on every TCP connection: small writes (the CONNECT head, a TLS handshake inside
    // the tunnel) go out at once instead of waiting for an ACK.
    if (target.transport === 'tcp') socket.setNoDelay(true);
    const readyEvent = socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect';
    const cleanup = () => {
      socket.removeListener('error', onError);
      socket.removeListener(readyEvent, onReady);
      signal?.removeEventListener('abort', onAbort);
    };
    const onReady = () => {
      cleanup();
      resolve(socket);
    };
    const onError = (err: Error) => {
      cleanup();
      socket.destroy();
      const text = describeConnectError(network, address, err);
      reject(new EgressDialError(text, 'connect', { cause: err }));
    };
    const onAbort = () => {
      cleanup();
      socket.destroy();
      reject(new EgressDialError(`dial ${network} ${address}: ${abortText(signal!)}`, 'connect'));
    };
    if (signal?.aborted) return onAbort();
    socket.once(readyEvent, onReady);
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends the CONNECT request upstream sends (exactly, `Host: 127.0.0.1`, no other headers) and reads the response
 * head. On success the socket is the tunnel and is left unread for its next consumer.
 */
export function httpConnectHandshake(
  socket: net.Socket,
  addr: string,
  proxyAddress: string,
  signal?: AbortSignal,
): Promise<net.Socket> {
  const failed = (detail: string) =>
    new EgressDialError(`reading HTTP response from CONNECT to ${addr} via proxy ${proxyAddress} failed: ${detail}`, 'proxy');
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      socket.removeListener('readable', onReadable);
      socket.removeListener('end', onEnd);
      socket.removeListener('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (err) {
        socket.destroy();
        reject(err);
      } else {
        resolve(socket);
      }
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (!settled && (chunk = socket.read() as Buffer | null) !== null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > MAX_RESPONSE_HEAD) finish(failed('response header too large'));
          continue;
        }
        const err = checkResponse(head.subarray(0, end).toString('latin1'), addr, proxyAddress, failed);
        // Bytes after the head already belong to the destination (a server that speaks first, e.g. an HTTP/2
        // server's SETTINGS); they go back to the stream for its consumer. Upstream refuses them instead, which
        // makes a tunnel to a gRPC server fail whenever both arrive in one read.
        if (!err && head.length > end + 4) socket.unshift(head.subarray(end + 4));
        finish(err);
      }
    };
    const onEnd = () => finish(failed(head.length === 0 ? 'EOF' : 'unexpected EOF'));
    const onError = (err: Error) => finish(failed(errorText(err)));
    const onAbort = () => finish(failed(abortText(signal!)));
    if (signal?.aborted) return onAbort();
    socket.on('readable', onReadable);
    socket.once('end', onEnd);
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.write(`CONNECT ${addr} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/;

function checkResponse(
  head: string,
  addr: string,
  proxyAddress: string,
  failed: (detail: string) => EgressDialError,
): EgressDialError | null {
  const statusLine = head.split('\r\n', 1)[0];
  const match = STATUS_LINE.exec(statusLine);
  if (!match) return failed(`malformed HTTP response ${JSON.stringify(statusLine)}`);
  const code = Number(match[1]);
  if (code !== 200) {
    const status = `${match[1]} ${match[2] ?? ''}`.trimEnd();
    return new EgressDialError(`proxy error from ${proxyAddress} while dialing ${addr}, code ${code}: ${status}`, 'proxy');
  }
  return null;
}
