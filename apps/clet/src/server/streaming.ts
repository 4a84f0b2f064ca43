// /run (ExecSync) and the streaming endpoints /exec, /attach and /portForward. For the latter the
// kubelet asks the runtime for a streaming URL (CRI Exec/Attach/PortForward; containerd's streaming
// server listens on 127.0.0.1) and proxies the upgrade request to it; a request that is not an upgrade
// gets upstream's "Upgrade request required" after the URL was obtained.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CriError } from '@cl/cri';
import type { NodeRuntime } from './node-runtime';
import { findPod } from './pod-lookup';
import { send, sendText } from './respond';
import { logLine, type LogFn } from '../log';

export type StreamKind = 'exec' | 'attach' | 'portForward';

interface Upgrade {
  socket: Duplex;
  head: Buffer;
}
const upgrades = new WeakMap<IncomingMessage, Upgrade>();

/** Marks a request that arrived through the server's 'upgrade' event, so it can be proxied. */
export function markUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
  upgrades.set(req, { socket, head });
}

const GRPC_NOT_FOUND = 5;
/** How long a stream's last bytes may take to reach a slow client once the runtime has closed its side. */
const FLUSH_GRACE_MS = 30_000;
const GRPC_RESOURCE_EXHAUSTED = 8;

/** streaming.WriteError: a runtime NotFound is 404, ResourceExhausted 429, anything else 500. */
function writeStreamingError(res: ServerResponse, e: unknown): void {
  const msg = (e as Error).message;
  if (e instanceof CriError && e.code === GRPC_NOT_FOUND) return send(res, 404, msg);
  if (e instanceof CriError && e.code === GRPC_RESOURCE_EXHAUSTED) return send(res, 429, msg, undefined, { 'Retry-After': '30' });
  return send(res, 500, msg);
}

interface Params {
  namespace: string;
  pod: string;
  uid: string;
  container: string;
}

/** `{ns}/{pod}/{container}` or `{ns}/{pod}/{uid}/{container}` (portForward: `{ns}/{pod}[/{uid}]`). */
function parseParams(rest: string, withContainer: boolean): Params | null {
  const p = rest.split('/').map((s) => decodeURIComponent(s));
  if (withContainer) {
    if (p.length === 3) return { namespace: p[0], pod: p[1], uid: '', container: p[2] };
    if (p.length === 4) return { namespace: p[0], pod: p[1], uid: p[2], container: p[3] };
  } else {
    if (p.length === 2) return { namespace: p[0], pod: p[1], uid: '', container: '' };
    if (p.length === 3) return { namespace: p[0], pod: p[1], uid: p[2], container: '' };
  }
  return null;
}

const methodNotAllowed = (res: ServerResponse) => sendText(res, 405, '405: Method Not Allowed');

/** POST /run/{ns}/{pod}[/{uid}]/{container}?cmd=...: the command's stdout then stderr, as JSON content. */
export async function serveRun(req: IncomingMessage, res: ServerResponse, rest: string, pods: () => object[], runtime: NodeRuntime | undefined): Promise<void> {
  const params = parseParams(rest, true);
  if (!params) return sendText(res, 404, '404 page not found\n');
  if (req.method !== 'POST') return methodNotAllowed(res);
  if (!findPod(pods(), params.namespace, params.pod) || !runtime) return sendText(res, 404, 'pod does not exist');
  // For legacy reasons /run takes one space-separated "cmd" parameter (exec takes repeated "command").
  const cmd = (new URL(req.url ?? '/', 'http://x').searchParams.get('cmd') ?? '').split(' ');
  try {
    const c = await runtime.runningContainer(params.namespace, params.pod, params.uid, params.container);
    if (!c) throw new Error(`container not found (${JSON.stringify(params.container)})`);
    const r = await runtime.cri.execSync(c.id, cmd, 0);
    if (r.exitCode !== 0) throw new Error(`command '${cmd.join(' ')}' exited with ${r.exitCode}: ${r.stderr.toString()}`);
    return send(res, 200, Buffer.concat([r.stdout, r.stderr]), 'application/json');
  } catch (e) {
    return sendText(res, 500, (e as Error).message);
  }
}

/**
 * remotecommand NewOptions: the streams asked for with "1"; stderr is dropped under a TTY. The API server names
 * them as upstream's does (core/v1 ExecStdinParam and friends: input, output, error); the stream names are
 * accepted too.
 */
function streamOptions(q: URLSearchParams): { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean } | Error {
  const on = (...keys: string[]) => keys.some((k) => q.get(k) === '1');
  const tty = on('tty');
  const o = { stdin: on('stdin', 'input'), stdout: on('stdout', 'output'), stderr: on('stderr', 'error') && !tty, tty };
  if (!o.stdin && !o.stdout && !o.stderr) return new Error('you must specify at least 1 of stdin, stdout, stderr');
  return o;
}

/** portforward.NewV4Options: websocket requests name their ports in "port" query parameters. */
function forwardPorts(req: IncomingMessage, q: URLSearchParams): number[] | Error {
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return [];
  const values = q.getAll('port');
  if (values.length === 0) return new Error('query parameter "port" is required');
  const ports: number[] = [];
  for (const v of values) {
    if (v === '') return new Error('query parameter "port" cannot be empty');
    for (const p of v.split(',')) {
      if (!/^\d+$/.test(p) || Number(p) > 65535) return new Error(`unable to parse ${JSON.stringify(v)} as a port: strconv.ParseUint: parsing ${JSON.stringify(p)}: invalid syntax`);
      if (Number(p) < 1) return new Error(`port ${JSON.stringify(v)} must be > 0`);
      ports.push(Number(p));
    }
  }
  return ports;
}

export async function serveStream(
  kind: StreamKind,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  pods: () => object[],
  runtime: NodeRuntime | undefined,
  log: LogFn,
  idleTimeoutMs = 0,
): Promise<void> {
  const params = parseParams(rest, kind !== 'portForward');
  if (!params) return sendText(res, 404, '404 page not found\n');
  if (req.method !== 'GET' && req.method !== 'POST') return methodNotAllowed(res);
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const opts = kind === 'portForward' ? forwardPorts(req, q) : streamOptions(q);
  if (opts instanceof Error) return sendText(res, 400, opts.message);
  const pod = findPod(pods(), params.namespace, params.pod);
  if (!pod || !runtime) return sendText(res, 404, 'pod does not exist');

  let url: string;
  try {
    if (kind === 'portForward') {
      if (params.uid !== '' && params.uid !== pod.metadata.uid) return sendText(res, 404, 'pod not found');
      const sandbox = await runtime.sandboxOf(pod.metadata.uid);
      if (!sandbox) throw new Error(`pod not found (${JSON.stringify(`${pod.metadata.name}_${pod.metadata.namespace}`)})`);
      url = await runtime.cri.portForward(sandbox, opts as number[]);
    } else {
      const c = await runtime.runningContainer(params.namespace, params.pod, params.uid, params.container);
      if (!c) throw new Error(`container not found (${JSON.stringify(params.container)})`);
      const so = opts as Exclude<typeof opts, number[]>;
      url = kind === 'exec' ? await runtime.cri.exec(c.id, q.getAll('command'), so) : await runtime.cri.attach(c.id, so);
    }
  } catch (e) {
    return writeStreamingError(res, e);
  }
  const upgrade = upgrades.get(req);
  if (!upgrade) {
    log(logLine('Error while proxying request', {}, { severity: 'E', err: 'Upgrade request required' }));
    return sendText(res, 500, 'Upgrade request required\n');
  }
  return proxyUpgrade(req, res, upgrade, new URL(url), log, idleTimeoutMs);
}

/**
 * Replays the upgrade request to the runtime's streaming server and splices the two connections.
 * The runtime's URL is used as given; its query carries nothing for exec/attach (the options travel
 * in the CRI request), so the client's query is passed on (a websocket port-forward names its ports there).
 */
function proxyUpgrade(req: IncomingMessage, res: ServerResponse, up: Upgrade, target: URL, log: LogFn, idleTimeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const backend: Socket = connect(Number(target.port) || 80, target.hostname);
    let spliced = false;
    backend.once('error', (e) => {
      if (!spliced) {
        log(logLine('Error while proxying request', {}, { severity: 'E', err: e }));
        sendText(res, 500, `error dialing backend: ${e.message}\n`);
      } else up.socket.destroy();
      resolve();
    });
    backend.once('connect', () => {
      spliced = true;
      // The response object never writes again: the client socket now belongs to the stream.
      res.detachSocket(up.socket as Socket);
      const query = target.search || new URL(req.url ?? '/', 'http://x').search;
      const lines = [`${req.method} ${target.pathname}${query} HTTP/1.1`, `Host: ${target.host}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i].toLowerCase();
        if (name === 'host' || name === 'authorization') continue;
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      backend.write(lines.join('\r\n') + '\r\n\r\n');
      if (up.head.length > 0) backend.write(up.head);
      backend.pipe(up.socket);
      up.socket.pipe(backend);
      let done = false;
      const close = () => {
        if (done) return;
        done = true;
        backend.destroy();
        up.socket.destroy();
        resolve();
      };
      // The runtime finished: what it wrote last may still sit in the client socket's buffer (a slow reader), so
      // the client side ends after it is flushed rather than being destroyed with it.
      backend.once('close', () => {
        if (up.socket.destroyed || up.socket.writableFinished) return close();
        up.socket.end();
        up.socket.once('finish', close);
        setTimeout(close, FLUSH_GRACE_MS).unref();
      });
      up.socket.once('close', close);
      up.socket.once('error', close);
      // --streaming-connection-idle-timeout: every byte either way passes through the client's socket, so its
      // inactivity timer is the stream's.
      if (idleTimeoutMs > 0) {
        (up.socket as Socket).setTimeout(idleTimeoutMs);
        up.socket.once('timeout', () => {
          log(logLine('Closing idle streaming connection', { path: target.pathname, idleTimeout: `${idleTimeoutMs}ms` }, { v: 2 }));
          close();
        });
      }
    });
  });
}
