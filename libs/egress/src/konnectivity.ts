import * as grpc from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { Duplex } from 'node:stream';
import { EgressDialError, abortText, describeConnectError } from './errors';
import { PACKET_TYPE_NAMES, PacketType, decodePacket, encodePacket, type Packet } from './konnectivity-packet';
import type { EgressMetrics, KonnectivityDialFailureReason } from './metrics';

const PROXY_METHOD = '/ProxyService/Proxy';
/** Largest DATA payload sent in one packet (see KonnectivityConnection._writev). */
export const MAX_DATA_BYTES = 1024 * 1024;

export interface KonnectivityDialOptions {
  udsName: string;
  metrics: EgressMetrics;
  /** Upper bound for connecting and for the DIAL_RSP, whatever the caller's signal says (upstream: 30 s). */
  backstopMs: number;
  /** How long Close waits for CLOSE_RSP (upstream: 10 s). */
  closeTimeoutMs: number;
}

type Call = grpc.ClientDuplexStream<Packet, Packet>;

/**
 * One konnectivity tunnel: a fresh gRPC connection to the tunnel server's unix socket, one `Proxy` stream, one
 * DIAL_REQ (upstream's "single-use tunnel"). Resolves with the established connection.
 */
export async function dialKonnectivity(opts: KonnectivityDialOptions, addr: string, signal?: AbortSignal): Promise<KonnectivityConnection> {
  const { udsName, metrics } = opts;
  const backstop = AbortSignal.timeout(opts.backstopMs);
  const combined = signal ? AbortSignal.any([signal, backstop]) : backstop;

  // A missing socket would only show as endless reconnect attempts in grpc-js; say what Go's dialer says instead.
  try {
    await stat(udsName);
  } catch (err) {
    throw new EgressDialError(describeConnectError('unix', udsName, err), 'connect', { cause: err });
  }
  const client = new grpc.Client(`unix:${udsName}`, grpc.credentials.createInsecure(), {
    // Each dial owns its connection, as upstream; a shared subchannel would multiplex unrelated tunnels.
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': -1,
    // A 4 MiB receive window (HTTP/2 stream and connection) instead of grpc-js's 64 KiB: at 64 KiB the download
    // direction (the node's bytes to the API server) waited for a WINDOW_UPDATE round trip every 64 KiB (0.21x of
    // direct TCP). Upstream's Go server reads while it writes, so a large window in both directions cannot stall;
    // a peer that stops reading while it writes (Node's HTTP/2) could, once both directions have more in flight
    // than the socket buffers hold (test/support/konnectivity-server.ts keeps reading for that reason).
    'grpc-node.flow_control_window': 4 * 1024 * 1024,
  });
  try {
    await waitForReady(client, udsName, combined);
  } catch (err) {
    client.close();
    throw err;
  }

  const call: Call = client.makeBidiStreamRequest(PROXY_METHOD, encodePacket, decodePacket);
  // grpc-js reports a cancelled or failed stream as an 'error' event; the tunnel handles it through 'end'/'status'.
  call.on('error', () => undefined);
  const random = randomBytes(8).readBigUInt64BE() >> 1n;
  const send = (p: Packet) => {
    metrics.packet('from_client', PACKET_TYPE_NAMES[p.type] ?? 'Unknown');
    return call.write(p);
  };
  send({ type: PacketType.DIAL_REQ, dialRequest: { protocol: 'tcp', address: addr, random } });

  return new Promise<KonnectivityConnection>((resolve, reject) => {
    let settled = false;
    const fail = (reason: KonnectivityDialFailureReason, message: string, sendDialClose: boolean) => {
      if (settled) return;
      settled = true;
      detach();
      metrics.konnectivityDialFailure(reason);
      if (sendDialClose) send({ type: PacketType.DIAL_CLS, closeDial: { random } });
      shutdownCall(call, client);
      reject(new EgressDialError(message, 'proxy'));
    };
    const onData = (p: Packet) => {
      metrics.packet('to_client', PACKET_TYPE_NAMES[p.type] ?? 'Unknown');
      if (p.type === PacketType.DIAL_RSP && p.dialResponse) {
        if (p.dialResponse.random !== random) return fail('unknown', 'tunnel closed', false);
        if (p.dialResponse.error) return fail('endpoint', p.dialResponse.error, false);
        settled = true;
        detach();
        resolve(new KonnectivityConnection(call, client, p.dialResponse.connectID, send, opts.closeTimeoutMs));
      } else if (p.type === PacketType.DIAL_CLS && p.closeDial?.random === random) {
        fail('dialclosed', 'dial closed', false);
      }
    };
    const onEnd = () => fail('tunnelclosed', 'tunnel closed', false);
    const onAbort = () => {
      const why = signal?.aborted ? 'context' : 'backstop';
      fail(why === 'context' ? 'context' : 'timeout', `dial timeout, ${why}`, true);
    };
    const detach = () => {
      call.removeListener('data', onData);
      call.removeListener('end', onEnd);
      call.removeListener('error', onEnd);
      combined.removeEventListener('abort', onAbort);
    };
    call.on('data', onData);
    call.once('end', onEnd);
    call.once('error', onEnd);
    if (combined.aborted) return onAbort();
    combined.addEventListener('abort', onAbort, { once: true });
  });
}

function waitForReady(client: grpc.Client, udsName: string, signal: AbortSignal): Promise<void> {
  const channel = client.getChannel();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (signal.aborted) {
        return reject(new EgressDialError(`dial unix ${udsName}: ${abortText(signal)}`, 'connect'));
      }
      const state = channel.getConnectivityState(true);
      if (state === grpc.connectivityState.READY) return resolve();
      if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.SHUTDOWN) {
        return reject(new EgressDialError(`dial unix ${udsName}: grpc connection to the tunnel server failed`, 'connect'));
      }
      // Re-check at least every 100 ms so an aborted signal is noticed promptly.
      channel.watchConnectivityState(state, Date.now() + 100, check);
    };
    check();
  });
}

/**
 * Half-closes our side so packets already queued (a DIAL_CLS, a CLOSE_REQ) still reach the server, which ends the
 * stream in turn; a server that does not is cut off after a short grace period.
 */
function shutdownCall(call: Call, client: grpc.Client, graceMs = 1000): void {
  call.end();
  const timer = setTimeout(() => {
    call.cancel();
    client.close();
  }, graceMs);
  timer.unref();
  call.once('status', () => {
    clearTimeout(timer);
    client.close();
  });
}

/**
 * The established tunnel as a Node stream. Writes become DATA packets (coalesced/cut, see _writev); inbound DATA is
 * pushed in order with gRPC flow control as back-pressure. `end()`/`destroy()` send CLOSE_REQ and wait for
 * CLOSE_RSP before the gRPC connection is closed. The few net.Socket methods HTTP clients call are provided.
 */
export class KonnectivityConnection extends Duplex {
  private tunnelClosed = false;
  private closeWaiters: Array<(err?: Error) => void> = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private idleMs = 0;
  readonly remoteAddress = undefined;

  constructor(
    private readonly call: Call,
    private readonly client: grpc.Client,
    readonly connectID: bigint,
    private readonly send: (p: Packet) => boolean,
    private readonly closeTimeoutMs: number,
  ) {
    // No autoDestroy: a TLS socket over this stream (the API server to a node agent) is destroyed as soon as this
    // stream emits close, dropping what it decrypted but its reader (paused by back-pressure) has not taken yet;
    // so close waits for destroy(), which the TLS socket (or an HTTP client) calls once it is done with the bytes.
    super({ allowHalfOpen: false, autoDestroy: false });
    call.on('data', (p: Packet) => this.onPacket(p));
    call.on('end', () => this.onTunnelEnd());
    call.on('error', () => this.onTunnelEnd());
  }

  private onPacket(p: Packet): void {
    if (p.type === PacketType.DATA && p.data) {
      if (p.data.connectID === 0n) return;
      if (p.data.connectID !== this.connectID) {
        this.send({ type: PacketType.CLOSE_REQ, closeRequest: { connectID: p.data.connectID } });
        return;
      }
      this.touch();
      if (!this.push(p.data.data)) this.call.pause();
    } else if (p.type === PacketType.CLOSE_RSP && p.closeResponse?.connectID === this.connectID) {
      const err = p.closeResponse.error ? new Error(p.closeResponse.error) : undefined;
      this.finishTunnel(err);
    }
  }

  private onTunnelEnd(): void {
    if (this.tunnelClosed) return;
    this.finishTunnel(new Error('tunnel closed'));
    // An abrupt end of the stream is an error for the reader, not a clean EOF.
    this.destroy(new Error('tunnel closed'));
  }

  private finishTunnel(err?: Error): void {
    const first = !this.tunnelClosed;
    this.tunnelClosed = true;
    if (first) this.push(null);
    for (const w of this.closeWaiters.splice(0)) w(err);
    this.clearIdle();
    shutdownCall(this.call, this.client);
  }

  /** CLOSE_REQ, then wait (bounded) for CLOSE_RSP; a non-empty CLOSE_RSP error is the result. */
  private closeTunnel(): Promise<void> {
    if (this.tunnelClosed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.finishTunnel(new Error('close timeout')), this.closeTimeoutMs);
      timer.unref();
      this.closeWaiters.push((err) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      });
      if (this.closeWaiters.length === 1) this.send({ type: PacketType.CLOSE_REQ, closeRequest: { connectID: this.connectID } });
    });
  }

  override _read(): void {
    this.call.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this._writev([{ chunk }], callback);
  }

  /**
   * Writes queued while the previous packet was on its way go out together: small writes (a TLS record, an HTTP
   * frame) are coalesced into DATA packets of up to MAX_DATA_BYTES, and larger writes are cut into MAX_DATA_BYTES
   * pieces (zero-copy), so no packet exceeds what a Go gRPC server accepts by default (4 MiB). Upstream sends one
   * packet per write; the bytes on the far side are the same.
   */
  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    if (this.tunnelClosed) return callback(new Error('tunnel closed'));
    this.touch();
    let flowing = true;
    let group: Buffer[] = [];
    let size = 0;
    const flush = () => {
      if (size === 0) return;
      const data = group.length === 1 ? group[0] : Buffer.concat(group, size);
      flowing = this.send({ type: PacketType.DATA, data: { connectID: this.connectID, error: '', data } }) && flowing;
      group = [];
      size = 0;
    };
    for (const { chunk } of chunks) {
      for (let offset = 0; offset < chunk.length; offset += MAX_DATA_BYTES) {
        const piece = chunk.subarray(offset, offset + MAX_DATA_BYTES);
        if (size + piece.length > MAX_DATA_BYTES) flush();
        group.push(piece);
        size += piece.length;
      }
    }
    flush();
    if (flowing) callback();
    else this.call.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.closeTunnel().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.clearIdle();
    if (!this.tunnelClosed) this.closeTunnel().catch(() => undefined);
    callback(error);
  }

  // net.Socket look-alikes used by node:http and agents.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  setTimeout(ms: number, onTimeout?: () => void): this {
    this.idleMs = ms;
    if (onTimeout) {
      if (ms > 0) this.once('timeout', onTimeout);
      else this.removeListener('timeout', onTimeout);
    }
    this.touch();
    return this;
  }

  private touch(): void {
    this.clearIdle();
    if (this.idleMs > 0 && !this.tunnelClosed) {
      this.idleTimer = setTimeout(() => this.emit('timeout'), this.idleMs);
      this.idleTimer.unref();
    }
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
