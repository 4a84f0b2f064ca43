// An upgraded stream relayed to a node agent as upstream's UpgradeAwareHandler does it: the caller's upgrade
// request is replayed on a fresh connection to the agent (without the caller's credentials, which were for this
// server), then bytes are copied both ways untouched. The agent's answer, 101 or an error, reaches the caller as
// the agent wrote it; either side closing closes the other.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostPort, type NodeConnection } from './node-address';

/** How long a stream's last bytes may take to reach a slow caller once the agent has closed its side. */
const FLUSH_GRACE_MS = 30_000;

/** Headers that are this server's business only: its credentials, impersonation and the hop's own host. */
const DROPPED = (name: string) => name === 'host' || name === 'authorization' || name.startsWith('impersonate-');

/** The caller's upgrade request for the agent's `path`, as raw HTTP/1.1 bytes. */
export function upgradeRequestHead(req: IncomingMessage, node: NodeConnection, path: string): string {
  const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`, `Host: ${hostPort(node)}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (DROPPED(req.rawHeaders[i].toLowerCase())) continue;
    lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  return lines.join('\r\n') + '\r\n\r\n';
}

/** Splices the caller's socket with the agent connection; resolves when both are closed. */
export function relayUpgrade(req: IncomingMessage, res: ServerResponse, client: { socket: Duplex; head: Buffer }, agent: Duplex, head: string): Promise<void> {
  return new Promise((resolve) => {
    // The response object never writes again: the caller's socket now belongs to the stream.
    res.detachSocket(client.socket as Socket);
    agent.write(head);
    if (client.head.length > 0) agent.write(client.head);
    agent.pipe(client.socket);
    client.socket.pipe(agent);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      agent.destroy();
      client.socket.destroy();
      // The response's 'close' (in-flight accounting, metrics) follows its socket's, now detached.
      res.emit('close');
      resolve();
    };
    // The agent finished: its last bytes may still sit in the caller socket's buffer (a slow reader), so the
    // caller's side ends once they are flushed rather than being destroyed with them.
    agent.once('close', () => {
      if (client.socket.destroyed || client.socket.writableFinished) return close();
      client.socket.end();
      client.socket.once('finish', close);
      setTimeout(close, FLUSH_GRACE_MS).unref();
    });
    agent.once('error', close);
    client.socket.once('close', close);
    client.socket.once('error', close);
  });
}
