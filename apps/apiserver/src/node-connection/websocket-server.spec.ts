import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { FrameParser, WebSocketConnection, encodeFrame, handshakeResponse, offeredProtocols } from './websocket-server';

/** A client frame: masked, as RFC 6455 requires of clients. */
function clientFrame(opcode: number, payload: Buffer, fin = true, mask = [1, 2, 3, 4]): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | len]) : Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, len >> 8, len & 0xff]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, Buffer.from(mask), masked]);
}

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('WebSocket server side', () => {
  test('the handshake answer of RFC 6455 section 1.3, with the chosen subprotocol', () => {
    const answer = handshakeResponse(req({ 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' }), 'v5.channel.k8s.io');
    expect(answer).toContain('HTTP/1.1 101 Switching Protocols\r\n');
    expect(answer).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n');
    expect(answer).toContain('Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n');
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
  });

  test.each<[string, Record<string, string>, string[]]>([
    ['kubectl 1.33 exec', { 'sec-websocket-protocol': 'v5.channel.k8s.io, v4.channel.k8s.io' }, ['v5.channel.k8s.io', 'v4.channel.k8s.io']],
    ['port-forward tunnel', { 'sec-websocket-protocol': 'SPDY/3.1+portforward.k8s.io' }, ['SPDY/3.1+portforward.k8s.io']],
    ['none', {}, []],
  ])('offered protocols: %s', (_name, headers, want) => {
    expect(offeredProtocols(req(headers))).toEqual(want);
  });

  test.each<[string, number, string]>([
    ['short', 5, '8205'],
    ['16-bit length', 300, '827e012c'],
    ['64-bit length', 70000, '827f0000000000011170'],
  ])('server frames are unmasked with the shortest length form: %s', (_name, len, head) => {
    const f = encodeFrame(2, Buffer.alloc(len));
    expect(f.subarray(0, head.length / 2).toString('hex')).toBe(head);
    expect(f.length).toBe(head.length / 2 + len);
  });

  test('the parser unmasks client frames split anywhere', () => {
    const bytes = Buffer.concat([clientFrame(2, Buffer.from([0, 104, 105])), clientFrame(2, Buffer.alloc(300, 7))]);
    const p = new FrameParser();
    const frames = [];
    for (const b of bytes) frames.push(...p.push(Buffer.from([b])));
    expect(frames.map((f) => [f.opcode, f.fin, f.payload.length])).toEqual([[2, true, 3], [2, true, 300]]);
    expect([...frames[0].payload]).toEqual([0, 104, 105]);
    expect(frames[1].payload.every((b) => b === 7)).toBe(true);
  });

  test('fragmented messages are reassembled, pings answered and a close answered', () => {
    const socket = new PassThrough();
    const written: Buffer[] = [];
    // What the connection writes is captured, not looped back into its own reader.
    (socket as unknown as { write: (b: Buffer) => boolean }).write = (b: Buffer) => {
      written.push(b);
      return true;
    };
    const ws = new WebSocketConnection(socket as never, 'v5.channel.k8s.io');
    const messages: Buffer[] = [];
    ws.on('message', (m: Buffer) => messages.push(m));
    socket.emit('data', Buffer.concat([clientFrame(2, Buffer.from([0, 97]), false), clientFrame(0, Buffer.from('bc'), true), clientFrame(9, Buffer.from('p'))]));
    expect(messages.map((m) => m.toString('latin1'))).toEqual(['\0abc']);
    expect(written[0].toString('hex')).toBe('8a0170');
    socket.emit('data', clientFrame(8, Buffer.from([0x03, 0xe8])));
    expect(written[1].toString('hex')).toBe('880203e8');
  });
});
