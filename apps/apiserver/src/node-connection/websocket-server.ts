// The server side of a WebSocket (RFC 6455) on an already upgraded HTTP/1.1 socket: the handshake answer with
// the chosen subprotocol, masked client frames in, unmasked frames out, pings answered, fragmented messages
// reassembled, and the close handshake. Backpressure is the socket's: `send` returns what socket.write returned
// and 'drain' is the socket's; `pause`/`resume` stop and restart reading the client.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { CONTINUATION: 0x0, TEXT: 0x1, BINARY: 0x2, CLOSE: 0x8, PING: 0x9, PONG: 0xa } as const;
/** Client messages larger than this end the connection (1009): the channels carry stdin and resize events. */
const MAX_MESSAGE = 32 * 1024 * 1024;
/** How long a close handshake we started may take before the socket is destroyed. */
const CLOSE_GRACE_MS = 60_000;

export const isWebSocketRequest = (req: IncomingMessage) =>
  String(req.headers.upgrade ?? '').toLowerCase() === 'websocket' && /\bupgrade\b/i.test(String(req.headers.connection ?? ''));

/** The subprotocols the client offers, in its order of preference. */
export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  const values = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return values.flatMap((v) => v.split(',')).map((p) => p.trim()).filter(Boolean);
}

/** The 101 answer that accepts the client's handshake with `protocol`. */
export function handshakeResponse(req: IncomingMessage, protocol: string): string {
  const key = String(req.headers['sec-websocket-key'] ?? '');
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  return ['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`, `Sec-WebSocket-Protocol: ${protocol}`, '', ''].join('\r\n');
}

/** One frame as a server writes it: FIN set, no mask. */
export function encodeFrame(opcode: number, payload: Buffer): Buffer {
  let head: Buffer;
  if (payload.length < 126) {
    head = Buffer.from([0x80 | opcode, payload.length]);
  } else if (payload.length < 0x10000) {
    head = Buffer.alloc(4);
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(payload.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  return Buffer.concat([head, payload]);
}

export interface WebSocketFrame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** Cuts frames out of the client's bytes and unmasks them; a partial frame waits for the next chunk. */
export class FrameParser {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): WebSocketFrame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: WebSocketFrame[] = [];
    for (;;) {
      const b = this.pending;
      if (b.length < 2) break;
      const masked = (b[1] & 0x80) !== 0;
      let len = b[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (b.length < 4) break;
        len = b.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (b.length < 10) break;
        const big = b.readBigUInt64BE(2);
        if (big > BigInt(MAX_MESSAGE)) throw new WebSocketError(1009, 'message too big');
        len = Number(big);
        at = 10;
      }
      if (len > MAX_MESSAGE) throw new WebSocketError(1009, 'message too big');
      const maskAt = at;
      if (masked) at += 4;
      if (b.length < at + len) break;
      const payload = Buffer.from(b.subarray(at, at + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= b[maskAt + (i & 3)];
      frames.push({ fin: (b[0] & 0x80) !== 0, opcode: b[0] & 0x0f, payload });
      this.pending = b.subarray(at + len);
    }
    return frames;
  }
}

export class WebSocketError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/**
 * Events: 'message' (Buffer; binary and text alike, the channel protocols are binary), 'close' (once, when the
 * socket is gone), 'drain'.
 */
export class WebSocketConnection extends EventEmitter {
  private readonly parser = new FrameParser();
  private fragments: Buffer[] = [];
  private closeSent = false;
  private closed = false;

  constructor(readonly socket: Duplex, readonly protocol: string, head: Buffer = Buffer.alloc(0)) {
    super();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.emit('drain'));
    const gone = () => {
      if (this.closed) return;
      this.closed = true;
      this.emit('close');
    };
    socket.once('close', gone);
    socket.once('end', () => socket.end());
    socket.once('error', () => socket.destroy());
    if (head.length > 0) queueMicrotask(() => this.onData(head));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends one binary message; false when the socket's buffer is full (wait for 'drain'). */
  send(payload: Buffer): boolean {
    if (this.closeSent || this.closed) return true;
    return this.socket.write(encodeFrame(OP.BINARY, payload));
  }

  /** Starts the close handshake; the socket ends once the client answers (or goes). */
  close(code = 1000, reason = ''): void {
    if (this.closeSent || this.closed) return;
    this.closeSent = true;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason));
    body.writeUInt16BE(code, 0);
    body.write(reason, 2);
    this.socket.write(encodeFrame(OP.CLOSE, body));
    // A client that neither answers nor leaves is cut off once it had time to read what was sent.
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private onData(chunk: Buffer): void {
    let frames: WebSocketFrame[];
    try {
      frames = this.parser.push(chunk);
    } catch (e) {
      this.close(e instanceof WebSocketError ? e.code : 1002, (e as Error).message);
      this.socket.end();
      return;
    }
    for (const f of frames) {
      if (this.closed) return;
      switch (f.opcode) {
        case OP.PING:
          if (!this.closeSent) this.socket.write(encodeFrame(OP.PONG, f.payload));
          break;
        case OP.PONG:
          break;
        case OP.CLOSE:
          // Our close was answered, or the client closes first: answer it; either way the TCP connection ends.
          if (!this.closeSent) {
            this.closeSent = true;
            this.socket.write(encodeFrame(OP.CLOSE, f.payload.subarray(0, 2)));
          }
          this.socket.end();
          return;
        case OP.TEXT:
        case OP.BINARY:
        case OP.CONTINUATION:
          this.fragments.push(f.payload);
          if (f.fin) {
            const message = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments);
            this.fragments = [];
            this.emit('message', message);
          }
          break;
        default:
          this.close(1002, `unknown opcode ${f.opcode}`);
          this.socket.end();
          return;
      }
    }
  }
}
