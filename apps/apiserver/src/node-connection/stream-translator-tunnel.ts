// port-forward for WebSocket clients (upstream's TunnelingHandler): kubectl 1.33 opens a WebSocket with the
// subprotocol `SPDY/3.1+portforward.k8s.io` and speaks SPDY inside its binary messages. Here the agent is asked
// for a SPDY upgrade with `portforward.k8s.io`; once it agreed, the client's WebSocket is accepted and bytes are
// copied: each client message's payload to the agent, whatever the agent sends as one binary message. The SPDY
// inside is the client's and the agent's business; no frame is parsed on the way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeStatus } from '@cl/registry';
import { statusFailure } from '@cl/apimachinery';
import type { NodeConnection } from './node-address';
import { readRest, spdyUpgradeRequest, upgradeToSpdy } from './spdy-upgrade';
import { handshakeResponse, WebSocketConnection } from './websocket-server';

export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

export interface TunnelOptions {
  req: IncomingMessage;
  res: ServerResponse;
  client: { socket: Duplex; head: Buffer };
  agent: Duplex;
  node: NodeConnection;
  path: string;
  log: (line: string) => void;
  what: string;
}

/** Upgrades the agent connection, then the client's; resolves when both are closed. */
export async function tunnelPortForward(o: TunnelOptions): Promise<void> {
  let answer;
  try {
    answer = await upgradeToSpdy(o.agent, spdyUpgradeRequest('POST', o.node, o.path, [PORT_FORWARD_PROTOCOL]));
  } catch (e) {
    o.agent.destroy();
    return writeStatus(o.req, o.res, statusFailure(500, 'InternalError', `Internal error occurred: error dialing backend: ${(e as Error).message}`));
  }
  if (answer.status !== 101) {
    // The agent's refusal reaches the client as an HTTP answer, as a failed upgrade would.
    const body = await readRest(o.agent, answer.rest, Math.min(64 * 1024, Number(answer.headers['content-length'] ?? 64 * 1024)));
    o.res.writeHead(answer.status, { 'Content-Type': answer.headers['content-type'] ?? 'text/plain' });
    o.res.end(body);
    return;
  }
  o.log(`Tunnelling ${o.what}: WebSocket ${PORT_FORWARD_TUNNEL_PROTOCOL} to SPDY/3.1 ${PORT_FORWARD_PROTOCOL}`);
  o.res.detachSocket(o.client.socket as Socket);
  o.client.socket.write(handshakeResponse(o.req, PORT_FORWARD_TUNNEL_PROTOCOL));
  const ws = new WebSocketConnection(o.client.socket, PORT_FORWARD_TUNNEL_PROTOCOL, o.client.head);
  const agent = o.agent;
  ws.on('message', (m: Buffer) => {
    if (m.length > 0 && !agent.write(m)) ws.pause();
  });
  agent.on('drain', () => ws.resume());
  ws.on('drain', () => agent.resume());
  agent.on('data', (d: Buffer) => {
    if (!ws.send(d)) agent.pause();
  });
  if (answer.rest.length > 0) ws.send(answer.rest);
  agent.resume();
  await new Promise<void>((resolve) => {
    let n = 0;
    const one = () => {
      if (++n === 2) resolve();
    };
    agent.once('close', () => {
      ws.close(1000);
      one();
    });
    agent.once('end', () => ws.close(1000));
    agent.once('error', () => agent.destroy());
    ws.once('close', () => {
      agent.destroy();
      one();
    });
  });
  // The response's 'close' (in-flight accounting, metrics) follows its socket's, now detached.
  o.res.emit('close');
}
