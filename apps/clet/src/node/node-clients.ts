// The three API clients of a node agent, as upstream's kubelet builds them: its own client (--kube-api-qps and
// --kube-api-burst), a heartbeat client for node status and the lease that no rate limit holds back, and an event
// client with the event limits. Upstream's three share one HTTP/2 connection; over HTTP/1.1 each request in flight
// takes a connection, so each client is capped: a thousand nodes in one cluster then hold ~10 connections apiece
// to the API server, not up to a burst's worth each (bench/density).
import { KubeClient, type ClientConfig } from '@cl/kube-client';

export interface NodeClientLimits {
  qps: number;
  burst: number;
  eventQPS: number;
  eventBurst: number;
}

/** Connections per client: the node's own traffic (pod statuses, mirror pods, secrets), heartbeats, events. */
export const NODE_CLIENT_CONNECTIONS = { main: 6, heartbeat: 2, events: 2 } as const;

export interface NodeClients {
  client: KubeClient;
  heartbeat: KubeClient;
  events: KubeClient;
}

export function nodeClients(base: ClientConfig, limits: NodeClientLimits): NodeClients {
  return {
    client: new KubeClient({ ...base, qps: limits.qps, burst: limits.burst, maxConnections: NODE_CLIENT_CONNECTIONS.main }),
    heartbeat: new KubeClient({ ...base, qps: -1, maxConnections: NODE_CLIENT_CONNECTIONS.heartbeat }),
    // As upstream's event client (client-go's rest config): --event-qps 0 is client-go's DefaultQPS 5 and
    // --event-burst 0 its DefaultBurst 10, as the flags' help says.
    events: new KubeClient({ ...base, qps: limits.eventQPS, burst: limits.eventBurst, maxConnections: NODE_CLIENT_CONNECTIONS.events }),
  };
}
