// The project's test fake for upstream's konnectivity proxy-server *and* its agent: a `ProxyService/Proxy` gRPC
// endpoint on a unix socket whose `forward` mode really dials the requested address (what the agent does on the
// node). Packets are (de)serialized by protobufjs from a .proto (proto-loader), independent of the library's
// hand-written codec, except the DATA packets `forward` sends, framed by hand here (dataPacket) so that their
// payload is not copied. The gRPC framing runs on node:http2 directly rather than a grpc-js Server: grpc-js gives no
// way to raise the server's HTTP/2 receive window, and at the default 64 KiB the fake itself, not the client under
// test, capped `bench/egress` (it is part of that measurement).
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as path from 'node:path';
import { Duplex } from 'node:stream';

export interface WirePacket {
  type: string;
  payload?: string;
  dialRequest?: { protocol: string; address: string; random: string };
  dialResponse?: { error: string; connectID: string; random: string };
  data?: { connectID: string; error: string; data: Buffer };
  closeRequest?: { connectID: string };
  closeResponse?: { error: string; connectID: string };
  closeDial?: { random: string };
}

export type TunnelMode =
  | { kind: 'forward' }
  | { kind: 'echo'; connectID: number }
  | { kind: 'dialError'; error: string }
  | { kind: 'dialClose' }
  | { kind: 'silent' };

export interface KonnectivityServer {
  mode: TunnelMode;
  /** Packets received on each stream, in order. */
  streams: WirePacket[][];
  /** Resolves when the n-th stream (0-based) has ended from the client side. */
  streamEnded(n: number): Promise<void>;
  /** Whether packets are kept in `streams` (off for throughput runs: it would keep every DATA buffer alive). */
  recordPackets: boolean;
  /** Called with the address of every DIAL_REQ. */
  onDial?: (address: string) => void;
  close(): Promise<void>;
}

const definition = protoLoader.loadSync(path.join(__dirname, '../fixtures/konnectivity.proto'), {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const proxyMethod = definition.ProxyService as unknown as {
  Proxy: { path: string; requestDeserialize(b: Buffer): WirePacket; responseSerialize(p: WirePacket): Buffer };
};
const { Proxy: method } = proxyMethod;

/** Receive windows large enough that a 256 KiB-1 MiB DATA packet never waits for a WINDOW_UPDATE round trip. */
const WINDOW = 16 * 1024 * 1024;
/**
 * Bytes queued on one side before the other side is paused. Streams' default 16 KiB high-water mark would pause
 * the relay after every 64 KiB read and wait a full event-loop turn for 'drain'.
 */
const QUEUE_LIMIT = 1024 * 1024;

/** Splits a gRPC request body into length-prefixed messages (1 byte compressed flag, 4 bytes big-endian length). */
function messageReader(onMessage: (m: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let have = 0;
  let need = 5;
  let header = true;
  return (chunk) => {
    pending.push(chunk);
    have += chunk.length;
    while (have >= need) {
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, have);
      if (header) {
        if (all[0] !== 0) throw new Error('compressed gRPC messages are not supported by the test server');
        const len = all.readUInt32BE(1);
        pending = [all.subarray(5)];
        have -= 5;
        need = len;
        header = false;
      } else {
        onMessage(all.subarray(0, need));
        pending = [all.subarray(need)];
        have -= need;
        need = 5;
        header = true;
      }
    }
  };
}

/** A protobuf varint (the connection IDs and lengths here are far below 2^53). */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return out;
}

/**
 * A DATA packet as gRPC message prefix + the encoded head of Packet{type: DATA, data: Data{connectID, data}} and the
 * payload itself, uncopied. protobufjs copies every payload into the message it encodes, which made this fake, not
 * the client under test, the larger cost of `bench/egress`'s download row (the tunnel server stands in for
 * upstream's Go proxy-server and agent).
 */
function dataPacket(connectID: string, payload: Buffer): Buffer[] {
  // Data: connectID = 1 (varint), data = 3 (bytes); Packet: type = 1 (DATA is 4), data = 4 (message).
  const dataHead = [0x08, ...varint(Number(connectID)), 0x1a, ...varint(payload.length)];
  const packetHead = [0x08, 0x04, 0x22, ...varint(dataHead.length + payload.length), ...dataHead];
  const head = Buffer.allocUnsafe(5 + packetHead.length);
  head[0] = 0;
  head.writeUInt32BE(packetHead.length + payload.length, 1);
  head.set(packetHead, 5);
  return [head, payload];
}

function frame(p: WirePacket): Buffer[] {
  const body = method.responseSerialize(p);
  const head = Buffer.allocUnsafe(5);
  head[0] = 0;
  head.writeUInt32BE(body.length, 1);
  return [head, body];
}

/**
 * A connection as the HTTP/2 session sees it: writes are handed to the socket and reported done at once. Node's
 * HTTP/2 session stops reading its socket while one of its writes is in progress; a Go server (upstream's
 * proxy-server) reads and writes at the same time. Over a native socket, a fake that writes a window's worth (the
 * client's 4 MiB receive window) while the client writes a window's worth to it fills both unix-socket buffers
 * (~208 KB each) and neither side reads again. Through this wrapper the fake reads on as a Go server does; what it
 * buffers is bounded by the client's window.
 */
class ReadingWhileWriting extends Duplex {
  constructor(private readonly socket: net.Socket) {
    super({ allowHalfOpen: false });
    socket.on('data', (d: Buffer) => {
      if (!this.push(d)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('close', () => this.destroy());
    socket.on('error', (e) => this.destroy(e));
  }
  override _read(): void {
    this.socket.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, callback: (e?: Error | null) => void): void {
    this.socket.write(chunk);
    callback();
  }
  override _final(callback: () => void): void {
    this.socket.end(callback);
  }
  override _destroy(err: Error | null, callback: (e?: Error | null) => void): void {
    this.socket.destroy();
    callback(err);
  }
}

export async function startKonnectivityServer(socketPath: string, mode: TunnelMode = { kind: 'forward' }): Promise<KonnectivityServer> {
  const server = http2.createServer({ settings: { initialWindowSize: WINDOW }, maxSessionMemory: 1024 });
  const listener = net.createServer((socket) => server.emit('connection', new ReadingWhileWriting(socket)));
  const sessions = new Set<http2.ServerHttp2Session>();
  const ended: Array<{ promise: Promise<void>; resolve: () => void }> = [];
  const endedSlot = (n: number) => {
    while (ended.length <= n) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      ended.push({ promise, resolve });
    }
    return ended[n];
  };
  let nextConnectID = 1;
  const state: KonnectivityServer = {
    mode,
    streams: [],
    recordPackets: true,
    streamEnded: (n) => endedSlot(n).promise,
    close: () =>
      new Promise((resolve) => {
        // Gracefully, as grpc-js's tryShutdown; connections still open after a moment are cut.
        for (const s of sessions) s.close();
        const cut = setTimeout(() => {
          for (const s of sessions) s.destroy();
        }, 500);
        listener.close(() => {
          clearTimeout(cut);
          resolve();
        });
      }),
  };
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => undefined);
    // The connection-level window is not covered by SETTINGS; raise it as well.
    session.once('localSettings', () => session.setLocalWindowSize(WINDOW));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    if (headers[':path'] !== method.path) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(grpc.status.UNIMPLEMENTED) }, { endStream: true });
      return;
    }
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    const index = state.streams.push([]) - 1;
    const m = state.mode;
    const conns = new Map<string, net.Socket>();
    let finished = false;
    /** Writes one packet; false when more than QUEUE_LIMIT waits for the HTTP/2 window ('drain' follows). */
    const write = (p: WirePacket): boolean => {
      if (finished || stream.destroyed) return true;
      const [head, body] = p.type === 'DATA' && p.data && !p.data.error ? dataPacket(p.data.connectID, p.data.data) : frame(p);
      stream.write(head);
      return stream.write(body) || stream.writableLength < QUEUE_LIMIT;
    };
    const send = (p: Partial<WirePacket> & { type: string }) => void write(p as WirePacket);
    const finish = () => {
      if (finished) return;
      finished = true;
      if (!stream.destroyed) stream.end();
    };
    const clientEnded = () => {
      for (const s of conns.values()) s.destroy();
      endedSlot(index).resolve();
      finish();
    };
    stream.on('end', clientEnded);
    stream.on('close', clientEnded);
    const onPacket = (p: WirePacket) => {
      if (state.recordPackets) state.streams[index].push(p);
      if (p.type === 'DIAL_REQ' && p.dialRequest) {
        state.onDial?.(p.dialRequest.address);
        const random = p.dialRequest.random;
        if (m.kind === 'dialError') {
          send({ type: 'DIAL_RSP', dialResponse: { error: m.error, connectID: '0', random } });
          finish();
        } else if (m.kind === 'dialClose') {
          send({ type: 'DIAL_CLS', closeDial: { random } });
        } else if (m.kind === 'echo') {
          send({ type: 'DIAL_RSP', dialResponse: { error: '', connectID: String(m.connectID), random } });
        } else if (m.kind === 'forward') {
          const address = p.dialRequest.address;
          const sep = address.lastIndexOf(':');
          const id = String(nextConnectID++);
          const socket = net.connect({ host: address.slice(0, sep).replace(/^\[|\]$/g, ''), port: Number(address.slice(sep + 1)) });
          socket.setNoDelay(true);
          socket.once('connect', () => {
            conns.set(id, socket);
            send({ type: 'DIAL_RSP', dialResponse: { error: '', connectID: id, random } });
          });
          socket.once('error', (err: NodeJS.ErrnoException) => {
            if (!conns.has(id)) send({ type: 'DIAL_RSP', dialResponse: { error: `dial tcp ${address}: ${err.code}`, connectID: '0', random } });
          });
          socket.on('data', (data: Buffer) => {
            if (!write({ type: 'DATA', data: { connectID: id, error: '', data } })) {
              socket.pause();
              stream.once('drain', () => socket.resume());
            }
          });
          socket.on('close', () => {
            if (conns.delete(id)) send({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID: id } });
          });
        }
      } else if (p.type === 'DATA' && p.data) {
        if (m.kind === 'echo') send({ type: 'DATA', data: { connectID: p.data.connectID, error: '', data: p.data.data } });
        else {
          // The node side's back-pressure reaches the client through the HTTP/2 window.
          const socket = conns.get(p.data.connectID);
          if (socket && !socket.write(p.data.data) && socket.writableLength >= QUEUE_LIMIT) {
            stream.pause();
            socket.once('drain', () => stream.resume());
          }
        }
      } else if (p.type === 'CLOSE_REQ' && p.closeRequest) {
        const id = p.closeRequest.connectID;
        const socket = conns.get(id);
        conns.delete(id);
        socket?.destroy();
        send({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID: id } });
      }
    };
    const read = messageReader((b) => onPacket(method.requestDeserialize(b)));
    stream.on('data', (chunk: Buffer) => {
      try {
        read(chunk);
      } catch {
        stream.close(http2.constants.NGHTTP2_PROTOCOL_ERROR);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(socketPath, () => resolve());
  });
  return state;
}
