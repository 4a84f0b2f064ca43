// SPDY/3 header blocks: name/value pairs with 32-bit lengths, compressed with zlib primed with the SPDY/3
// dictionary. Each direction of a connection has ONE compression context for its whole life (a block is
// deflated with a sync flush so the peer can inflate it at once, and the next block continues the same
// stream), so a compressor and a decompressor are made per session and used in frame order.
import * as zlib from 'node:zlib';

/** The words of the SPDY/3 dictionary that are written with a 32-bit length before them. */
const DICTIONARY_WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag',
  'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since',
  'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer',
  'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
  'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive',
  'origin',
];

/** The dictionary's tail, written as is. */
const DICTIONARY_TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden' +
  '404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

/** The SPDY/3 zlib dictionary (1423 bytes); a peer whose dictionary differs refuses the first header block. */
export const SPDY3_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.flatMap((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length, 0);
    return [len, Buffer.from(w, 'latin1')];
  }),
  Buffer.from(DICTIONARY_TAIL, 'latin1'),
]);

export type HeaderList = ReadonlyArray<readonly [string, string]>;

/** The uncompressed block: pair count, then each lower-cased name and its value (repeated names joined by NUL). */
export function encodeHeaderBlock(headers: HeaderList): Buffer {
  const merged = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    merged.set(key, [...(merged.get(key) ?? []), value]);
  }
  const parts: Buffer[] = [u32(merged.size)];
  for (const [name, values] of merged) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let at = 0;
  const take = () => {
    if (at + 4 > block.length) throw new Error('truncated SPDY header block');
    const len = block.readUInt32BE(at);
    if (at + 4 + len > block.length) throw new Error('truncated SPDY header block');
    const s = block.subarray(at + 4, at + 4 + len).toString('utf8');
    at += 4 + len;
    return s;
  };
  const count = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = take();
    for (const value of take().split('\0')) out.push([name, value]);
  }
  return out;
}

const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v, 0);
  return b;
};

/** Adler-32 (RFC 1950), the dictionary id a zlib stream names in its header. */
export function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; i++) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** zlib's stream header: deflate with a 32 KiB window, FDICT set (check bits make 0x7820 a multiple of 31). */
const ZLIB_HEADER_WITH_DICTIONARY = Buffer.from([0x78, 0x20]);
const SYNC_FLUSH_MARKER = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/**
 * One direction's compressor. Frames must leave in the order their header blocks were made, and Node's zlib
 * streams only answer asynchronously (its synchronous calls close the context after one block). So the blocks
 * are written as deflate *stored* blocks: a valid continuation of one zlib stream whose first bytes name the
 * SPDY/3 dictionary, each block ending byte-aligned as a sync flush would. Header blocks are a few hundred bytes
 * per stream; not compressing them costs nothing that matters here.
 */
export class HeaderCompressor {
  private started = false;

  compress(headers: HeaderList): Buffer {
    const block = encodeHeaderBlock(headers);
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      const dictId = Buffer.alloc(4);
      dictId.writeUInt32BE(adler32(SPDY3_DICTIONARY), 0);
      parts.push(ZLIB_HEADER_WITH_DICTIONARY, dictId);
    }
    for (let at = 0; at < block.length; at += 0xffff) {
      const piece = block.subarray(at, at + 0xffff);
      // BFINAL=0, BTYPE=00 (stored), padded to the byte; then LEN and its complement, little-endian.
      const head = Buffer.from([0x00, piece.length & 0xff, piece.length >> 8, ~piece.length & 0xff, (~piece.length >> 8) & 0xff]);
      parts.push(head, piece);
    }
    // The sync flush marker (an empty stored block): Go's inflater hands out a block's bytes only when it meets
    // one, so without it the peer would wait for the next header block to read this one.
    parts.push(SYNC_FLUSH_MARKER);
    return Buffer.concat(parts);
  }

  close(): void {
    this.started = false;
  }
}

/**
 * The other direction's decompressor: blocks inflated in arrival order as one zlib stream. Node offers no
 * synchronous inflate that keeps its context, so the stream so far is inflated again with a sync flush and the
 * new output taken; a session sees one header block per stream, so the repeated work stays small (and is
 * bounded: past MAX_HEADER_STREAM the blocks are no longer decoded, only counted).
 */
export class HeaderDecompressor {
  private compressed: Buffer[] = [];
  private size = 0;
  private produced = 0;

  decompress(block: Buffer): Array<[string, string]> {
    this.compressed.push(block);
    this.size += block.length;
    if (this.size > MAX_HEADER_STREAM) return [];
    const all = zlib.inflateSync(Buffer.concat(this.compressed), { dictionary: SPDY3_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const fresh = all.subarray(this.produced);
    this.produced = all.length;
    return decodeHeaderBlock(fresh);
  }

  close(): void {
    this.compressed = [];
  }
}

const MAX_HEADER_STREAM = 256 * 1024;
