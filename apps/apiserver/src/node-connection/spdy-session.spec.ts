import { Duplex } from 'node:stream';
import { FLAG_FIN, FrameReader, FrameType, controlFrame, dataFrame, payloadStreamId, rstStreamFrame, settingsFrame, type Frame } from './spdy-frames';
import { HeaderCompressor, HeaderDecompressor } from './spdy-headers';
import { SpdyClientSession, type SpdyStream } from './spdy-session';

/** The two ends of an in-memory connection: the session's socket and the fake server's view of it. */
function pair(): { socket: Duplex; fromClient: () => Frame[]; toClient: (b: Buffer) => void } {
  const reader = new FrameReader();
  const frames: Frame[] = [];
  const socket = new Duplex({
    // Bytes for the session are pushed by the test (toClient), never pulled.
    read() {
      return undefined;
    },
    write(chunk: Buffer, _enc, cb) {
      frames.push(...reader.push(chunk));
      cb();
    },
  });
  return { socket, fromClient: () => frames.splice(0), toClient: (b) => socket.push(b) };
}

const tick = () => new Promise((r) => setImmediate(r));
// The fake server's header compression context; each test's connection starts a fresh one.
let serverHeaders = new HeaderCompressor();
beforeEach(() => {
  serverHeaders = new HeaderCompressor();
});
const synReply = (id: number, fin = false) => {
  const idBytes = Buffer.alloc(4);
  idBytes.writeUInt32BE(id, 0);
  return controlFrame(FrameType.SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([idBytes, serverHeaders.compress([])]));
};

describe('SPDY client session', () => {
  test('streams as client-go opens them: odd ids, headers, replies, data both ways, half-close, reset', async () => {
    const { socket, fromClient, toClient } = pair();
    const session = new SpdyClientSession(socket);
    const error = session.openStream([['streamtype', 'error']]);
    const stdin = session.openStream([['streamtype', 'stdin']]);
    const sent = fromClient();
    expect(sent.map((f) => (f.type === 'control' ? [f.kind, payloadStreamId(f.payload)] : f))).toEqual([[FrameType.SYN_STREAM, 1], [FrameType.SYN_STREAM, 3]]);
    const inflate = new HeaderDecompressor();
    expect(sent.map((f) => inflate.decompress((f as { payload: Buffer }).payload.subarray(10)))).toEqual([[['streamtype', 'error']], [['streamtype', 'stdin']]]);

    toClient(Buffer.concat([synReply(1), synReply(3)]));
    await Promise.all([SpdyClientSession.replied(error), SpdyClientSession.replied(stdin)]);

    stdin.write(Buffer.from('input'));
    stdin.end();
    expect(fromClient()).toEqual([
      { type: 'data', streamId: 3, flags: 0, data: Buffer.from('input') },
      { type: 'data', streamId: 3, flags: FLAG_FIN, data: Buffer.alloc(0) },
    ]);

    const got: string[] = [];
    error.on('data', (d: Buffer) => got.push(d.toString()));
    error.on('end', () => got.push('<end>'));
    stdin.on('reset', (why: string) => got.push(`<reset ${why}>`));
    toClient(Buffer.concat([dataFrame(1, Buffer.from('{"status":"Success"}')), dataFrame(1, Buffer.alloc(0), true), rstStreamFrame(3, 5)]));
    await tick();
    expect(got).toEqual(['{"status":"Success"}', '<end>', '<reset stream reset (status 5)>']);
    // A peer that keeps no windows (the runtime's spdystream) is sent no WINDOW_UPDATE.
    expect(fromClient()).toEqual([]);
  });

  test('to a peer that keeps windows, received data is granted back and sending waits for its window', async () => {
    const { socket, fromClient, toClient } = pair();
    const session = new SpdyClientSession(socket);
    toClient(settingsFrame([{ id: 7, value: 4 }]));
    await tick();
    const s: SpdyStream = session.openStream([['streamtype', 'stdout']]);
    fromClient();
    toClient(synReply(1));
    toClient(dataFrame(1, Buffer.from('abc')));
    await tick();
    expect(fromClient()).toEqual([{ type: 'control', kind: FrameType.WINDOW_UPDATE, flags: 0, payload: Buffer.from('0000000100000003', 'hex') }]);

    // The peer's window is 4 bytes (its SETTINGS) and it has shown it grants windows: 4 go, 2 wait.
    toClient(controlFrame(FrameType.WINDOW_UPDATE, 0, Buffer.from('0000000100000000', 'hex')));
    await tick();
    expect(s.write(Buffer.from('abcdef'))).toBe(false);
    expect(fromClient()).toEqual([{ type: 'data', streamId: 1, flags: 0, data: Buffer.from('abcd') }]);
    toClient(controlFrame(FrameType.WINDOW_UPDATE, 0, Buffer.from('0000000100000010', 'hex')));
    await tick();
    expect(fromClient()).toEqual([{ type: 'data', streamId: 1, flags: 0, data: Buffer.from('ef') }]);
  });

  test('server pings are answered; a closed connection resets the open streams', async () => {
    const { socket, fromClient, toClient } = pair();
    const session = new SpdyClientSession(socket);
    const s = session.openStream([['streamtype', 'error']]);
    fromClient();
    const replied = SpdyClientSession.replied(s);
    toClient(controlFrame(FrameType.PING, 0, Buffer.from('00000002', 'hex')));
    await tick();
    expect(fromClient()).toEqual([{ type: 'control', kind: FrameType.PING, flags: 0, payload: Buffer.from('00000002', 'hex') }]);
    socket.destroy();
    await expect(replied).rejects.toThrow('connection closed');
  });
});
