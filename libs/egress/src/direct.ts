import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer';
import { EgressDialError, abortText, describeConnectError } from './errors';

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Plain TCP, what every selection without configuration uses; no metrics and no span, as upstream. */
export const directDialer: Dialer = {
  dial(host: string, port: number, signal?: AbortSignal): Promise<Duplex> {
    const bare = unbracket(host);
    const address = bare.includes(':') ? `[${bare}]:${port}` : `${bare}:${port}`;
    return new Promise((resolve, reject) => {
      // TCP_NODELAY as Go's dialer sets it by default.
      const socket = net.connect({ host: bare, port, noDelay: true });
      const cleanup = () => {
        socket.removeListener('connect', onConnect);
        socket.removeListener('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const onConnect = () => {
        cleanup();
        resolve(socket);
      };
      const onError = (err: Error) => {
        cleanup();
        socket.destroy();
        reject(new EgressDialError(describeConnectError('tcp', address, err), 'connect', { cause: err }));
      };
      const onAbort = () => {
        cleanup();
        socket.destroy();
        reject(new EgressDialError(`dial tcp ${address}: ${abortText(signal!)}`, 'connect'));
      };
      if (signal?.aborted) return onAbort();
      socket.once('connect', onConnect);
      socket.once('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
