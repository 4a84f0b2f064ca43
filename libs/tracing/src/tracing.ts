import type { TracingConfiguration } from '@cl/config';
import { listenForwarder, type Dialer, type Forwarder } from '@cl/egress';
import * as grpc from '@grpc/grpc-js';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ExportResult } from '@opentelemetry/core';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureContextManager } from './context-manager';
import { collectorTarget } from './endpoint';
import { httpServerAttributes } from './http-server';
import { apiServerID } from './instance-id';
import { createSampler } from './sampler';

export interface TracingOptions {
  /** `service.name` of the exported resource (e.g. `apiserver`). */
  serviceName: string;
  /** `service.instance.id`; defaults to the API server id derived from the host name. */
  instanceId?: string;
  /** The `controlplane` egress dialer: the exporter's connections are made through it. */
  egress?: Dialer;
  /** Batch span processor delay (upstream: 5 s). */
  scheduledDelayMs?: number;
  /** Trace/span id source (tests use it to pin trace ids). */
  idGenerator?: IdGenerator;
}

export interface StartSpanOptions {
  /** Parent context; default the active context. `null` starts a new root. */
  parent?: Context | null;
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** Instrumentation scope of the span (default `k8s.io/component-base/tracing`). */
  tracerName?: string;
}

export interface ServerSpanOptions {
  /** Span name, e.g. from `serverSpanName`. */
  name: string;
  /**
   * Whether the caller's `traceparent` may be the parent (upstream: the user is in system:masters or
   * system:monitoring). Untrusted requests start a new root linked to the incoming context.
   */
  trusted: boolean;
  /** Parent when the request carries no trace context (upstream: the `authentication` span). */
  localParent?: Context;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Tracing {
  /** False for the no-op form (no configuration): nothing is recorded, incoming context still propagates. */
  readonly enabled: boolean;
  readonly tracer: Tracer;
  getTracer(name: string): Tracer;
  startSpan(name: string, options?: StartSpanOptions): Span;
  /** The context with `span` active, to pass as a parent or to `withContext`. */
  contextWith(span: Span, parent?: Context): Context;
  /** Runs `fn` with `ctx` active (outbound calls and child spans made inside pick it up). */
  withContext<T>(ctx: Context, fn: () => T): T;
  /** The W3C trace context and baggage of incoming headers. */
  extract(headers: IncomingHttpHeaders): Context;
  /** Adds `traceparent`/`tracestate`/`baggage` for `ctx` (default: active) to outbound headers. */
  inject(headers: Record<string, string>, ctx?: Context): Record<string, string>;
  /** The HTTP server span of one request (kind SERVER, otelhttp's attributes), parented by upstream's rules. */
  startServerSpan(req: IncomingMessage, options: ServerSpanOptions): { span: Span; context: Context };
  /** A node:http handler wrapped in a server span ending with the response; for services without authn rules. */
  wrapHandler(handler: Handler, options?: { spanName?: (req: IncomingMessage) => string; trusted?: (req: IncomingMessage) => boolean }): Handler;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

const DEFAULT_TRACER = 'k8s.io/component-base/tracing';
const OTELHTTP_TRACER = 'go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp';
const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });

/**
 * Tracing as component-base sets it up: OTLP/gRPC without TLS to `endpoint` (default localhost:4317), resource
 * `service.name` + `service.instance.id`, ParentBased(TraceIDRatioBased) sampling with Go's decisions, W3C
 * propagation. Without a configuration it is a no-op that still propagates context.
 */
export function createTracing(config: TracingConfiguration | undefined, options: TracingOptions): Tracing {
  ensureContextManager();
  if (!config) return build(trace.getTracerProvider(), false, async () => undefined, async () => undefined);

  const target = collectorTarget(config.endpoint);
  let url: string;
  let forwarderDir: string | undefined;
  let forwarder: Promise<Forwarder | undefined> = Promise.resolve(undefined);
  if (options.egress && target.kind === 'tcp') {
    // grpc-js cannot take a socket, so the exporter talks to a private unix socket whose connections are dialled
    // through the egress selection; the path is known now, the exporter connects only at its first export.
    forwarderDir = mkdtempSync(path.join(tmpdir(), 'cl-otlp-'));
    const sock = path.join(forwarderDir, 'otlp.sock');
    url = `unix://${sock}`;
    forwarder = listenForwarder(options.egress, target.host, target.port, { path: sock }).catch(() => undefined);
  } else {
    url = target.kind === 'unix' ? target.url : `http://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  }
  const otlp = new OTLPTraceExporter({ url, credentials: grpc.credentials.createInsecure(), timeoutMillis: 10_000 });
  const exporter = afterReady(forwarder, otlp);
  const provider = new BasicTracerProvider({
    sampler: createSampler(config.samplingRatePerMillion),
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.instance.id': options.instanceId ?? apiServerID() }),
    idGenerator: options.idGenerator,
    spanProcessors: [
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.scheduledDelayMs ?? 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 30_000 }),
    ],
  });
  return build(
    provider,
    true,
    () => provider.forceFlush(),
    async () => {
      await provider.shutdown();
      await (await forwarder)?.close();
      if (forwarderDir) rmSync(forwarderDir, { recursive: true, force: true });
    },
  );
}

function build(provider: TracerProvider, enabled: boolean, forceFlush: () => Promise<void>, shutdown: () => Promise<void>): Tracing {
  const tracer = provider.getTracer(DEFAULT_TRACER);
  const serverTracer = provider.getTracer(OTELHTTP_TRACER);

  const startSpan = (name: string, o: StartSpanOptions = {}): Span => {
    const parent = o.parent === null ? ROOT_CONTEXT : (o.parent ?? context.active());
    const t = o.tracerName ? provider.getTracer(o.tracerName) : tracer;
    return t.startSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, attributes: o.attributes, links: o.links }, parent);
  };

  const extract = (headers: IncomingHttpHeaders): Context => propagator.extract(ROOT_CONTEXT, headers, headerGetter);

  const startServerSpan = (req: IncomingMessage, o: ServerSpanOptions) => {
    const incoming = propagator.extract(ROOT_CONTEXT, req.headers, headerGetter);
    const remote = trace.getSpanContext(incoming);
    const remoteValid = remote !== undefined && trace.isSpanContextValid(remote);
    let parent: Context;
    const links: Link[] = [];
    if (o.trusted) parent = remoteValid ? incoming : (o.localParent ?? ROOT_CONTEXT);
    else {
      parent = ROOT_CONTEXT;
      if (remoteValid) links.push({ context: remote });
    }
    const span = serverTracer.startSpan(o.name, { kind: SpanKind.SERVER, attributes: httpServerAttributes(req), links }, parent);
    return { span, context: trace.setSpan(parent, span) };
  };

  const wrapHandler: Tracing['wrapHandler'] = (handler, o = {}) => (req, res) => {
    const { span, context: ctx } = startServerSpan(req, { name: o.spanName?.(req) ?? req.method ?? 'GET', trusted: o.trusted?.(req) ?? true });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(ctx, () => handler(req, res));
  };

  return {
    enabled,
    tracer,
    getTracer: (name) => provider.getTracer(name),
    startSpan,
    contextWith: (span, parent = context.active()) => trace.setSpan(parent, span),
    withContext: (ctx, fn) => context.with(ctx, fn),
    extract,
    inject(headers, ctx = context.active()) {
      propagator.inject(ctx, headers, { set: (carrier, key, value) => ((carrier as Record<string, string>)[key] = value) });
      return headers;
    },
    startServerSpan,
    wrapHandler,
    forceFlush,
    shutdown,
  };
}

const headerGetter = {
  get(carrier: IncomingHttpHeaders, key: string): string | string[] | undefined {
    return carrier[key.toLowerCase()];
  },
  keys(carrier: IncomingHttpHeaders): string[] {
    return Object.keys(carrier);
  },
};

/** Holds exports until the egress forwarder listens, so the exporter's first connection does not fail and back off. */
function afterReady(ready: Promise<unknown>, inner: SpanExporter): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      void ready.then(() => inner.export(spans, done));
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
