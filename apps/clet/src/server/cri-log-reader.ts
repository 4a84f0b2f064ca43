// Reads a container log file in the CRI format (`<RFC3339Nano time> <stdout|stderr> <P|F> <text>`, one
// entry per line, written by the runtime) the way the kubelet's ReadLogs does: tail lines, since time,
// byte limit, timestamps, and follow until the container stops, reopening the file after rotation.
import { open, stat, type FileHandle } from 'node:fs/promises';

export interface LogReadOptions {
  follow: boolean;
  /** Last N lines of the file; undefined means all. */
  tailLines?: number;
  /** Stop after this many bytes of output. */
  limitBytes?: number;
  timestamps: boolean;
  /** Skip entries older than this (ms since the epoch). */
  sinceMs?: number;
}

export interface LogSink {
  /** Resolves once the bytes may be followed by more (backpressure). */
  write(chunk: Buffer): Promise<void>;
  readonly closed: boolean;
}

export interface ParsedEntry {
  time: string;
  timeMs: number;
  stream: 'stdout' | 'stderr';
  partial: boolean;
  /** The entry's text; a full entry ends with a newline. */
  log: Buffer;
}

/** Parses one line (without its newline); null when it is not a CRI log line. */
export function parseCriLine(line: Buffer): ParsedEntry | null {
  const s1 = line.indexOf(0x20);
  if (s1 < 0) return null;
  const s2 = line.indexOf(0x20, s1 + 1);
  if (s2 < 0) return null;
  const stream = line.subarray(s1 + 1, s2).toString();
  if (stream !== 'stdout' && stream !== 'stderr') return null;
  let s3 = line.indexOf(0x20, s2 + 1);
  if (s3 < 0) s3 = line.length;
  const tag = line.subarray(s2 + 1, s3).toString();
  const time = line.subarray(0, s1).toString();
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) return null;
  const partial = tag.split(':')[0] === 'P';
  const text = line.subarray(Math.min(s3 + 1, line.length));
  return { time, timeMs, stream, partial, log: partial ? Buffer.from(text) : Buffer.concat([text, Buffer.from('\n')]) };
}

/** RFC3339 with exactly nine fractional digits (Go's RFC3339NanoFixed), keeping the zone as written. */
export function fixedNanoTime(time: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/.exec(time);
  if (!m) return time;
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0').slice(0, 9)}${m[3]}`;
}

/** Byte offset where the last `n` lines of the file begin. */
export async function tailStart(fh: FileHandle, size: number, n: number): Promise<number> {
  if (n <= 0) return size;
  const chunk = 64 * 1024;
  let pos = size;
  let seen = 0;
  // A final newline ends the last line; it does not start a new one.
  let skipLast = true;
  while (pos > 0) {
    const len = Math.min(chunk, pos);
    pos -= len;
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, pos);
    for (let i = len - 1; i >= 0; i--) {
      if (buf[i] !== 0x0a) continue;
      if (skipLast && pos + i === size - 1) continue;
      if (++seen === n) return pos + i + 1;
    }
    skipLast = false;
  }
  return 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes the log to the sink. `stillRunning` tells follow mode when to stop (the container exited and
 * everything written so far has been read); `signal` ends it early (the client went away).
 */
export async function readCriLog(path: string, opts: LogReadOptions, sink: LogSink, stillRunning: () => Promise<boolean>, signal: AbortSignal): Promise<void> {
  let fh = await open(path, 'r');
  try {
    const first = await fh.stat();
    let ino = first.ino;
    let pos = opts.tailLines !== undefined ? await tailStart(fh, first.size, opts.tailLines) : 0;
    // Without follow the log is read as it was when the request came: lines the container writes while a slow
    // client takes the answer are not added (`--tail=1` is one line).
    const end = opts.follow ? Infinity : first.size;
    let pending = Buffer.alloc(0);
    let left = opts.limitBytes ?? Infinity;
    let lastRunningCheck = 0;
    const buf = Buffer.alloc(64 * 1024);

    const emit = async (line: Buffer): Promise<boolean> => {
      const e = parseCriLine(line);
      if (!e) return true; // upstream skips lines it cannot parse
      if (opts.sinceMs !== undefined && e.timeMs < opts.sinceMs) return true;
      let out = opts.timestamps ? Buffer.concat([Buffer.from(fixedNanoTime(e.time) + ' '), e.log]) : e.log;
      if (out.length > left) out = out.subarray(0, left);
      left -= out.length;
      if (out.length > 0) await sink.write(out);
      return left > 0 && !sink.closed;
    };

    for (;;) {
      if (signal.aborted || sink.closed) return;
      const { bytesRead } = pos < end ? await fh.read(buf, 0, Math.min(buf.length, end - pos), pos) : { bytesRead: 0 };
      if (bytesRead > 0) {
        pos += bytesRead;
        pending = Buffer.concat([pending, buf.subarray(0, bytesRead)]);
        let nl: number;
        while ((nl = pending.indexOf(0x0a)) >= 0) {
          const line = pending.subarray(0, nl);
          pending = pending.subarray(nl + 1);
          if (!(await emit(line))) return;
        }
        continue;
      }
      if (!opts.follow) return;
      // At the end of the file: a rotated file is reopened from its start; otherwise wait for more,
      // ending once the container has stopped and nothing new arrived.
      const now = await stat(path).catch(() => null);
      if (now && now.ino !== ino) {
        await fh.close();
        fh = await open(path, 'r');
        ino = (await fh.stat()).ino;
        pos = 0;
        pending = Buffer.alloc(0);
        continue;
      }
      if (Date.now() - lastRunningCheck >= 1000) {
        lastRunningCheck = Date.now();
        if (!(await stillRunning())) {
          // One last read: the runtime may have written the final lines just before it stopped.
          const { bytesRead: more } = await fh.read(buf, 0, 1, pos);
          if (more === 0) return;
          continue;
        }
      }
      await sleep(100);
    }
  } finally {
    await fh.close();
  }
}
