// A minimal WebSocket client for the channel protocols of exec, attach and port-forward
// (v4.channel.k8s.io: every binary message starts with its channel byte), over TLS with a client
// certificate, so the tests reach the node agent the way an API server would.
import { randomBytes } from 'node:crypto';
import { connect, type TLSSocket } from 'node:tls';

export interface WsResult {
  /** HTTP status of the handshake answer (101 when upgraded). */
  status: number;
  /** Handshake body when the server refused the upgrade. */
  body: string;
  /** Data per channel, in arrival order. */
  channels: Record<number, Buffer>;
  /** The first message of each channel (port-forward sends the port there). */
  first: Record<number, Buffer>;
}

export interface WsOptions {
  cert?: string;
  key?: string;
  protocol?: string;
  /** Called once upgraded; may send messages with `send(channel, data)`. */
  onOpen?: (send: (channel: number, data: Buffer | string) => void, result: WsResult) => void;
  /** Ends the exchange once this returns true for the collected data. */
  until?: (r: WsResult) => boolean;
}

function frame(payload: Buffer, opcode: number): Buffer {
  const mask = randomBytes(4);
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, 0x80 | len]) : Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 0xff]);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, mask, body]);
}

export function wsRequest(url: string, opts: WsOptions = {}): Promise<WsResult> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({ host: u.hostname, port: Number(u.port), cert: opts.cert, key: opts.key, rejectUnauthorized: false });
    const result: WsResult = { status: 0, body: '', channels: {}, first: {} };
    let buf = Buffer.alloc(0);
    let upgraded = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(result);
    };
    const send = (channel: number, data: Buffer | string) => socket.write(frame(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]), 2));
    socket.once('secureConnect', () => {
      socket.write(
        [
          `GET ${u.pathname}${u.search} HTTP/1.1`,
          `Host: ${u.host}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          `Sec-WebSocket-Protocol: ${opts.protocol ?? 'v4.channel.k8s.io'}`,
          '',
          '',
        ].join('\r\n'),
      );
    });
    socket.on('error', (e) => (done ? undefined : upgraded ? finish() : reject(e)));
    socket.on('close', finish);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        result.status = Number(head.split(' ')[1]);
        buf = buf.subarray(end + 4);
        if (result.status !== 101) {
          result.body = buf.toString();
          socket.on('data', () => (result.body = buf.toString()));
          socket.once('end', finish);
          setTimeout(finish, 1000);
          return;
        }
        upgraded = true;
        opts.onOpen?.(send, result);
      }
      // Server frames are never masked.
      while (buf.length >= 2) {
        const opcode = buf[0] & 0x0f;
        let len = buf[1] & 0x7f;
        let off = 2;
        if (len === 126) {
          if (buf.length < 4) return;
          len = buf.readUInt16BE(2);
          off = 4;
        } else if (len === 127) {
          if (buf.length < 10) return;
          len = Number(buf.readBigUInt64BE(2));
          off = 10;
        }
        if (buf.length < off + len) return;
        const payload = buf.subarray(off, off + len);
        buf = buf.subarray(off + len);
        if (opcode === 8) {
          socket.write(frame(Buffer.alloc(0), 8));
          return finish();
        }
        if ((opcode === 2 || opcode === 0) && payload.length > 0) {
          const ch = payload[0];
          const data = payload.subarray(1);
          if (!(ch in result.first)) result.first[ch] = Buffer.from(data);
          result.channels[ch] = Buffer.concat([result.channels[ch] ?? Buffer.alloc(0), data]);
        }
        if (opts.until?.(result)) return finish();
      }
    });
  });
}
