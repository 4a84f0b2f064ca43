// A finished container's termination message, as upstream's toKubeContainerStatus builds it: the file
// mounted at terminationMessagePath (its last 4096 bytes), or with FallbackToLogsOnError and a
// non-zero exit and an empty file, the tail of the container's log (last 80 lines, at most 2048 bytes),
// read across the latest log rotation.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContainerStatus as CriContainerStatus } from '@cl/cri';
import { ANN_TERMINATION_MESSAGE_PATH, ANN_TERMINATION_MESSAGE_POLICY } from './runtime-spec';

const MAX_MESSAGE_BYTES = 4096;
const MAX_LOG_LINES = 80;
const MAX_LOG_BYTES = 2048;

/** The last `max` bytes of a file. */
function tailBytes(file: string, max: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, max);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

/** Raw bytes read from the end of a log: enough for 80 lines of up to 2 KiB of content, plus each line's prefix. */
const LOG_WINDOW_BYTES = MAX_LOG_BYTES + MAX_LOG_LINES * 64;

/** The message parts (`text` plus "\n" for a full line) of the rows at the end of one CRI log file (`<time> <stream> <P|F> <text>`). */
function tailParts(file: string): string[] {
  let text: string;
  try {
    text = tailBytes(file, LOG_WINDOW_BYTES).toString('utf8');
  } catch {
    return [];
  }
  const rows = text.split('\n');
  if (!text.endsWith('\n')) rows.pop(); // a line still being written
  const parsed = rows.filter(Boolean).map((r) => /^\S+ (?:stdout|stderr) ([PF]) ?(.*)$/.exec(r)).filter((m): m is RegExpExecArray => !!m);
  // A first row cut by the byte window is dropped when the window started inside it.
  if (text.length >= LOG_WINDOW_BYTES && parsed.length) parsed.shift();
  return parsed.map((m) => (m[1] === 'F' ? `${m[2]}\n` : m[2]));
}

const fullLines = (parts: readonly string[]) => parts.reduce((n, p) => n + (p.endsWith('\n') ? 1 : 0), 0);

/**
 * The newest rotated file of a container log (`<log>.<YYYYMMDD-HHMMSS>`, the one rotation leaves
 * uncompressed), or undefined.
 */
function newestRotated(logPath: string): string | undefined {
  const base = path.basename(logPath);
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(logPath));
  } catch {
    return undefined;
  }
  const rotated = names.filter((n) => n.length === base.length + 16 && n.startsWith(`${base}.`) && /^\d{8}-\d{6}$/.test(n.slice(base.length + 1))).sort();
  return rotated.length ? path.join(path.dirname(logPath), rotated[rotated.length - 1]) : undefined;
}

/**
 * The message content of the last lines of a container's log. When the live file holds fewer than 80
 * lines, the newest rotated file supplies the earlier ones: log rotation runs while the container does,
 * and one that rotates just before the exit would otherwise leave an empty (or cut) message.
 */
export function logTail(logPath: string): string {
  let out = tailParts(logPath);
  if (fullLines(out) < MAX_LOG_LINES) {
    const rotated = newestRotated(logPath);
    if (rotated) out = tailParts(rotated).concat(out);
  }
  let lines = 0;
  let i = out.length;
  while (i > 0 && lines < MAX_LOG_LINES) if (out[--i].endsWith('\n')) lines++;
  const joined = Buffer.from(out.slice(i).join(''));
  return joined.subarray(Math.max(0, joined.length - MAX_LOG_BYTES)).toString('utf8');
}

export function terminationMessage(c: CriContainerStatus): string {
  const msgPath = c.annotations[ANN_TERMINATION_MESSAGE_PATH] ?? '';
  const fallback = c.annotations[ANN_TERMINATION_MESSAGE_POLICY] === 'FallbackToLogsOnError' && c.exitCode !== 0 && c.reason !== 'ContainerCannotRun';
  let message = '';
  let checkLogs = fallback;
  const mount = msgPath ? (c.mounts ?? []).find((m) => m.containerPath === msgPath) : undefined;
  if (mount) {
    try {
      message = tailBytes(mount.hostPath, MAX_MESSAGE_BYTES).toString('utf8');
      checkLogs = fallback && message.length === 0;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        message = `Error on reading termination log ${mount.hostPath}: ${(e as Error).message}`;
        checkLogs = false;
      }
    }
  }
  if (checkLogs) message = logTail(c.logPath);
  return message;
}
