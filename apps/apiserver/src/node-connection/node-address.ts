// Where the API server reaches a node's agent: the first address of the preferred types (upstream's
// NodeConnectionInfo lookup) and the port the agent published in status.daemonEndpoints.
import { apiErrors } from '@cl/apimachinery';

/** Upstream's default --kubelet-preferred-address-types order. */
export const DEFAULT_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'] as const;

/** Every NodeAddressType the flag accepts (upstream refuses the others at start). */
export const KNOWN_ADDRESS_TYPES: readonly string[] = DEFAULT_ADDRESS_TYPES;

/** The agent port used when a node publishes none (upstream's KubeletPort). */
export const DEFAULT_AGENT_PORT = 10250;

export interface NodeForConnection {
  metadata?: { name?: string };
  status?: {
    addresses?: Array<{ type?: string; address?: string }>;
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
}

export interface NodeConnection {
  host: string;
  port: number;
}

/**
 * The node's address of the first preferred type that it has (types in preference order, addresses in the
 * node's order within a type), and its agent port. A node with none of them is upstream's NoMatchError, which
 * reaches the caller as an internal error (Go's %v of the addresses).
 */
export function nodeConnection(node: NodeForConnection, preferredTypes: readonly string[]): NodeConnection {
  const addresses = node.status?.addresses ?? [];
  for (const type of preferredTypes) {
    const found = addresses.find((a) => a.type === type && a.address);
    if (found) {
      const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
      return { host: found.address!, port: port && port > 0 ? port : DEFAULT_AGENT_PORT };
    }
  }
  const known = addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ');
  throw apiErrors.internal(`no preferred addresses found; known addresses: [${known}]`);
}

/** `host:port` for URLs (IPv6 literals bracketed). */
export function hostPort(c: NodeConnection): string {
  return `${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}`;
}
