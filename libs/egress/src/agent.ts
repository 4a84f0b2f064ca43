import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Dialer } from './dialer';

type Callback = (err: Error | null, stream: Duplex) => void;

function target(options: http.ClientRequestArgs): { host: string; port: number } {
  return { host: options.host ?? options.hostname ?? 'localhost', port: Number(options.port) };
}

/** An `http.Agent` whose connections are opened by a Dialer (Node agents accept an asynchronous createConnection). */
export class DialerHttpAgent extends http.Agent {
  constructor(
    private readonly dialer: Dialer,
    options?: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: Callback): Duplex | null | undefined {
    const { host, port } = target(options);
    this.dialer.dial(host, port).then(
      (stream) => callback!(null, stream),
      (err: Error) => callback!(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/**
 * An `https.Agent` whose TLS runs inside the dialled stream: the tunnel carries the caller's own handshake to the
 * destination, so the tunnel server never sees plaintext.
 */
export class DialerHttpsAgent extends https.Agent {
  constructor(
    private readonly dialer: Dialer,
    options?: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: Callback): Duplex | null | undefined {
    const { host, port } = target(options);
    this.dialer.dial(host, port).then(
      (stream) => {
        const socket = tls.connect({ ...(options as tls.ConnectionOptions), socket: stream });
        // Errors of the inner handshake surface on the request through the socket's 'error' event.
        stream.once('error', (err) => socket.destroy(err));
        callback!(null, socket);
      },
      (err: Error) => callback!(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}
