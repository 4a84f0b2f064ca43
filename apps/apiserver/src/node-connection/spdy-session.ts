// The client end of a SPDY/3.1 session on an upgraded connection to the node agent, as client-go's SPDY
// round-tripper drives it for remote commands: odd stream ids from 1, one SYN_STREAM per channel, data frames
// with FIN to half-close, pings answered, the peer's replies, resets and GOAWAY observed.
//
// Flow control: windows start at 64 KiB (or what the peer's SETTINGS say). A peer that keeps windows shows it by
// sending SETTINGS or WINDOW_UPDATE; to such a peer every data frame is granted back with a WINDOW_UPDATE once it
// has been handed on (the consumer stops reading the socket while it cannot keep up, which TCP turns into
// backpressure), and our sending is held to its window. The Go spdystream servers of the node's runtime keep no
// windows and never read a WINDOW_UPDATE: sent to them, the updates pile up unread, and when the server closes
// the connection with unread bytes its kernel resets it, losing the output still in flight to us. So toward
// them neither is done, exactly as client-go's own SPDY client behaves.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  DEFAULT_WINDOW, FLAG_FIN, FrameReader, FrameType, RstStatus, SETTINGS_INITIAL_WINDOW_SIZE, dataFrame, parseSettings,
  payloadStreamId, pingFrame, rstStreamFrame, synStreamFrame, windowUpdateFrame, goAwayFrame, type Frame,
} from './spdy-frames';
import { HeaderCompressor, HeaderDecompressor, type HeaderList } from './spdy-headers';

/** Largest data frame we write: small enough to interleave streams, big enough to keep copies few. */
const MAX_DATA_FRAME = 32 * 1024;

/**
 * One stream. Events: 'reply' (the peer's SYN_REPLY headers), 'data' (Buffer), 'end' (the peer half-closed),
 * 'reset' (RST_STREAM or the session ended), 'drain' (queued data went out).
 */
export class SpdyStream extends EventEmitter {
  /** What the peer lets us send before its next WINDOW_UPDATE. */
  sendWindow: number;
  private queue: Buffer[] = [];
  private finQueued = false;
  localClosed = false;
  remoteClosed = false;
  replied = false;

  constructor(private readonly session: SpdyClientSession, readonly id: number, initialWindow: number) {
    super();
    this.sendWindow = initialWindow;
  }

  /** Queues `data` for the peer; false when the caller should wait for 'drain'. */
  write(data: Buffer): boolean {
    if (this.localClosed || data.length === 0) return true;
    this.queue.push(data);
    return this.flush();
  }

  /** Half-closes our side (an empty data frame with FIN once the queue is out). */
  end(): void {
    if (this.localClosed || this.finQueued) return;
    this.finQueued = true;
    this.flush();
  }

  /** @internal the session grants more window or the socket drained: send what waits. */
  flush(): boolean {
    let socketOk = true;
    while (this.queue.length > 0 && !this.localClosed) {
      const head = this.queue[0];
      const allowed = this.session.enforcesPeerWindow ? Math.min(this.sendWindow, MAX_DATA_FRAME) : MAX_DATA_FRAME;
      if (allowed <= 0) return false;
      const piece = head.subarray(0, allowed);
      this.queue[0] = head.subarray(piece.length);
      if (this.queue[0].length === 0) this.queue.shift();
      this.sendWindow -= piece.length;
      socketOk = this.session.writeRaw(dataFrame(this.id, piece)) && socketOk;
    }
    if (this.queue.length === 0 && this.finQueued && !this.localClosed) {
      this.localClosed = true;
      socketOk = this.session.writeRaw(dataFrame(this.id, Buffer.alloc(0), true)) && socketOk;
    }
    return socketOk && this.queue.length === 0;
  }

  get queued(): boolean {
    return this.queue.length > 0;
  }
}

/** Events: 'close' (the connection is gone), 'goaway'. */
export class SpdyClientSession extends EventEmitter {
  private readonly reader = new FrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private nextId = 1;
  private initialWindow = DEFAULT_WINDOW;
  private closed = false;
  /** Set by the first WINDOW_UPDATE: the peer accounts windows, so we honour ours. */
  enforcesPeerWindow = false;
  /** Set by a SETTINGS or WINDOW_UPDATE frame from the peer: it keeps flow control windows, so we grant ours back. */
  peerKeepsWindows = false;
  goneAway = false;

  constructor(readonly socket: Duplex, head: Buffer = Buffer.alloc(0)) {
    super();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      for (const s of this.streams.values()) if (s.queued) s.flush();
      for (const s of this.streams.values()) s.emit('drain');
    });
    const gone = () => this.onClosed();
    socket.once('close', gone);
    socket.once('end', () => socket.end());
    socket.once('error', () => socket.destroy());
    if (head.length > 0) queueMicrotask(() => this.onData(head));
  }

  /** Opens a stream with `headers` (a SYN_STREAM); the peer's answer arrives as the stream's 'reply'. */
  openStream(headers: HeaderList): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const stream = new SpdyStream(this, id, this.initialWindow);
    this.streams.set(id, stream);
    this.writeRaw(synStreamFrame(id, this.compressor.compress(headers)));
    return stream;
  }

  /** Resolves once the peer replied to `stream`; rejects if it resets it or the session ends first. */
  static replied(stream: SpdyStream): Promise<void> {
    if (stream.replied) return Promise.resolve();
    return new Promise((resolve, reject) => {
      stream.once('reply', () => resolve());
      stream.once('reset', (why: string) => reject(new Error(why)));
    });
  }

  /** @internal */
  writeRaw(frame: Buffer): boolean {
    // Once the connection is ended (the peer ended first, or close()), nothing more can go out.
    if (this.closed || this.socket.writableEnded) return true;
    return this.socket.write(frame);
  }

  /** Tells the peer we are done (GOAWAY) and ends the connection. */
  close(): void {
    if (this.closed) return;
    this.writeRaw(goAwayFrame(0));
    this.socket.end();
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

  private onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) if (!s.remoteClosed) s.emit('reset', 'connection closed');
    this.streams.clear();
    this.compressor.close();
    this.decompressor.close();
    this.emit('close');
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
      for (const f of frames) this.onFrame(f);
    } catch (e) {
      this.emit('protocolError', e);
      this.socket.destroy();
    }
  }

  private onFrame(f: Frame): void {
    if (f.type === 'data') {
      const stream = this.streams.get(f.streamId);
      if (!stream) return;
      if (f.data.length > 0) {
        stream.emit('data', f.data);
        // Handed on: grant the bytes back, to a peer that keeps windows (see the top of this file).
        if (!(f.flags & FLAG_FIN) && this.peerKeepsWindows) this.writeRaw(windowUpdateFrame(f.streamId, f.data.length));
      }
      if (f.flags & FLAG_FIN) this.remoteFinished(stream);
      return;
    }
    switch (f.kind) {
      case FrameType.SYN_REPLY: {
        const stream = this.streams.get(payloadStreamId(f.payload));
        // Decompressed even when unused: the inflate context must see every block.
        const headers = this.decompressor.decompress(f.payload.subarray(4));
        if (!stream) return;
        stream.replied = true;
        stream.emit('reply', headers);
        if (f.flags & FLAG_FIN) this.remoteFinished(stream);
        return;
      }
      case FrameType.HEADERS: {
        const stream = this.streams.get(payloadStreamId(f.payload));
        this.decompressor.decompress(f.payload.subarray(4));
        if (stream && f.flags & FLAG_FIN) this.remoteFinished(stream);
        return;
      }
      case FrameType.SYN_STREAM:
        // The remote command and port-forward servers never open streams toward the client.
        this.decompressor.decompress(f.payload.subarray(10));
        this.writeRaw(rstStreamFrame(payloadStreamId(f.payload), RstStatus.PROTOCOL_ERROR));
        return;
      case FrameType.RST_STREAM: {
        const stream = this.streams.get(payloadStreamId(f.payload));
        if (!stream) return;
        this.streams.delete(stream.id);
        stream.localClosed = true;
        stream.remoteClosed = true;
        stream.emit('reset', `stream reset (status ${f.payload.readUInt32BE(4)})`);
        return;
      }
      case FrameType.SETTINGS:
        this.peerKeepsWindows = true;
        for (const { id, value } of parseSettings(f.payload)) {
          if (id !== SETTINGS_INITIAL_WINDOW_SIZE) continue;
          const delta = value - this.initialWindow;
          this.initialWindow = value;
          for (const s of this.streams.values()) s.sendWindow += delta;
        }
        return;
      case FrameType.WINDOW_UPDATE: {
        this.enforcesPeerWindow = true;
        this.peerKeepsWindows = true;
        const stream = this.streams.get(payloadStreamId(f.payload));
        if (!stream) return;
        stream.sendWindow += f.payload.readUInt32BE(4) & 0x7fffffff;
        if (stream.queued) stream.flush();
        stream.emit('drain');
        return;
      }
      case FrameType.PING: {
        // Even ids are the server's: echo them; odd ones would answer our own pings (we send none).
        const id = f.payload.readUInt32BE(0);
        if (id % 2 === 0) this.writeRaw(pingFrame(id));
        return;
      }
      case FrameType.GOAWAY:
        this.goneAway = true;
        this.emit('goaway');
        return;
      default:
        return;
    }
  }

  private remoteFinished(stream: SpdyStream): void {
    if (stream.remoteClosed) return;
    stream.remoteClosed = true;
    stream.emit('end');
  }
}
