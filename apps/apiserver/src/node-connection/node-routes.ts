// The routes that reach a node's agent: pods/log (a streamed GET of /containerLogs), pods/exec, attach and
// portforward (WebSocket clients translated to SPDY, SPDY clients relayed byte for byte) and nodes/proxy (any request relayed to the agent's
// own path). They sit before the resource API's route, which serves the other
// subresources of pods and nodes, and are long-running: a followed log lives as long as its caller wants it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, apiErrors, statusFailure, type Status } from '@cl/apimachinery';
import { writeStatus, type ResourceStore } from '@cl/registry';
import type { Route, RequestContext } from '../routes';
import { nodeConnection, hostPort, type NodeConnection, type NodeForConnection } from './node-address';
import type { NodeAgentClient } from './node-agent-client';
import { containerLogsPath, logContainer, podLogOptions, type PodForLogs } from './pod-log-options';
import { agentErrorStatus } from './agent-errors';
import { streamLocation, type PodStreamKind } from './stream-location';
import { relayUpgrade, upgradeRequestHead } from './upgrade-relay';
import { PodProxyClient, podProxyLocation, splitSchemeNamePort, type NodeForPodProxy, type PodForProxy } from './pod-proxy';
import { forwardedUri, pathPrepend, proxiedHeaders, rewriteHtmlBody, rewritesBody, rootRedirect, type LinkRewriter } from './proxy-rewrite';
import { isWebSocketRequest, offeredProtocols } from './websocket-server';
import { remoteCommandStreams, translateRemoteCommand, V5_CHANNEL_PROTOCOL } from './stream-translator';
import { PORT_FORWARD_TUNNEL_PROTOCOL, tunnelPortForward } from './stream-translator-tunnel';

export interface NodeRoutesOptions {
  /** The served stores once the resource API is mounted (undefined before). */
  stores: () => readonly ResourceStore[] | undefined;
  client: NodeAgentClient;
  preferredAddressTypes: readonly string[];
  log: (line: string) => void;
}

const POD_LOG = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/;
const POD_STREAM = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/;
const NODE_PROXY = /^\/api\/v1\/nodes\/([^/]+)\/proxy(\/.*)?$/;
const POD_PROXY = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/proxy(\/.*)?$/;

function storeOf(opts: NodeRoutesOptions, plural: string): ResourceStore {
  const s = opts.stores()?.find((x) => x.def.group === '' && x.def.plural === plural);
  if (!s) throw apiErrors.internal(`the ${plural} store is not ready`);
  return s;
}

async function connectionTo(opts: NodeRoutesOptions, nodeName: string): Promise<NodeConnection> {
  const node = (await storeOf(opts, 'nodes').get('', nodeName)) as NodeForConnection;
  return nodeConnection(node, opts.preferredAddressTypes);
}

/** A request to the agent that failed before any answer: upstream's unclassified 500 with Go's client error text. */
function transportFailure(method: string, node: NodeConnection, path: string, e: Error): Status {
  return statusFailure(500, '', `${method === 'GET' ? 'Get' : method[0] + method.slice(1).toLowerCase()} "https://${hostPort(node)}${path}": ${e.message}`);
}

/** A proxied request (nodes/proxy, pods/proxy) whose backend could not be reached: upstream's proxy transport's 503. */
const unreachable = (e: Error): Status => statusFailure(503, 'ServiceUnavailable', `error trying to reach service: ${e.message}`);

function fail(ctx: RequestContext, e: unknown): void {
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  if (e instanceof ApiError) return writeStatus(ctx.req, ctx.res, e.status);
  throw e;
}

/** Relays the agent's response: status, headers (but hop-by-hop ones), then the body as it arrives. */
function relay(from: IncomingMessage, to: ServerResponse, headers: Record<string, string | string[]>): void {
  to.writeHead(from.statusCode ?? 502, headers);
  // Each chunk goes out as it comes (no buffering of the whole body); either side closing closes the other.
  from.pipe(to);
  to.once('close', () => from.destroy());
  from.once('error', () => to.destroy());
  from.once('aborted', () => to.destroy());
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length']);

function copiedHeaders(res: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

/** A proxied answer (pods/proxy, nodes/proxy) as upstream's wrapped proxy transport passes it on (proxy-rewrite.ts). */
function relayProxied(from: IncomingMessage, to: ServerResponse, method: string, links: LinkRewriter): void {
  const headers = proxiedHeaders(copiedHeaders(from), links);
  if (method === 'HEAD' || !rewritesBody(from.headers)) return relay(from, to, headers);
  // An HTML body is read whole to rewrite its links, as upstream does.
  const chunks: Buffer[] = [];
  from.on('data', (c: Buffer) => chunks.push(c));
  from.once('end', () => {
    const original = Buffer.concat(chunks);
    let body: Buffer = original;
    try {
      body = rewriteHtmlBody(original, String(from.headers['content-encoding'] ?? ''), links);
    } catch {
      // A body that does not decode as its Content-Encoding says passes unchanged.
    }
    to.writeHead(from.statusCode ?? 502, { ...headers, 'content-length': String(body.length) });
    to.end(body);
  });
  to.once('close', () => from.destroy());
  from.once('error', () => to.destroy());
  from.once('aborted', () => to.destroy());
}

/** Upstream's redirect of `.../proxy` to `.../proxy/` (GET and HEAD); true when answered. */
function redirectedRoot(ctx: RequestContext, rest: string | undefined): boolean {
  const location = rootRedirect(ctx.req.method ?? 'GET', ctx.path, rest, new URL(ctx.req.url ?? '/', 'http://x').search);
  if (location === undefined) return false;
  ctx.res.writeHead(301, { Location: location });
  ctx.res.end();
  return true;
}

/** The headers upstream's reverse proxy adds: the caller's path (X-Forwarded-Uri) and address (X-Forwarded-For). */
function forwardingHeaders(req: IncomingMessage, prepend: string, backendPath: string): Record<string, string> {
  const prior = req.headers['x-forwarded-for'];
  const client = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  return { 'x-forwarded-uri': forwardedUri(prepend, backendPath), 'x-forwarded-for': prior ? `${String(prior)}, ${client}` : client };
}

async function servePodLog(opts: NodeRoutesOptions, ctx: RequestContext, namespace: string, name: string): Promise<void> {
  const q = new URL(ctx.req.url ?? '/', 'http://x').searchParams;
  const logOpts = podLogOptions(name, q);
  const pod = (await storeOf(opts, 'pods').get(namespace, name)) as PodForLogs;
  const container = logContainer(pod, logOpts.container);
  // Not bound to a node yet: upstream answers an empty log.
  if (!pod.spec?.nodeName) {
    ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
    ctx.res.end();
    return;
  }
  const node = await connectionTo(opts, pod.spec.nodeName);
  const path = containerLogsPath(pod, container, logOpts);
  let res: IncomingMessage;
  try {
    res = await opts.client.request(node, { method: 'GET', path, insecure: logOpts.insecureSkipTLSVerifyBackend });
  } catch (e) {
    return writeStatus(ctx.req, ctx.res, transportFailure('GET', node, path, e as Error));
  }
  const code = res.statusCode ?? 500;
  if (code < 200 || code > 206) {
    const body = await readLimited(res, 4096);
    return writeStatus(ctx.req, ctx.res, agentErrorStatus(code, 'pods/log', name, body));
  }
  relay(res, ctx.res, { 'Content-Type': 'text/plain' });
}

async function serveNodeProxy(opts: NodeRoutesOptions, ctx: RequestContext, nodeName: string, rest: string | undefined): Promise<void> {
  const node = await connectionTo(opts, nodeName);
  if (redirectedRoot(ctx, rest)) return;
  const search = new URL(ctx.req.url ?? '/', 'http://x').search;
  const path = `${rest ?? '/'}${search}`;
  const prepend = pathPrepend(ctx.path, rest ?? '');
  const headers: Record<string, string | string[]> = { ...forwardedHeaders(ctx.req), ...forwardingHeaders(ctx.req, prepend, rest ?? '') };
  let res: IncomingMessage;
  try {
    const hasBody = ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD';
    res = await opts.client.request(node, { method: ctx.req.method ?? 'GET', path, headers, ...(hasBody ? { body: ctx.req } : {}) });
  } catch (e) {
    opts.log(`Error proxying to node ${nodeName}: ${(e as Error).message}`);
    return writeStatus(ctx.req, ctx.res, unreachable(e as Error));
  }
  relayProxied(res, ctx.res, ctx.req.method ?? 'GET', { prepend, backendHost: hostPort(node), requestHost: ctx.req.headers.host ?? '' });
}

/**
 * exec, attach and port-forward. kubectl 1.33 first asks for a WebSocket: exec and attach with
 * `v5.channel.k8s.io` are translated to a SPDY session with the agent (stream-translator.ts), port-forward with
 * `SPDY/3.1+portforward.k8s.io` is tunnelled to a SPDY upgrade of the agent (stream-translator-tunnel.ts). Any
 * other upgrade (SPDY/3.1, kubectl's fallback, or a WebSocket without those protocols) is relayed to the agent
 * byte for byte, as upstream's UpgradeAwareHandler does.
 */
async function servePodStream(opts: NodeRoutesOptions, ctx: RequestContext, namespace: string, name: string, kind: PodStreamKind): Promise<void> {
  if (!ctx.upgrade) throw apiErrors.badRequest('Upgrade request required');
  const pod = (await storeOf(opts, 'pods').get(namespace, name)) as PodForLogs;
  const query = new URL(ctx.req.url ?? '/', 'http://x').searchParams;
  const path = streamLocation(kind, pod, query);
  const node = await connectionTo(opts, pod.spec!.nodeName!);
  const protocols = isWebSocketRequest(ctx.req) ? offeredProtocols(ctx.req) : [];
  const what = `pods/${kind} ${namespace}/${name}`;
  if (kind !== 'portforward' && protocols.includes(V5_CHANNEL_PROTOCOL)) {
    const dialAgent = () => opts.client.connect(node);
    return translateRemoteCommand({ req: ctx.req, res: ctx.res, client: ctx.upgrade, dialAgent, node, path, streams: remoteCommandStreams(query), log: opts.log, what });
  }
  let agent: Duplex;
  try {
    agent = await opts.client.connect(node);
  } catch (e) {
    opts.log(`Error dialing node agent for ${what}: ${(e as Error).message}`);
    return writeStatus(ctx.req, ctx.res, statusFailure(500, 'InternalError', `Internal error occurred: error dialing backend: ${(e as Error).message}`));
  }
  if (kind === 'portforward' && protocols.includes(PORT_FORWARD_TUNNEL_PROTOCOL)) {
    return tunnelPortForward({ req: ctx.req, res: ctx.res, client: ctx.upgrade, agent, node, path, log: opts.log, what });
  }
  return relayUpgrade(ctx.req, ctx.res, ctx.upgrade, agent, upgradeRequestHead(ctx.req, node, path));
}

/** The caller's headers for a proxied request: no hop-by-hop ones, no credentials or impersonation (they were for this server). */
function forwardedHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k === 'host' || k === 'authorization' || k.startsWith('impersonate-')) continue;
    headers[k] = v;
  }
  if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
  return headers;
}

async function servePodProxy(opts: NodeRoutesOptions, proxy: PodProxyClient, ctx: RequestContext, namespace: string, id: string, rest: string | undefined): Promise<void> {
  const target = splitSchemeNamePort(decodeURIComponent(id));
  if (!target) throw apiErrors.badRequest(`invalid pod request ${JSON.stringify(decodeURIComponent(id))}`);
  const pod = (await storeOf(opts, 'pods').get(namespace, target.name)) as PodForProxy;
  const nodeName = pod.spec?.nodeName;
  const node = pod.spec?.hostNetwork && nodeName ? ((await storeOf(opts, 'nodes').get('', nodeName).catch(() => undefined)) as NodeForPodProxy | undefined) : undefined;
  const { host, port } = podProxyLocation(pod, node, target);
  if (redirectedRoot(ctx, rest)) return;
  const path = `${rest ?? '/'}${new URL(ctx.req.url ?? '/', 'http://x').search}`;
  const method = ctx.req.method ?? 'GET';
  const prepend = pathPrepend(ctx.path, rest ?? '');
  const backendHost = hostPort({ host, port });
  // The caller's Host goes on to the pod (upstream does not set UseLocationHost for pods/proxy).
  const requestHost = ctx.req.headers.host ?? backendHost;
  const headers = { ...forwardedHeaders(ctx.req), ...forwardingHeaders(ctx.req, prepend, rest ?? ''), host: requestHost };
  await new Promise<void>((resolve) => {
    const out = proxy.request(target.scheme, host, port, method, path, headers);
    out.once('response', (res) => {
      relayProxied(res, ctx.res, method, { prepend, backendHost, requestHost });
      res.once('close', resolve);
    });
    out.once('error', (e) => {
      opts.log(`Error proxying to pod ${namespace}/${target.name}: ${e.message}`);
      if (ctx.res.headersSent) ctx.res.destroy();
      else writeStatus(ctx.req, ctx.res, unreachable(e));
      resolve();
    });
    if (method !== 'GET' && method !== 'HEAD') ctx.req.pipe(out);
    else out.end();
  });
}

function readLimited(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c.subarray(0, limit - size));
      size += c.length;
      if (size >= limit) res.destroy();
    });
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    res.once('end', done);
    res.once('close', done);
    res.once('error', done);
  });
}

export function nodeConnectionRoutes(opts: NodeRoutesOptions): Route[] {
  let podProxy: PodProxyClient | undefined;
  return [
    {
      pathClass: '/api/v1/namespaces/{namespace}/pods/{name}/proxy',
      longRunning: true,
      matches: (_method, path) => POD_PROXY.test(path),
      handle: (ctx) => {
        const [, ns, id, rest] = POD_PROXY.exec(ctx.path)!;
        podProxy ??= new PodProxyClient(opts.client.dialer);
        return servePodProxy(opts, podProxy, ctx, ns, id, rest).catch((e: unknown) => fail(ctx, e));
      },
    },
    {
      pathClass: '/api/v1/namespaces/{namespace}/pods/{name}/log',
      longRunning: true,
      matches: (method, path) => method === 'GET' && POD_LOG.test(path),
      handle: (ctx) => {
        const [, ns, name] = POD_LOG.exec(ctx.path)!;
        return servePodLog(opts, ctx, ns, name).catch((e: unknown) => fail(ctx, e));
      },
    },
    {
      pathClass: '/api/v1/namespaces/{namespace}/pods/{name}/{exec,attach,portforward}',
      longRunning: true,
      matches: (method, path) => (method === 'GET' || method === 'POST') && POD_STREAM.test(path),
      handle: (ctx) => {
        const [, ns, name, kind] = POD_STREAM.exec(ctx.path)!;
        return servePodStream(opts, ctx, ns, name, kind as PodStreamKind).catch((e: unknown) => fail(ctx, e));
      },
    },
    {
      pathClass: '/api/v1/nodes/{name}/proxy',
      longRunning: true,
      matches: (_method, path) => NODE_PROXY.test(path),
      handle: (ctx) => {
        const [, name, rest] = NODE_PROXY.exec(ctx.path)!;
        return serveNodeProxy(opts, ctx, name, rest).catch((e: unknown) => fail(ctx, e));
      },
    },
  ];
}
