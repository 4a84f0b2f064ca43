// Upgrading a fresh connection to the node agent to SPDY/3.1 for one stream protocol (what client-go's SPDY
// round-tripper does): the request with `Upgrade: SPDY/3.1` and the offered X-Stream-Protocol-Version values, then
// the agent's answer read off the socket by hand, because the bytes after a 101 belong to the session.
import type { Duplex } from 'node:stream';
import { hostPort, type NodeConnection } from './node-address';

export interface UpgradeAnswer {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Bytes that arrived after the head: the session's first frames after a 101, the body's start otherwise. */
  rest: Buffer;
}

export function spdyUpgradeRequest(method: string, node: NodeConnection, path: string, protocols: readonly string[]): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostPort(node)}`, 'Connection: Upgrade', 'Upgrade: SPDY/3.1', 'Content-Length: 0'];
  for (const p of protocols) lines.push(`X-Stream-Protocol-Version: ${p}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

/** Parses an HTTP/1.1 response head (status line and headers) out of `head`. */
export function parseResponseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) throw new Error(`malformed HTTP response ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(m[1]), headers };
}

/** Writes the upgrade request on `socket` and resolves with the agent's answer once its head is in. */
export function upgradeToSpdy(socket: Duplex, request: string): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > 64 * 1024) fail(new Error('the node agent sent an oversized response head'));
        return;
      }
      cleanup();
      // What follows is left unread until the caller attaches its own reader.
      socket.pause();
      try {
        resolve({ ...parseResponseHead(buf.subarray(0, end).toString('latin1')), rest: buf.subarray(end + 4) });
      } catch (e) {
        reject(e);
      }
    };
    const fail = (e: Error) => {
      cleanup();
      reject(e);
    };
    const closed = () => fail(new Error('the node agent closed the connection before answering the upgrade'));
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('close', closed);
    };
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('close', closed);
    socket.write(request);
  });
}

/** Reads what remains of a refused upgrade's body (at most `limit` bytes) for the caller's error. */
export function readRest(socket: Duplex, first: Buffer, limit = 4096): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks = [first];
    let size = first.length;
    const done = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).subarray(0, limit));
    };
    if (size >= limit) return done();
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size >= limit) done();
    });
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
    socket.resume();
    // An error answer with a known length ends there even on a kept-alive connection.
    setTimeout(done, 2000).unref();
  });
}
