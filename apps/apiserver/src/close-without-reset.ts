// Ending a connection whose client may still be sending (a refused body, a request the parser refused): closing a
// socket with unread input makes the kernel reset it, and a reset can destroy the answer before the client read it
// (kubectl then prints "connection reset by peer"). So the answer is followed by a half-close, what still arrives is
// read and dropped for a moment, and only then is the socket destroyed, as Go's server does (closeWriteAndWait).
import type { Duplex } from 'node:stream';

const LINGER_MS = 500;
const closing = new WeakSet<Duplex>();

/** Whether `socket` is already being closed this way. */
export function isClosingWithoutReset(socket: Duplex): boolean {
  return closing.has(socket);
}

/** Writes `last` (if any), half-closes, drains for a moment, then destroys; once per socket. */
export function closeWithoutReset(socket: Duplex, last?: string): void {
  if (closing.has(socket)) return;
  closing.add(socket);
  socket.on('data', () => undefined).resume();
  socket.end(last);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
