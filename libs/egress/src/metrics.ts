import { Counter, Histogram, type Registry } from 'prom-client';

export type DialProtocol = 'http_connect' | 'grpc';
export type DialTransport = 'tcp' | 'uds';

/** What a tunnelled dial reports; a no-op when no registry is given. */
export interface EgressMetrics {
  dialStart(protocol: DialProtocol, transport: DialTransport): void;
  dialFailure(protocol: DialProtocol, transport: DialTransport, stage: 'connect' | 'proxy'): void;
  dialDuration(protocol: DialProtocol, transport: DialTransport, seconds: number): void;
  /** konnectivity client counters (GRPC mode). */
  packet(segment: 'from_client' | 'to_client', packetType: string): void;
  konnectivityDialFailure(reason: KonnectivityDialFailureReason): void;
}

export type KonnectivityDialFailureReason = 'unknown' | 'timeout' | 'context' | 'endpoint' | 'dialclosed' | 'tunnelclosed';

const noop: EgressMetrics = {
  dialStart: () => undefined,
  dialFailure: () => undefined,
  dialDuration: () => undefined,
  packet: () => undefined,
  konnectivityDialFailure: () => undefined,
};

// Several selectors may share one registry (tests, reloads); metrics are created once per registry.
function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter<string> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<string>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

function histogram(registry: Registry, name: string, help: string, labelNames: string[], buckets: number[]): Histogram<string> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<string>;
  return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

/** The upstream metric names and labels (`apiserver_egress_dialer_*`, `konnectivity_network_proxy_client_*`). */
export function createEgressMetrics(registry?: Registry): EgressMetrics {
  if (!registry) return noop;
  const start = counter(
    registry,
    'apiserver_egress_dialer_dial_start_total',
    '[ALPHA] Dial starts, labeled by the protocol (http-connect or grpc) and transport (tcp or uds).',
    ['protocol', 'transport'],
  );
  const failure = counter(
    registry,
    'apiserver_egress_dialer_dial_failure_count',
    '[ALPHA] Dial failure count, labeled by the protocol (http-connect or grpc), transport (tcp or uds), and stage (connect or proxy). The stage indicates at which stage the dial failed',
    ['protocol', 'transport', 'stage'],
  );
  const duration = histogram(
    registry,
    'apiserver_egress_dialer_dial_duration_seconds',
    '[ALPHA] Dial latency histogram in seconds, labeled by the protocol (http-connect or grpc), transport (tcp or uds)',
    ['protocol', 'transport'],
    [0.005, 0.025, 0.1, 0.5, 2.5, 12.5],
  );
  const packets = counter(
    registry,
    'konnectivity_network_proxy_client_stream_packets_total',
    'Count of packets processed, by segment and packet type (example: from_client, DIAL_REQ)',
    ['segment', 'packet_type'],
  );
  const dialFailures = counter(
    registry,
    'konnectivity_network_proxy_client_dial_failure_total',
    'Number of dial failures observed, by reason (example: remote endpoint error)',
    ['reason'],
  );
  return {
    dialStart: (protocol, transport) => start.inc({ protocol, transport }),
    dialFailure: (protocol, transport, stage) => failure.inc({ protocol, transport, stage }),
    dialDuration: (protocol, transport, seconds) => duration.observe({ protocol, transport }, seconds),
    packet: (segment, packetType) => packets.inc({ segment, packet_type: packetType }),
    konnectivityDialFailure: (reason) => dialFailures.inc({ reason }),
  };
}
