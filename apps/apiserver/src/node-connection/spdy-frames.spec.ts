import * as zlib from 'node:zlib';
import {
  DEFAULT_WINDOW, FLAG_FIN, FrameReader, FrameType, dataFrame, goAwayFrame, parseSettings, payloadStreamId, pingFrame,
  rstStreamFrame, settingsFrame, synStreamFrame, windowUpdateFrame,
} from './spdy-frames';
import { HeaderCompressor, HeaderDecompressor, SPDY3_DICTIONARY, adler32, decodeHeaderBlock, encodeHeaderBlock } from './spdy-headers';

describe('SPDY/3.1 frames', () => {
  // Known vectors: the bytes SPDY/3 defines for each frame.
  test.each<[string, Buffer, string]>([
    ['data on stream 1', dataFrame(1, Buffer.from('hi')), '00000001' + '00000002' + '6869'],
    ['empty data with FIN on stream 3', dataFrame(3, Buffer.alloc(0), true), '00000003' + '01000000'],
    ['RST_STREAM 5 CANCEL', rstStreamFrame(5, 5), '80030003' + '00000008' + '00000005' + '00000005'],
    ['WINDOW_UPDATE 1 +65536', windowUpdateFrame(1, 65536), '80030009' + '00000008' + '00000001' + '00010000'],
    ['PING 2', pingFrame(2), '80030006' + '00000004' + '00000002'],
    ['GOAWAY last 0', goAwayFrame(0), '80030007' + '00000008' + '00000000' + '00000000'],
    ['SETTINGS initial window 128 KiB', settingsFrame([{ id: 7, value: 131072 }]), '80030004' + '0000000c' + '00000001' + '00000007' + '00020000'],
    ['SYN_STREAM 1 with a 2-byte block', synStreamFrame(1, Buffer.from([0xab, 0xcd])), '80030001' + '0000000c' + '00000001' + '00000000' + '0000' + 'abcd'],
  ])('%s', (_name, frame, hex) => {
    expect(frame.toString('hex')).toBe(hex);
  });

  test('the reader cuts frames out of arbitrary chunks and keeps partial ones', () => {
    const bytes = Buffer.concat([dataFrame(1, Buffer.from('hello')), windowUpdateFrame(3, 10), dataFrame(5, Buffer.alloc(0), true)]);
    const reader = new FrameReader();
    const frames = [];
    for (let i = 0; i < bytes.length; i += 3) frames.push(...reader.push(bytes.subarray(i, i + 3)));
    expect(frames).toEqual([
      { type: 'data', streamId: 1, flags: 0, data: Buffer.from('hello') },
      { type: 'control', kind: FrameType.WINDOW_UPDATE, flags: 0, payload: Buffer.from('000000030000000a', 'hex') },
      { type: 'data', streamId: 5, flags: FLAG_FIN, data: Buffer.alloc(0) },
    ]);
    expect(payloadStreamId((frames[1] as { payload: Buffer }).payload)).toBe(3);
  });

  test('a frame of another SPDY version is refused', () => {
    expect(() => new FrameReader().push(Buffer.from('8002000100000000', 'hex'))).toThrow('unsupported SPDY version 2');
  });

  test('settings round trip and the default window', () => {
    const f = settingsFrame([{ id: 7, value: 1000 }, { id: 4, value: 100 }]);
    expect(parseSettings(f.subarray(8))).toEqual([{ id: 7, value: 1000 }, { id: 4, value: 100 }]);
    expect(DEFAULT_WINDOW).toBe(65536);
  });
});

describe('SPDY/3 header blocks', () => {
  test('the dictionary is the 1423 bytes of SPDY/3 (a peer checks its Adler-32 in each stream header)', () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    expect(SPDY3_DICTIONARY.subarray(0, 11).toString('latin1')).toBe('\0\0\0\x07options');
    expect(SPDY3_DICTIONARY.subarray(-6).toString('latin1')).toBe('enq=0.');
  });

  test('the uncompressed block: count, lower-cased names, repeated values joined by NUL', () => {
    const block = encodeHeaderBlock([['StreamType', 'error'], ['a', '1'], ['a', '2']]);
    expect(block.toString('hex')).toBe('00000002' + '0000000a' + Buffer.from('streamtype').toString('hex') + '00000005' + Buffer.from('error').toString('hex') + '00000001' + '61' + '00000003' + '310032');
    expect(decodeHeaderBlock(block)).toEqual([['streamtype', 'error'], ['a', '1'], ['a', '2']]);
  });

  test('blocks continue one zlib stream per direction and round trip in order', () => {
    const c = new HeaderCompressor();
    const d = new HeaderDecompressor();
    const first = c.compress([['streamtype', 'error']]);
    const second = c.compress([['streamtype', 'stdout'], ['port', '8080']]);
    // The first block starts the zlib stream with FDICT and the SPDY/3 dictionary's Adler-32; later ones continue it.
    expect(first.subarray(0, 2).toString('hex')).toBe('7820');
    expect(first.readUInt32BE(2)).toBe(adler32(SPDY3_DICTIONARY));
    expect(second[0]).toBe(0x00);
    // Each block ends with the sync flush marker, as a zlib Z_SYNC_FLUSH ends it.
    expect(first.subarray(-5).toString('hex')).toBe('000000ffff');
    expect(second.subarray(-5).toString('hex')).toBe('000000ffff');
    expect(d.decompress(first)).toEqual([['streamtype', 'error']]);
    expect(d.decompress(second)).toEqual([['streamtype', 'stdout'], ['port', '8080']]);
    // zlib itself reads the two blocks as one stream primed with the dictionary.
    const inflated = zlib.inflateSync(Buffer.concat([first, second]), { dictionary: SPDY3_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    expect(inflated.equals(Buffer.concat([encodeHeaderBlock([['streamtype', 'error']]), encodeHeaderBlock([['streamtype', 'stdout'], ['port', '8080']])]))).toBe(true);
  });

  test('Adler-32 of a known vector', () => {
    expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
  });

  test('blocks compressed by real zlib in one shared context (as a Go peer sends them) inflate in order', async () => {
    const deflate = zlib.createDeflate({ dictionary: SPDY3_DICTIONARY });
    const out: Buffer[] = [];
    deflate.on('data', (b: Buffer) => out.push(b));
    const block = async (h: Array<[string, string]>) => {
      out.length = 0;
      deflate.write(encodeHeaderBlock(h));
      await new Promise<void>((r) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => r()));
      return Buffer.concat(out);
    };
    const a = await block([['x-a', '1']]);
    const b = await block([['x-a', '1'], ['x-b', '2']]);
    const d = new HeaderDecompressor();
    expect(d.decompress(a)).toEqual([['x-a', '1']]);
    expect(d.decompress(b)).toEqual([['x-a', '1'], ['x-b', '2']]);
    deflate.close();
  });

  test('a block deflated by a plain zlib stream with the dictionary inflates here', () => {
    const deflated = zlib.deflateSync(encodeHeaderBlock([[':status', '101']]), { dictionary: SPDY3_DICTIONARY });
    expect(new HeaderDecompressor().decompress(deflated)).toEqual([[':status', '101']]);
  });
});
