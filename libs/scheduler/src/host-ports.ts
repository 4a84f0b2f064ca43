// Host ports in use on a node, by host IP, as upstream's HostPortInfo: a port bound on 0.0.0.0 conflicts with the
// same protocol and port on every IP, and one on a specific IP conflicts with itself and with 0.0.0.0.
import type { ContainerPort, Pod } from './types';

const BIND_ALL = '0.0.0.0';

export class HostPorts {
  /** ip -> "PROTOCOL/port" -> how many containers use it (assumed and confirmed pods may overlap briefly). */
  private readonly byIP = new Map<string, Map<string, number>>();

  add(port: ContainerPort): void {
    const wanted = sanitize(port);
    if (!wanted) return;
    const ports = this.byIP.get(wanted.ip) ?? new Map<string, number>();
    ports.set(wanted.key, (ports.get(wanted.key) ?? 0) + 1);
    this.byIP.set(wanted.ip, ports);
  }

  /** Whether binding `port` would clash with a port already in use. Ports without a host port never clash. */
  conflicts(port: ContainerPort): boolean {
    const wanted = sanitize(port);
    if (!wanted) return false;
    if (wanted.ip === BIND_ALL) return [...this.byIP.values()].some((ports) => ports.has(wanted.key));
    return [BIND_ALL, wanted.ip].some((ip) => this.byIP.get(ip)?.has(wanted.key));
  }

  get size(): number {
    let n = 0;
    for (const ports of this.byIP.values()) n += ports.size;
    return n;
  }
}

function sanitize(port: ContainerPort): { ip: string; key: string } | null {
  const hostPort = port.hostPort ?? 0;
  if (hostPort <= 0) return null;
  return { ip: port.hostIP || BIND_ALL, key: `${port.protocol || 'TCP'}/${hostPort}` };
}

/** The ports of a pod that take a host port. Upstream 1.33 counts regular containers only, not init containers. */
export function hostPortsOf(pod: Pod): ContainerPort[] {
  return (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0));
}
