import type { Attributes } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** The parts of a parsed API request the server span name is built from (k8s request info). */
export interface RequestInfoLike {
  isResourceRequest: boolean;
  /** `api` or `apis`. */
  apiPrefix?: string;
  apiGroup?: string;
  apiVersion?: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
}

/**
 * The API server's span name: the method for non-resource requests, otherwise the route with `{:namespace}` and
 * `{:name}` placeholders, e.g. `GET /api/v1/namespaces/{:namespace}/pods/{:name}`.
 */
export function serverSpanName(method: string, info?: RequestInfoLike): string {
  if (!info?.isResourceRequest) return method;
  const parts = [info.apiPrefix ?? (info.apiGroup ? 'apis' : 'api')];
  if (info.apiGroup) parts.push(info.apiGroup);
  if (info.apiVersion) parts.push(info.apiVersion);
  if (info.namespace) parts.push('namespaces', '{:namespace}');
  if (info.resource) parts.push(info.resource);
  if (info.name) parts.push('{:name}');
  if (info.subresource) parts.push(info.subresource);
  return `${method} /${parts.join('/')}`;
}

/** Users whose incoming trace context the API server trusts as the parent of its spans. */
export function isTracingTrusted(groups: readonly string[]): boolean {
  return groups.includes('system:masters') || groups.includes('system:monitoring');
}

function splitHostPort(hostHeader: string): { host: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader);
  if (!m) return { host: hostHeader };
  return { host: m[1].replace(/^\[|\]$/g, ''), port: m[2] ? Number(m[2]) : undefined };
}

/**
 * The attributes otelhttp (v0.58, the semantic conventions kube-apiserver 1.33 emits) sets when a server span
 * starts, with the API server's `http.target` override (the full request URI, query included).
 */
export function httpServerAttributes(req: IncomingMessage): Attributes {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const attrs: Attributes = { 'http.method': req.method ?? 'GET', 'http.scheme': scheme };
  const hostHeader = (req.headers[':authority'] as string | undefined) ?? req.headers.host;
  if (hostHeader) {
    const { host, port } = splitHostPort(hostHeader);
    attrs['net.host.name'] = host;
    if (port !== undefined && port !== (scheme === 'https' ? 443 : 80)) attrs['net.host.port'] = port;
  }
  if (req.socket.remoteAddress) attrs['net.sock.peer.addr'] = req.socket.remoteAddress;
  if (req.socket.remotePort) attrs['net.sock.peer.port'] = req.socket.remotePort;
  const ua = req.headers['user-agent'];
  if (ua) attrs['user_agent.original'] = ua;
  const xff = req.headers['x-forwarded-for'];
  const clientIp = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
  if (clientIp) attrs['http.client_ip'] = clientIp;
  attrs['net.protocol.version'] = req.httpVersion;
  attrs['http.target'] = req.url ?? '/';
  return attrs;
}
