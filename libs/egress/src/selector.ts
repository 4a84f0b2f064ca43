import type { EgressSelection, EgressSelectorConfiguration } from '@cl/config';
import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { readFileSync } from 'node:fs';
import type * as http from 'node:http';
import type * as https from 'node:https';
import type { Duplex } from 'node:stream';
import type { SecureContextOptions } from 'node:tls';
import type { Registry } from 'prom-client';
import { DialerHttpAgent, DialerHttpsAgent } from './agent';
import { joinHostPort, type Dialer } from './dialer';
import { directDialer } from './direct';
import { EgressDialError, errorText, fileErrorText } from './errors';
import { connectTunnelServer, httpConnectHandshake, proxyAddressOf, type HttpConnectTarget } from './http-connect';
import { dialKonnectivity } from './konnectivity';
import { createEgressMetrics, type DialProtocol, type DialTransport, type EgressMetrics } from './metrics';

/** Names callers ask for; `master` is `controlplane` and `store` (this project's name) is `etcd`. */
export type EgressSelectionName = 'controlplane' | 'master' | 'cluster' | 'etcd' | 'store';
type CanonicalName = 'controlplane' | 'cluster' | 'etcd';

export interface EgressSelectorOptions {
  /** prom-client registry for the `apiserver_egress_dialer_*` and konnectivity client metrics. */
  registry?: Registry;
  /** Tracer for `Proxy via <protocol> protocol over <transport>` spans (only made when the caller's context has a span). */
  tracer?: Tracer;
  /** Backstop for one tunnelled dial, whatever the caller's signal (upstream: 30 s). */
  dialTimeoutMs?: number;
  /** How long closing a konnectivity tunnel waits for CLOSE_RSP (upstream: 10 s). */
  closeTimeoutMs?: number;
}

export interface EgressSelector {
  /** The dialer for a selection: a tunnel when configured, plain TCP otherwise. */
  dialerFor(name: EgressSelectionName): Dialer;
  /** Whether the selection dials directly (not configured, or `Direct`). */
  isDirect(name: EgressSelectionName): boolean;
  /** An HTTP agent over `dialerFor(name)`. */
  agentFor(name: EgressSelectionName): http.Agent;
  /** An HTTPS agent over `dialerFor(name)`; the TLS handshake with the destination runs inside the tunnel. */
  agentFor(name: EgressSelectionName, tlsOptions: https.AgentOptions): https.Agent;
}

const CANONICAL: Record<string, CanonicalName> = {
  controlplane: 'controlplane',
  master: 'controlplane',
  cluster: 'cluster',
  etcd: 'etcd',
  store: 'etcd',
};

function canonical(name: string): CanonicalName {
  const c = CANONICAL[name.toLowerCase()];
  if (!c) throw new Error(`unrecognized service name ${name}`);
  return c;
}

/**
 * Builds the dialers of an EgressSelectorConfiguration (already validated by `@cl/config`). Certificates are read
 * here, once; construction errors read as upstream's `failed to create dialer for egressSelection "<name>": <err>`.
 * Without a configuration every selection dials directly.
 */
export function createEgressSelector(config?: EgressSelectorConfiguration, options: EgressSelectorOptions = {}): EgressSelector {
  const metrics = createEgressMetrics(options.registry);
  const dialers = new Map<CanonicalName, Dialer>();
  for (const selection of config?.egressSelections ?? []) {
    const name = canonical(selection.name);
    try {
      const dialer = buildDialer(selection, metrics, options);
      if (dialer) dialers.set(name, dialer);
    } catch (err) {
      throw new Error(`failed to create dialer for egressSelection ${JSON.stringify(selection.name)}: ${errorText(err)}`, { cause: err });
    }
  }
  const dialerFor = (name: EgressSelectionName): Dialer => dialers.get(canonical(name)) ?? directDialer;
  function agentFor(name: EgressSelectionName): http.Agent;
  function agentFor(name: EgressSelectionName, tlsOptions: https.AgentOptions): https.Agent;
  function agentFor(name: EgressSelectionName, tlsOptions?: https.AgentOptions): http.Agent {
    const dialer = dialerFor(name);
    return tlsOptions ? new DialerHttpsAgent(dialer, tlsOptions) : new DialerHttpAgent(dialer);
  }
  return { dialerFor, isDirect: (name) => !dialers.has(canonical(name)), agentFor };
}

function buildDialer(selection: EgressSelection, metrics: EgressMetrics, options: EgressSelectorOptions): Dialer | undefined {
  const { proxyProtocol, transport } = selection.connection;
  const backstopMs = options.dialTimeoutMs ?? 30_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const tracer = options.tracer ?? trace.getTracer('k8s.io/apiserver/pkg/server/egressselector');
  switch (proxyProtocol) {
    case 'Direct':
      return undefined;
    case 'HTTPConnect': {
      if (!transport || (!transport.tcp && !transport.uds)) throw new Error('Either a TCP or UDS transport must be specified');
      const target = httpConnectTarget(transport);
      const proxyAddress = proxyAddressOf(target);
      return instrumented('http_connect', target.transport, metrics, tracer, backstopMs, async (addr, signal) => {
        const socket = await connectTunnelServer(target, signal);
        return httpConnectHandshake(socket, addr, proxyAddress, signal);
      });
    }
    case 'GRPC': {
      if (!transport?.uds) throw new Error('UDS transport must be specified for GRPC');
      const udsName = transport.uds.udsName;
      return instrumented('grpc', 'uds', metrics, tracer, backstopMs, (addr, signal) =>
        dialKonnectivity({ udsName, metrics, backstopMs, closeTimeoutMs }, addr, signal),
      );
    }
    default:
      throw new Error(`unrecognized service connection protocol ${JSON.stringify(proxyProtocol)}`);
  }
}

function httpConnectTarget(transport: NonNullable<EgressSelection['connection']['transport']>): HttpConnectTarget {
  if (transport.uds) return { transport: 'uds', udsName: transport.uds.udsName };
  const tcp = transport.tcp!;
  let url: URL;
  try {
    url = new URL(tcp.url);
  } catch (err) {
    throw new Error(`invalid proxy server url ${JSON.stringify(tcp.url)}: ${errorText(err)}`);
  }
  if (url.port === '') throw new Error(`invalid proxy server url ${JSON.stringify(tcp.url)}: missing port in address`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = Number(url.port);
  // Upstream 1.33 crashes on an http:// URL (it always dials TLS); plain TCP is what such a URL asks for.
  if (url.protocol === 'http:') return { transport: 'tcp', host, port };
  return { transport: 'tcp', host, port, tls: loadTls(tcp.tlsConfig ?? {}) };
}

function loadTls(cfg: { caBundle?: string; clientCert?: string; clientKey?: string }): SecureContextOptions {
  const out: SecureContextOptions = {};
  if (cfg.clientCert || cfg.clientKey) {
    try {
      out.cert = readFileSync(cfg.clientCert ?? '');
      out.key = readFileSync(cfg.clientKey ?? '');
    } catch (err) {
      throw new Error(`failed to read key pair ${cfg.clientCert ?? ''} & ${cfg.clientKey ?? ''}, got ${fileErrorText(err)}`);
    }
  }
  if (cfg.caBundle) {
    let pem: string;
    try {
      pem = readFileSync(cfg.caBundle, 'utf8');
    } catch (err) {
      throw new Error(`failed to read cert file ${cfg.caBundle}, got ${fileErrorText(err)}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('failed to append CA cert to the cert pool');
    out.ca = pem;
  }
  return out;
}

/** Upstream's common dial wrapper: start counter, a span when traced, failure by stage, duration on success. */
function instrumented(
  protocol: DialProtocol,
  transport: DialTransport,
  metrics: EgressMetrics,
  tracer: Tracer,
  backstopMs: number,
  dialTunnel: (addr: string, signal: AbortSignal) => Promise<Duplex>,
): Dialer {
  return {
    async dial(host, port, signal) {
      const addr = joinHostPort(host, port);
      const parent = context.active();
      const span = trace.getSpan(parent)
        ? tracer.startSpan(`Proxy via ${protocol} protocol over ${transport}`, { attributes: { address: addr } }, parent)
        : undefined;
      metrics.dialStart(protocol, transport);
      const started = performance.now();
      const backstop = AbortSignal.timeout(backstopMs);
      try {
        const stream = await dialTunnel(addr, signal ? AbortSignal.any([signal, backstop]) : backstop);
        metrics.dialDuration(protocol, transport, (performance.now() - started) / 1000);
        return stream;
      } catch (err) {
        const stage = err instanceof EgressDialError ? err.stage : 'connect';
        metrics.dialFailure(protocol, transport, stage);
        span?.recordException(err as Error);
        span?.setStatus({ code: SpanStatusCode.ERROR, message: errorText(err) });
        throw err;
      } finally {
        span?.end();
      }
    },
  };
}
