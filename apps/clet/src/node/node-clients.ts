// The three API clients of a node agent, as upstream's kubelet builds them: its own client (--kube-api-qps and
// --kube-api-burst), a heartbeat client for node status and the lease that no rate limit holds back, and an event
// client with the event limits. Upstream's three share one HTTP/2 connection; over HTTP/1.1 each request in flight
// takes a connection, so each client is capped. The agent's own client gets client-go's HTTP/1.1 cap (25): a burst
// of pods starts with a token request and a status write each, and 6 connections queued them (~0.2 s of a 30-pod
// burst, bench/pod-start --profile). Hollow nodes keep 6: a thousand of them in one process stand for a thousand
// kubelets with one HTTP/2 connection each, and hold ~10 connections apiece instead of up to 29 (bench/density).
import { DEFAULT_MAX_CONNECTIONS, KubeClient, type ClientConfig } from '@cl/kube-client';

export interface NodeClientLimits {
  qps: number;
  burst: number;
  eventQPS: number;
  eventBurst: number;
}

export interface NodeClientConnections {
  /** The node's own traffic: pod statuses, tokens, secrets and config maps, mirror pods. */
  main: number;
  heartbeat: number;
  events: number;
}

/** The node agent's caps on connections per client. */
export const NODE_CLIENT_CONNECTIONS: NodeClientConnections = { main: DEFAULT_MAX_CONNECTIONS, heartbeat: 2, events: 2 };
/** A hollow node's (bench/density): see above. */
export const HOLLOW_NODE_CLIENT_CONNECTIONS: NodeClientConnections = { main: 6, heartbeat: 2, events: 2 };

export interface NodeClients {
  client: KubeClient;
  heartbeat: KubeClient;
  events: KubeClient;
}

export function nodeClients(base: ClientConfig, limits: NodeClientLimits, connections = NODE_CLIENT_CONNECTIONS): NodeClients {
  return {
    client: new KubeClient({ ...base, qps: limits.qps, burst: limits.burst, maxConnections: connections.main }),
    heartbeat: new KubeClient({ ...base, qps: -1, maxConnections: connections.heartbeat }),
    // As upstream's event client (client-go's rest config): --event-qps 0 is client-go's DefaultQPS 5 and
    // --event-burst 0 its DefaultBurst 10, as the flags' help says.
    events: new KubeClient({ ...base, qps: limits.eventQPS, burst: limits.eventBurst, maxConnections: connections.events }),
  };
}
