// exec and attach for WebSocket clients (upstream's StreamTranslatorHandler): kubectl 1.33 asks for a WebSocket
// with the `v5.channel.k8s.io` subprotocol, the node agent's runtime speaks SPDY/3.1 with `v4.channel.k8s.io`.
// The client's WebSocket is accepted here, a SPDY session is opened to the agent with one stream per channel
// (error, stdin, stdout, stderr, resize, as client-go's SPDY executor opens them), and the two are joined:
//
//   WebSocket message [0, data...]   -> stdin stream        stdout stream -> [1, data...]
//   WebSocket message [4, json]      -> resize stream       stderr stream -> [2, data...]
//   WebSocket message [255, 0]       -> stdin half-closed   error stream  -> [3, status JSON]  (v4 Status, as is)
//
// v5's close message is the reason for the translation: it lets `echo hi | kubectl exec -i pod -- cat` end.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NodeConnection } from './node-address';
import { SpdyClientSession, type SpdyStream } from './spdy-session';
import { readRest, spdyUpgradeRequest, upgradeToSpdy } from './spdy-upgrade';
import { handshakeResponse, WebSocketConnection } from './websocket-server';

export const V5_CHANNEL_PROTOCOL = 'v5.channel.k8s.io';
/** The remote command protocol asked of the agent: the newest its runtime (containerd 1.6) has. */
export const AGENT_REMOTE_COMMAND_PROTOCOL = 'v4.channel.k8s.io';

/** The channel numbers of the remote command protocols (k8s.io/apimachinery/pkg/util/remotecommand). */
export const Channel = { STDIN: 0, STDOUT: 1, STDERR: 2, ERROR: 3, RESIZE: 4, CLOSE: 255 } as const;

export interface RemoteCommandStreams {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Go's query-to-bool conversion as the PodExecOptions / PodAttachOptions decoding applies it. */
const queryBool = (v: string | null) => v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

export function remoteCommandStreams(q: URLSearchParams): RemoteCommandStreams {
  return { stdin: queryBool(q.get('stdin')), stdout: queryBool(q.get('stdout')), stderr: queryBool(q.get('stderr')), tty: queryBool(q.get('tty')) };
}

/** The SPDY streams client-go opens for a v4 session, in its order, with their `streamType` header. */
export function spdyStreamPlan(s: RemoteCommandStreams): Array<{ type: 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize'; channel: number }> {
  const plan: Array<{ type: 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize'; channel: number }> = [{ type: 'error', channel: Channel.ERROR }];
  if (s.stdin) plan.push({ type: 'stdin', channel: Channel.STDIN });
  if (s.stdout) plan.push({ type: 'stdout', channel: Channel.STDOUT });
  // With a TTY, stderr is merged into stdout and no stream is opened for it (client-go does the same).
  if (s.stderr && !s.tty) plan.push({ type: 'stderr', channel: Channel.STDERR });
  if (s.tty) plan.push({ type: 'resize', channel: Channel.RESIZE });
  return plan;
}

/** What a client WebSocket message asks for: data for a channel, or (v5) the end of one. */
export type ClientMessage = { kind: 'data'; channel: number; data: Buffer } | { kind: 'close'; channel: number } | { kind: 'empty' };

export function parseClientMessage(message: Buffer): ClientMessage {
  if (message.length === 0) return { kind: 'empty' };
  if (message[0] === Channel.CLOSE) return message.length >= 2 ? { kind: 'close', channel: message[1] } : { kind: 'empty' };
  return { kind: 'data', channel: message[0], data: message.subarray(1) };
}

/** A server message for `channel`. */
export const channelMessage = (channel: number, data: Buffer) => Buffer.concat([Buffer.from([channel]), data]);

/** A v1 Status for the error channel when the agent cannot be reached or refuses (upstream: an internal error). */
export function failureStatus(message: string): Buffer {
  return Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 }));
}

export interface TranslateOptions {
  req: IncomingMessage;
  res: ServerResponse;
  client: { socket: Duplex; head: Buffer };
  /** A fresh connection to the agent, dialled through the `cluster` egress selection. */
  dialAgent: () => Promise<Duplex>;
  node: NodeConnection;
  /** The agent's exec or attach path and query. */
  path: string;
  streams: RemoteCommandStreams;
  log: (line: string) => void;
  /** For the log: "pods/exec default/web". */
  what: string;
}

/** Accepts the client's v5 WebSocket and joins it with a v4 SPDY session to the agent; resolves when both are closed. */
export async function translateRemoteCommand(o: TranslateOptions): Promise<void> {
  o.res.detachSocket(o.client.socket as Socket);
  o.client.socket.write(handshakeResponse(o.req, V5_CHANNEL_PROTOCOL));
  const ws = new WebSocketConnection(o.client.socket, V5_CHANNEL_PROTOCOL, o.client.head);
  // Client messages that arrive while the agent is dialled wait here, in order.
  const early: Buffer[] = [];
  let onMessage: (m: Buffer) => void = (m) => early.push(m);
  ws.on('message', (m: Buffer) => onMessage(m));
  // Tells the client the connection is up: an empty message on the lowest writable channel (as upstream).
  ws.send(channelMessage(o.streams.stdout ? Channel.STDOUT : o.streams.stderr ? Channel.STDERR : Channel.ERROR, Buffer.alloc(0)));

  const done = new Promise<void>((resolve) => ws.once('close', resolve));
  let agent: Duplex | undefined;
  const finishWith = (status?: Buffer) => {
    if (status) ws.send(channelMessage(Channel.ERROR, status));
    ws.close(1000);
  };
  ws.once('close', () => agent?.destroy());
  try {
    agent = await o.dialAgent();
    if (ws.isClosed) {
      agent.destroy();
      return finished(o.res, done);
    }
    const answer = await upgradeToSpdy(agent, spdyUpgradeRequest('POST', o.node, o.path, [AGENT_REMOTE_COMMAND_PROTOCOL]));
    if (answer.status !== 101) {
      const body = (await readRest(agent, answer.rest, Math.min(4096, Number(answer.headers['content-length'] ?? 4096)))).toString('utf8').trim();
      finishWith(failureStatus(`unable to upgrade connection: ${body || `status ${answer.status}`}`));
      return finished(o.res, done);
    }
    const version = answer.headers['x-stream-protocol-version'];
    if (version !== AGENT_REMOTE_COMMAND_PROTOCOL) {
      agent.destroy();
      finishWith(failureStatus(`the node agent answered stream protocol ${JSON.stringify(version ?? '')}, want ${AGENT_REMOTE_COMMAND_PROTOCOL}`));
      return finished(o.res, done);
    }
    const session = new SpdyClientSession(agent, answer.rest);
    agent.resume();
    o.log(`Translating ${o.what}: WebSocket ${V5_CHANNEL_PROTOCOL} to SPDY/3.1 ${version}`);
    const { deliver, streams } = join(ws, session, o.streams, finishWith);
    // As client-go, nothing is sent before the agent has answered every stream.
    session.on('protocolError', (e: Error) => o.log(`SPDY protocol error on ${o.what}: ${e.message}`));
    await Promise.all(streams.map((s) => SpdyClientSession.replied(s)));
    onMessage = deliver;
    for (const m of early.splice(0)) deliver(m);
  } catch (e) {
    agent?.destroy();
    finishWith(failureStatus(`error dialing backend: ${(e as Error).message}`));
  }
  return finished(o.res, done);
}

function finished(res: ServerResponse, done: Promise<void>): Promise<void> {
  // The response's 'close' (in-flight accounting, metrics) follows its socket's, now detached.
  return done.then(() => {
    res.emit('close');
  });
}

/** Connects channels and streams; returns what takes the client's messages from now on. */
function join(ws: WebSocketConnection, session: SpdyClientSession, opts: RemoteCommandStreams, finishWith: (status?: Buffer) => void): { deliver: (m: Buffer) => void; streams: SpdyStream[] } {
  const byChannel = new Map<number, SpdyStream>();
  const plan = spdyStreamPlan(opts);
  for (const { type, channel } of plan) byChannel.set(channel, session.openStream([['streamtype', type]]));
  // Output may not outrun the client: a full client socket stops reading the agent until it drains.
  ws.on('drain', () => session.resume());
  const outputs = plan.filter((p) => p.type === 'error' || p.type === 'stdout' || p.type === 'stderr');
  let open = outputs.length;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    // Everything the command wrote is out: the close handshake ends the client's read loop, then its exit code.
    finishWith();
    session.close();
  };
  for (const { channel } of outputs) {
    const stream = byChannel.get(channel)!;
    stream.on('data', (d: Buffer) => {
      if (!ws.send(channelMessage(channel, d))) session.pause();
    });
    let gone = false;
    const closed = () => {
      if (gone) return;
      gone = true;
      if (--open === 0) end();
    };
    stream.once('end', closed);
    stream.once('reset', closed);
  }
  session.once('close', end);
  const stdin = byChannel.get(Channel.STDIN);
  const resize = byChannel.get(Channel.RESIZE);
  stdin?.on('drain', () => ws.resume());
  const deliver = (m: Buffer) => {
    const msg = parseClientMessage(m);
    if (msg.kind === 'close') {
      byChannel.get(msg.channel)?.end();
    } else if (msg.kind === 'data') {
      const target = msg.channel === Channel.STDIN ? stdin : msg.channel === Channel.RESIZE ? resize : undefined;
      if (target && !target.write(msg.data)) ws.pause();
    }
  };
  return { deliver, streams: [...byChannel.values()] };
}
