/** Where the OTLP exporter connects: a TCP host/port, or a unix socket (grpc-js `unix:` target). */
export type CollectorTarget = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; url: string };

/**
 * Maps TracingConfiguration.endpoint (gRPC naming: `host:port`, `dns:///host:port`, `unix:///path`) to the exporter's
 * target. Unset means the exporter defaults: the OTEL_EXPORTER_OTLP_{TRACES_,}ENDPOINT variables, else localhost:4317.
 */
export function collectorTarget(endpoint: string | undefined, env: NodeJS.ProcessEnv = process.env): CollectorTarget {
  const raw = endpoint || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || 'localhost:4317';
  if (raw.startsWith('unix:')) return { kind: 'unix', url: raw };
  let hostPort = raw;
  if (raw.startsWith('dns:')) {
    // dns:[//authority/]host[:port]
    const rest = raw.slice(4);
    hostPort = rest.startsWith('//') ? rest.slice(rest.indexOf('/', 2) + 1) : rest;
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    hostPort = new URL(raw).host;
  }
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(hostPort);
  const host = m?.[1] ?? m?.[2] ?? hostPort;
  return { kind: 'tcp', host: host || 'localhost', port: Number(m?.[3] ?? 4317) };
}
