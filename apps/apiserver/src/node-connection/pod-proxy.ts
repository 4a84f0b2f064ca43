// pods/proxy (upstream's pod ProxyREST): `/api/v1/namespaces/{ns}/pods/{id}/proxy/{path}` where id is `name`,
// `name:port` or `scheme:name:port`, relayed to the pod's IP (not through the node agent) over the egress
// selector's `cluster` selection, as kube-apiserver does.
import * as http from 'node:http';
import * as https from 'node:https';
import { apiErrors } from '@cl/apimachinery';
import { DialerHttpAgent, DialerHttpsAgent, type Dialer } from '@cl/egress';

export interface PodProxyTarget {
  scheme: 'http' | 'https';
  name: string;
  /** Empty: the pod's first container port, or the scheme's default port. */
  port: string;
}

const SCHEMES = new Set(['', 'http', 'https']);

/** Upstream's SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` with scheme http or https. */
export function splitSchemeNamePort(id: string): PodProxyTarget | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) [name] = parts;
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (!name || !SCHEMES.has(scheme)) return undefined;
  return { scheme: scheme === 'https' ? 'https' : 'http', name, port };
}

export interface PodForProxy {
  metadata: { name: string; namespace?: string };
  spec?: { nodeName?: string; hostNetwork?: boolean; containers?: Array<{ ports?: Array<{ containerPort?: number }> }> };
  status?: { podIP?: string; podIPs?: Array<{ ip?: string }> };
}

export interface NodeForPodProxy {
  status?: { addresses?: Array<{ type?: string; address?: string }> };
}

const isIPv4 = (s: string) => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((o) => Number(o) <= 255);
const isIPv6 = (s: string) => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s);

/** Go's IP.IsGlobalUnicast: not unspecified, loopback, link-local, multicast or the IPv4 broadcast address. */
export function isGlobalUnicast(ip: string): boolean {
  if (isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number);
    return !(a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224);
  }
  if (isIPv6(ip)) {
    const lower = ip.toLowerCase();
    return !(lower === '::' || lower === '::1' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb') || lower.startsWith('ff'));
  }
  return false;
}

/**
 * The pod's address and port for `target`, or upstream's BadRequest "address not allowed" for a pod without a
 * usable IP. One difference from upstream: a host-network pod whose IP is one of its node's own addresses is
 * allowed even on loopback, so that a one-machine cluster whose node address is 127.0.0.1 can be proxied.
 */
export function podProxyLocation(pod: PodForProxy, node: NodeForPodProxy | undefined, target: PodProxyTarget): { host: string; port: number } {
  const ip = pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? '';
  const nodeOwn = !!pod.spec?.hostNetwork && (node?.status?.addresses ?? []).some((a) => a.address === ip);
  if (!(isIPv4(ip) || isIPv6(ip)) || (!isGlobalUnicast(ip) && !nodeOwn)) throw apiErrors.badRequest('address not allowed');
  let port = target.port;
  if (!port) {
    const first = pod.spec?.containers?.find((c) => (c.ports ?? []).length > 0)?.ports?.[0]?.containerPort;
    if (first) port = String(first);
  }
  const n = port ? Number(port) : target.scheme === 'https' ? 443 : 80;
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw apiErrors.badRequest(`invalid port ${JSON.stringify(port)}`);
  return { host: ip, port: n };
}

/** Clients over the `cluster` selection; pods' serving certificates are not verified (as upstream's proxy transport). */
export class PodProxyClient {
  private readonly plain: DialerHttpAgent;
  private readonly tls: DialerHttpsAgent;

  constructor(dialer: Dialer) {
    this.plain = new DialerHttpAgent(dialer, { keepAlive: false });
    this.tls = new DialerHttpsAgent(dialer, { keepAlive: false, rejectUnauthorized: false });
  }

  request(scheme: 'http' | 'https', host: string, port: number, method: string, path: string, headers: http.OutgoingHttpHeaders): http.ClientRequest {
    const lib = scheme === 'https' ? https : http;
    return lib.request({ agent: scheme === 'https' ? this.tls : this.plain, host, port, method, path, headers, ...(scheme === 'https' ? { servername: '' } : {}) });
  }

  close(): void {
    this.plain.destroy();
    this.tls.destroy();
  }
}
