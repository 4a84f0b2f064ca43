// SPDY/3.1 framing (draft-mbelshe-httpbis-spdy-00 with the 3.1 flow control), the wire the node agent's runtime
// streaming server speaks for exec, attach and port-forward once a connection is upgraded to `SPDY/3.1`. Only
// the encoding and decoding of frames lives here; header block compression is spdy-headers.ts, the session
// (stream ids, replies, windows) spdy-session.ts.

export const SPDY_VERSION = 3;

export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** FLAG_FIN on data, SYN_STREAM, SYN_REPLY and HEADERS frames: the sender's half of the stream ends. */
export const FLAG_FIN = 0x01;
/** SETTINGS id 7: the initial per-stream window the sender of the SETTINGS frame grants. */
export const SETTINGS_INITIAL_WINDOW_SIZE = 7;
/** The initial stream window of SPDY/3.1 until a SETTINGS frame says otherwise. */
export const DEFAULT_WINDOW = 64 * 1024;
/** RST_STREAM status codes used here. */
export const RstStatus = { PROTOCOL_ERROR: 1, CANCEL: 5, INTERNAL_ERROR: 6 } as const;

export type Frame =
  | { type: 'data'; streamId: number; flags: number; data: Buffer }
  | { type: 'control'; kind: number; flags: number; payload: Buffer };

/** A data frame: 31-bit stream id, 8-bit flags, 24-bit length, the bytes. */
export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  if (data.length > 0xffffff) throw new Error(`SPDY data frame of ${data.length} bytes is too long`);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

/** A control frame: the control bit and version, the type, flags and the 24-bit payload length. */
export function controlFrame(kind: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(kind, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

const u32 = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
};

/** SYN_STREAM: stream id, associated stream (none), priority 0 and slot 0, then the compressed header block. */
export function synStreamFrame(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  return controlFrame(FrameType.SYN_STREAM, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff, 0), Buffer.from([0, 0]), headerBlock]));
}

export const rstStreamFrame = (streamId: number, status: number) => controlFrame(FrameType.RST_STREAM, 0, u32(streamId & 0x7fffffff, status));
export const windowUpdateFrame = (streamId: number, delta: number) => controlFrame(FrameType.WINDOW_UPDATE, 0, u32(streamId & 0x7fffffff, delta & 0x7fffffff));
export const pingFrame = (id: number) => controlFrame(FrameType.PING, 0, u32(id));
export const goAwayFrame = (lastGoodStreamId: number, status = 0) => controlFrame(FrameType.GOAWAY, 0, u32(lastGoodStreamId & 0x7fffffff, status));

export function settingsFrame(entries: ReadonlyArray<{ id: number; value: number; flags?: number }>): Buffer {
  const body = Buffer.alloc(4 + 8 * entries.length);
  body.writeUInt32BE(entries.length, 0);
  entries.forEach((e, i) => {
    body.writeUInt32BE((((e.flags ?? 0) & 0xff) << 24) | (e.id & 0xffffff), 4 + 8 * i);
    body.writeUInt32BE(e.value >>> 0, 8 + 8 * i);
  });
  return controlFrame(FrameType.SETTINGS, 0, body);
}

/** The id/value pairs of a SETTINGS frame's payload. */
export function parseSettings(payload: Buffer): Array<{ id: number; value: number }> {
  const count = payload.readUInt32BE(0);
  const out: Array<{ id: number; value: number }> = [];
  for (let i = 0; i < count && 12 + 8 * i <= payload.length; i++) {
    out.push({ id: payload.readUInt32BE(4 + 8 * i) & 0xffffff, value: payload.readUInt32BE(8 + 8 * i) });
  }
  return out;
}

/** The stream id that the first 31 bits of a control payload name (SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE). */
export const payloadStreamId = (payload: Buffer) => payload.readUInt32BE(0) & 0x7fffffff;

/**
 * Cuts frames out of a byte stream: `push` takes whatever the socket delivered and returns the whole frames it
 * completes, keeping a partial frame for the next call.
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Frame[] = [];
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4) & 0xffffff;
      if (this.pending.length < 8 + length) break;
      const flags = this.pending[4];
      const body = this.pending.subarray(8, 8 + length);
      if (this.pending[0] & 0x80) {
        const version = this.pending.readUInt16BE(0) & 0x7fff;
        if (version !== SPDY_VERSION) throw new Error(`unsupported SPDY version ${version}`);
        frames.push({ type: 'control', kind: this.pending.readUInt16BE(2), flags, payload: Buffer.from(body) });
      } else {
        frames.push({ type: 'data', streamId: this.pending.readUInt32BE(0) & 0x7fffffff, flags, data: Buffer.from(body) });
      }
      this.pending = this.pending.subarray(8 + length);
    }
    return frames;
  }
}
