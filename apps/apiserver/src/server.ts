// Assembles the API server from its parts: TLS listener (connection timeouts) -> request deadline -> request
// metrics -> authentication -> authorization -> handlers (health, /version, /metrics, API routes), post-start
// hooks after the listener is up, then the in-process controllers on the loopback client, and upstream's graceful
// shutdown (readyz fails at once, the delay, the in-process controllers stop, then stop accepting and drain).
import { createServer as createHttpsServer, type Server } from 'node:https';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { readFileSync } from 'node:fs';
import { listenBacklog } from './listen-backlog';
import { ConnectionTrimmer } from './malloc-trim';
import { randomUUID } from 'node:crypto';
import {
  isPromiseLike,
  requestAttributes,
  requestInfo,
  type Attributes,
  type AuthResponse,
  type Authorizer,
  type Decision,
  type MaybePromise,
  type RequestAuthenticator,
  type RequestInfo,
  type UserInfo,
} from '@cl/auth';
import { HealthChecks, ShutdownCheck, logCheck, notFound, pingCheck, type HealthCheck, type HealthEndpoint } from '@cl/healthz';
import { mallocTrimmer } from '@cl/native-memory';
import { generateSelfSignedServing } from '@cl/pki';
import { openStore, startCompactor, storeHealthCheck, type Store } from '@cl/store';
import { listenForwarder, type EgressSelector, type Forwarder } from '@cl/egress';
import { isTracingTrusted, serverSpanName, type Tracing } from '@cl/tracing';
import { authorizationErrorText, forbiddenStatus } from '@cl/webhook-authz';
import { hasImpersonationHeaders, impersonate, type ImpersonationOutcome } from './authz/impersonation';
import { startInProcessControllers, type InProcessControllerFactory, type InProcessControllers } from './in-process';
import type { Logger } from './logger';
import { loopbackClientConfig } from './loopback-client';
import type { ApiserverOptions } from './options';
import { ApiServiceRegistry, createPostStartHooks, type GroupVersion, type HookName } from './post-start-hooks';
import { InFlightLimiter, TOO_MANY_REQUESTS_TEXT } from './max-in-flight';
import { httpsServerTimeouts, requestDeadline, writeTimeout } from './request-timeout';
import { requestLabels, requestMetrics, metricsRegistry } from './metrics';
import { exactRoute, type RequestContext, type Route } from './routes';
import { statusBody, statuses, writeJson, writeStatus } from './status';
import { versionInfo } from './version';
import type { MountedResources } from './resources';

export interface ServerParts {
  /** The whole authentication chain; resolves null when no authenticator accepts the request (401). */
  authenticator: RequestAuthenticator;
  authorizer: Authorizer;
  /** API routes beyond health, /version and /metrics. */
  routes?: Route[];
  /** Group versions served by `routes`, registered as local APIServices on start. */
  groupVersions?: GroupVersion[];
  clientCA?: string | null;
  /** Extra health checks (e.g. from the authenticators), added before the boot steps. */
  healthChecks?: Array<{ endpoints: HealthEndpoint[]; check: HealthCheck }>;
  extraSteps?: Partial<Record<HookName, () => Promise<void>>>;
  /** Outbound connections: the store through `store` (alias `etcd`). Direct when absent. */
  egress?: EgressSelector;
  /** Request spans; absent or disabled means no span work on the request path. */
  tracing?: Tracing;
  /** The resource API over the opened store (built-in kinds, admission, watch caches); none when absent. */
  resources?: (store: Store) => MountedResources;
  /** The loopback client's bearer token, which `authenticator` accepts (./authn/loopback); `controllers` need it. */
  loopbackToken?: string;
  /** Control loops run in this process on the loopback client (./in-process), once the post-start hooks finished. */
  controllers?: InProcessControllerFactory[];
  /** Called once the server has stopped, to release what the parts hold (watchers, clients). */
  onClose?: () => Promise<void> | void;
}

export interface RunningServer {
  address: AddressInfo;
  url: string;
  store: Store;
  health: HealthChecks;
  /** Resolves when every post-start hook has finished. */
  started: Promise<void>;
  /** Upstream's graceful termination; resolves when the server has fully stopped. */
  shutdown(): Promise<void>;
}

const ALL: HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

export async function startApiserver(opts: ApiserverOptions, parts: ServerParts, log: Logger): Promise<RunningServer> {
  const metrics = requestMetrics();
  const inFlightLimit = new InFlightLimiter(opts);
  inFlightLimit.register(metricsRegistry);
  const storeForwarder = await storeTunnel(opts, parts.egress);
  const store = openStore({
    servers: opts.storeServers,
    dataDir: opts.dataDir,
    prefix: opts.storePrefix,
    tls: { caFile: opts.storeCaFile || undefined, certFile: opts.storeCertFile || undefined, keyFile: opts.storeKeyFile || undefined },
    connectTarget: storeForwarder?.address,
  });
  const tracing = parts.tracing?.enabled ? parts.tracing : undefined;
  // As kube-apiserver: every interval the history before the previous interval's revision is dropped.
  const compactor = startCompactor(store, { intervalMs: opts.storeCompactionIntervalMs, log: (l) => log.info(l) });

  const health = new HealthChecks({ log: (l) => log.info(l.trimEnd()), metrics: metrics.health });
  const shutdownCheck = new ShutdownCheck();
  const logHealth = logCheck(() => log.flush());
  const groupVersions = [{ group: '', version: 'v1' }, ...(parts.groupVersions ?? [])];
  const registry = new ApiServiceRegistry();
  const mounted = parts.resources?.(store);
  // The watch caches fill while the informers hook runs, as upstream's shared informers start there.
  const extraSteps = { ...parts.extraSteps, ...(mounted ? { 'generic-apiserver-start-informers': () => mounted.start() } : {}) };
  const hooks = createPostStartHooks({ store, clientCA: parts.clientCA ?? null, groupVersions, log: (l) => log.info(l), extraSteps }, registry);
  health.add(ALL, pingCheck());
  health.add(ALL, logHealth);
  health.add(ALL, storeHealthCheck(store, { timeoutMs: opts.storeHealthcheckTimeoutMs }));
  for (const extra of parts.healthChecks ?? []) health.add(extra.endpoints, extra.check);
  const grace = { livezGraceMs: opts.livezGracePeriodMs };
  const steps = hooks.steps;
  // Profile A order: the hooks, with autoregister-completion before the last one (apiservice-openapi-controller).
  for (const step of steps.slice(0, -1)) health.add(ALL, step, grace);
  const served = groupVersions.filter((gv) => gv.group !== '');
  health.add(ALL, { name: 'autoregister-completion', check: () => {
    if (!registry.isComplete(served)) throw new Error('not finished');
  } }, grace);
  health.add(ALL, steps[steps.length - 1], grace);
  health.add(['readyz'], shutdownCheck);

  const routes: Route[] = [
    exactRoute('/version', ({ req, res }) => writeJson(req, res, 200, versionInfo())),
    exactRoute('/version/', ({ req, res }) => writeJson(req, res, 200, versionInfo())),
    exactRoute('/metrics', async ({ res }) => sendMetrics(res, await metricsRegistry.metrics(), metricsRegistry.contentType)),
    exactRoute('/metrics/slis', async ({ res }) => sendMetrics(res, await metrics.sliRegistry.metrics(), metrics.sliRegistry.contentType)),
    ...(parts.routes ?? []),
    ...(mounted?.routes ?? []),
  ];

  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;

  // The request path is written as plain continuations rather than async functions: with anonymous or
  // certificate users, the built-in authorizers and the health checks every step answers synchronously, and a
  // request then costs no promise at all (bench/healthz). Steps that do I/O (tokens, webhooks, routes) return
  // promises and the same continuations run when they settle.
  interface Request {
    req: IncomingMessage;
    res: ServerResponse;
    method: string;
    info: RequestInfo;
    started: number;
    pathClass: string;
    /** Set once the request is authenticated. */
    attrs?: Attributes;
    /** Served by a long-running route (not counted in flight): what closes it at shutdown. */
    longRunning?: { destroy(): void };
    /** The request's deadline (--request-timeout, ?timeout=); none for long-running requests. */
    timer?: NodeJS.Timeout;
    /** The max-in-flight seat, given back when the response closes or the deadline passes, whichever is first. */
    release?: () => void;
    /** No longer counted in flight (answered, closed, or past its deadline): the graceful shutdown stops waiting. */
    settled?: boolean;
    /** The response has closed (answered, or the client went away). */
    closed?: boolean;
    /** Answered 504 at its deadline; the steps still pending stop there. */
    timedOut?: boolean;
  }

  const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();
  // Long-running streams, closed at shutdown once the listener stops accepting (as watches end with their caches).
  const streams = new Set<{ destroy(): void }>();

  const settle = (r: Request) => {
    if (r.settled) return;
    r.settled = true;
    if (--inFlight === 0) drained?.();
  };

  const finished = (r: Request) => {
    r.closed = true;
    clearTimeout(r.timer);
    r.release?.();
    if (r.longRunning) streams.delete(r.longRunning);
    else settle(r);
    if (r.res.writableFinished) metrics.observe(requestLabels(r.method, r.info, r.pathClass), r.res.statusCode, (performance.now() - r.started) / 1000);
  };

  // Past its deadline the request was answered and its seat given back; what its handler still does is its own
  // business (upstream's post-timeout activity): a write or a failure then is only logged.
  const timedOut = (r: Request) => {
    r.timedOut = true;
    r.release?.();
    settle(r);
    log.v(2, `request ${r.method} ${JSON.stringify(r.req.url)} timed out after ${((performance.now() - r.started) / 1000).toFixed(3)}s`);
    writeTimeout(r.res, r.req.complete);
  };

  const failed = (r: Request, e: unknown) => {
    if (r.timedOut) {
      log.v(2, `post-timeout activity of ${r.method} ${JSON.stringify(r.req.url)}: ${(e as Error)?.message ?? e}`);
      if (!r.res.writableEnded) r.res.destroy();
      return;
    }
    log.error(`request ${r.method} ${JSON.stringify(r.req.url)} failed: ${(e as Error)?.stack ?? e}`);
    if (!r.res.headersSent) writeStatus(r.req, r.res, statuses.internal('an error on the server has prevented the request from succeeding'));
    else r.res.destroy();
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const info = requestInfo(method, req.url ?? '/');
    const r: Request = { req, res, method, info, started: performance.now(), pathClass: 'other' };
    res.setHeader('Cache-Control', 'no-cache, private');
    res.setHeader('Audit-Id', headerValue(req.headers['audit-id']) ?? randomUUID());
    if (draining && !exemptFromRetryAfter(info.path, req.headers['user-agent'])) {
      // --shutdown-send-retry-after: the listener stays open until in-flight requests drain; new ones are turned away.
      res.setHeader('Retry-After', '5');
      res.setHeader('Connection', 'close');
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.statusCode = 429;
      res.end('The apiserver is shutting down, please try again later.\n');
      return;
    }
    inFlight++;
    res.on('close', () => finished(r));
    // The deadline runs from here, when the headers were read, as upstream's starts at the request's arrival.
    const deadline = requestDeadline(info, req.url ?? '/', opts.requestTimeoutMs);
    if (deadline.kind === 'invalid') {
      log.error(`Error - ${deadline.message}: ${JSON.stringify(req.url)}`);
      // apierrors.NewBadRequest: no details, unlike the handlers' 400s.
      writeStatus(req, res, statusBody(400, 'BadRequest', deadline.message));
      return;
    }
    if (deadline.kind === 'after') r.timer = setTimeout(timedOut, deadline.ms, r);
    try {
      const done = authenticate(r);
      if (isPromiseLike(done)) done.catch((e: unknown) => failed(r, e));
    } catch (e) {
      failed(r, e);
    }
  };

  type Span = ReturnType<Tracing['startSpan']>;

  /**
   * One step of the chain: `call(arg)` answers now or later; `span` ends once it has answered; then `next` with
   * the answer, or `fail` when it threw or rejected. `next`'s own errors are not the step's: they travel to
   * `failed` (500) through the caller.
   */
  const step = <A, T>(
    r: Request,
    span: Span | undefined,
    call: (arg: A) => MaybePromise<T>,
    arg: A,
    next: (r: Request, answer: T, span: Span | undefined) => MaybePromise<unknown>,
    fail: (r: Request, e: unknown) => void,
  ): MaybePromise<unknown> => {
    let answer: MaybePromise<T>;
    try {
      answer = call(arg);
    } catch (e) {
      span?.end();
      return fail(r, e);
    }
    if (!isPromiseLike(answer)) {
      span?.end();
      return next(r, answer, span);
    }
    return answer.then(
      (a) => {
        span?.end();
        return next(r, a, span);
      },
      (e: unknown) => {
        span?.end();
        fail(r, e);
      },
    );
  };

  const authenticateRequest = (req: IncomingMessage) => parts.authenticator.authenticate(req);
  const authorizeAttributes = (attrs: Attributes) => parts.authorizer.authorize(attrs);

  // Upstream 1.33: an `authentication` span of its own, then the server span parented by the caller's trace
  // context only for privileged users (otherwise a new root linked to it).
  const authenticate = (r: Request) =>
    step(r, tracing?.startSpan('authentication', { parent: null, tracerName: 'k8s.op/apiserver/pkg/endpoints/filterlatency' }), authenticateRequest, r.req, authenticated, unauthenticated);

  const unauthenticated = (r: Request, e: unknown) => {
    log.info(`Unable to authenticate the request: ${(e as Error)?.message ?? e}`);
    writeStatus(r.req, r.res, statuses.unauthorized());
  };

  const authenticated = (r: Request, answer: AuthResponse | null, authnSpan: Span | undefined): MaybePromise<unknown> => {
    if (!answer) {
      log.v(2, `Unable to authenticate the request: no credentials accepted for ${r.method} ${r.info.path}`);
      return writeStatus(r.req, r.res, statuses.unauthorized());
    }
    // Impersonation sits between authentication and authorization (upstream's WithImpersonation).
    if (hasImpersonationHeaders(r.req)) return impersonate(r.req, answer.user, authorizeAttributes).then((out) => impersonated(r, out, authnSpan), (e: unknown) => impersonationFailed(r, e));
    return actingAs(r, answer.user, authnSpan);
  };

  const impersonated = (r: Request, out: ImpersonationOutcome, authnSpan: Span | undefined): MaybePromise<unknown> => {
    if ('user' in out) return actingAs(r, out.user, authnSpan);
    if ('error' in out) return impersonationFailed(r, out.error);
    log.v(4, `Forbidden: ${JSON.stringify(r.req.url)}, Reason: ${JSON.stringify(out.reason)}`);
    return writeStatus(r.req, r.res, forbidden(out.forbidden, out.reason));
  };

  // Upstream's tooManyRequests: plain text, Retry-After 1 s; clients retry.
  const tooManyRequests = (r: Request) => {
    r.res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(TOO_MANY_REQUESTS_TEXT) });
    r.res.end(TOO_MANY_REQUESTS_TEXT);
  };

  const impersonationFailed = (r: Request, e: unknown) => writeStatus(r.req, r.res, statuses.internal((e as Error)?.message ?? String(e)));

  const actingAs = (r: Request, user: UserInfo, authnSpan: Span | undefined): MaybePromise<unknown> => {
    // Authentication can take long (a token webhook): a request answered or gone meanwhile takes no seat, which
    // nothing would give back.
    if (r.timedOut || r.closed) return;
    // --max-requests-inflight / priority and fairness sit after impersonation, before authorization (upstream's chain).
    const seat = inFlightLimit.admit(r.info, user);
    if (seat === null) return tooManyRequests(r);
    if (seat !== 'exempt') r.release = seat;
    const attrs = (r.attrs = requestAttributes(r.req, user, r.info));
    if (tracing) {
      const { span, context } = tracing.startServerSpan(r.req, {
        name: serverSpanName(r.method, r.info),
        trusted: isTracingTrusted(attrs.user.groups),
        localParent: authnSpan ? tracing.contextWith(authnSpan) : undefined,
      });
      r.res.on('finish', () => span.end());
      return tracing.withContext(context, () => authorize(r, attrs));
    }
    return authorize(r, attrs);
  };

  const authorize = (r: Request, attrs: Attributes) =>
    step(r, tracing?.startSpan('authorization', { attributes: { verb: attrs.verb, path: attrs.path } }), authorizeAttributes, attrs, serve, authorizationFailed);

  const authorizationFailed = (r: Request, e: unknown) => {
    const attrs = r.attrs!;
    log.error(`Authorization error (user=${JSON.stringify(attrs.user.username)}, verb=${JSON.stringify(attrs.verb)}): ${(e as Error)?.message ?? e}`);
    // Upstream answers a failed authorizer with plain text, not a Status (responsewriters.InternalError).
    const body = authorizationErrorText(r.req.url ?? '/', e as Error) + '\n';
    r.res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
    r.res.end(body);
  };

  const serve = (r: Request, decision: Decision): MaybePromise<unknown> => {
    const { req, res, method, info } = r;
    const attrs = r.attrs!;
    if (r.timedOut || r.closed) return;
    if (decision.decision !== 'Allow') {
      log.v(2, `Forbidden: ${JSON.stringify(info.path)}, Reason: ${JSON.stringify(decision.reason)}`);
      return writeStatus(req, res, forbidden(attrs, decision.reason));
    }
    const path = info.path;
    // The health handler routes on the target itself and says whether it answered: a path that only URL
    // normalisation turns into a health path (`/a/../livez`) falls through to the 404 below.
    const answered = health.handle(req, res);
    if (answered !== false) {
      r.pathClass = path;
      return answered;
    }
    const route = routes.find((x) => x.matches(method, path));
    if (!route) {
      if (/^\/apis?(\/|$)/.test(path)) return writeStatus(req, res, statuses.notFound());
      return notFound(res);
    }
    r.pathClass = route.pathClass;
    const upgrade = upgrades.get(req);
    if (route.longRunning && !r.res.writableFinished) {
      // An upgraded stream leaves its response object behind: its socket is what closes it.
      r.longRunning = upgrade?.socket ?? res;
      streams.add(r.longRunning);
      clearTimeout(r.timer);
      settle(r);
    }
    const ctx: RequestContext = { req, res, user: attrs.user, info, path, ...(upgrade ? { upgrade } : {}) };
    return route.handle(ctx);
  };

  const tls = await servingCertificate(opts, log);
  const server: Server = createHttpsServer(
    {
      cert: tls.cert,
      key: tls.key,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      // Header limit as Go's http.Server (1 MiB), so a large bearer token is judged by authentication (401), not refused as a bad request.
      maxHeaderSize: 1 << 20,
      // kube-apiserver's ReadHeaderTimeout and IdleTimeout (./request-timeout).
      ...httpsServerTimeouts({ readHeaderMs: opts.readHeaderTimeoutMs, idleMs: opts.idleConnectionTimeoutMs }),
    },
    handle,
  );
  serveUpgrades(server, handle, upgrades);
  server.on('tlsClientError', (err) => log.v(4, `TLS handshake error: ${err.message}`));
  // Closed connections' native memory back to the kernel after a burst (./malloc-trim); off the request path.
  const trimmer = mallocTrimmer();
  if (trimmer.available) {
    new ConnectionTrimmer({
      trim: () => trimmer.trimMalloc(),
      onTrim: (released, closed, ms) => log.v(2, `malloc_trim after ${closed} closed connections: ${released ? 'memory returned' : 'nothing to return'} (${ms.toFixed(1)}ms)`),
    }).watch(server);
  } else {
    log.info(`Freed connection memory stays with the process: ${trimmer.reason}`);
  }
  // Node's https server reports TLS failures (a handshake that timed out or failed) here too, on a socket that can
  // carry no HTTP answer, and headers that did not arrive in time, which Go's server closes without an answer: only
  // a request the HTTP parser refused gets its 400.
  const answeredUnreadable = new WeakSet<object>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // The parser reports again for every later chunk of a request it refused: the first answer stands.
    if (answeredUnreadable.has(socket)) return;
    if (!err.code?.startsWith('HPE_') || !socket.writable) return socket.destroy();
    answeredUnreadable.add(socket);
    // A request line and headers over the 1 MiB limit (a 2 MB URL) is Go's 431, anything else it cannot parse a 400.
    // The client may still be sending what was refused: the rest is read and dropped for a moment after the answer,
    // since closing a socket with unread input resets it and the reset can destroy the answer before it is read.
    socket.on('data', () => undefined).resume();
    socket.end(goErrorResponse(err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request'));
    setTimeout(() => socket.destroy(), 500).unref();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const hostPort = `${opts.bindAddress.includes(':') ? `[${opts.bindAddress}]` : opts.bindAddress}:${opts.securePort}`;
      reject(new Error(`failed to create listener: failed to listen on ${hostPort}: listen tcp ${hostPort}: bind: ${e.code === 'EADDRINUSE' ? 'address already in use' : e.message}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // The kernel's somaxconn as the backlog, as Go listens (listen-backlog.ts).
    server.listen({ port: opts.securePort, host: opts.bindAddress, backlog: listenBacklog() });
  });
  const address = server.address() as AddressInfo;
  log.info(`Serving securely on ${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`);

  const started = hooks.run((name, err) => {
    log.error(`PostStartHook ${JSON.stringify(name)} failed: ${err.message}`);
    process.exitCode = 1;
    void shutdown();
  });

  let controllers: InProcessControllers | undefined;
  let stopping: Promise<void> | null = null;
  const shutdown = () =>
    (stopping ??= (async () => {
      shutdownCheck.initiate();
      log.info(`Shutdown initiated; /readyz now fails, serving normally for ${opts.shutdownDelayMs}ms more`);
      if (opts.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, opts.shutdownDelayMs));
      // The in-process controllers stop first: their watches are requests in flight that the drain waits for.
      await controllers?.stop();
      if (opts.shutdownSendRetryAfter) {
        draining = true;
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      }
      // Watches are long-running: their streams end here (clients watch again elsewhere), so the listener drains.
      // From now on every request is turned away with Connection: close, as --shutdown-send-retry-after does:
      // a client that watches again at once on its kept-alive connection would otherwise hold the server open
      // with a watch on stores that no longer change.
      draining = true;
      mounted?.stop();
      for (const s of streams) s.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      logHealth.stop();
      await parts.onClose?.();
      compactor.stop();
      await store.close();
      await storeForwarder?.close();
      await parts.tracing?.shutdown();
      log.info('Server stopped: in-flight requests finished');
    })());

  void started.then(() => {
    log.info('All post-start hooks finished');
    const token = parts.loopbackToken;
    if (stopping || !token || !parts.controllers?.length) return;
    const target = { bindAddress: opts.bindAddress, port: address.port, servingCert: tls.cert, token };
    controllers = startInProcessControllers(parts.controllers, () => loopbackClientConfig(target, log), log, Buffer.from(tls.cert));
  });

  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return {
    address,
    url: `https://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    store,
    health,
    started,
    shutdown,
  };
}

/** Upstream's with_retry_after exemptions: health and metrics paths, and the server's own loopback clients. */
function exemptFromRetryAfter(path: string, userAgent: string | undefined): boolean {
  return /^\/(readyz|livez|healthz|metrics)/.test(path) || (userAgent ?? '').startsWith('kube-apiserver/');
}

/** etcd's gRPC client cannot take a socket, so a tunnelled `store` selection is reached through a loopback forwarder. */
async function storeTunnel(opts: ApiserverOptions, egress: EgressSelector | undefined): Promise<Forwarder | undefined> {
  if (!egress || opts.storeServers.length === 0 || egress.isDirect('store')) return undefined;
  const u = new URL(opts.storeServers[0]);
  return listenForwarder(egress.dialerFor('store'), u.hostname.replace(/^\[|\]$/g, ''), Number(u.port || 2379));
}

/**
 * Upgrade requests (exec, attach, port-forward) take the same path as plain ones: a response object on the raw
 * socket answers them (401, 403, errors) until a streaming route takes the socket over.
 */
function serveUpgrades(server: Server, handle: (req: IncomingMessage, res: ServerResponse) => void, upgrades: WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => socket.end());
    upgrades.set(req, { socket, head });
    handle(req, res);
  });
}

/** The plain-text answer Go's server writes for a request it could not read, before closing the connection. */
function goErrorResponse(status: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function sendMetrics(res: ServerResponse, body: string, contentType: string) {
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.end(body);
}

/** Upstream's 403 Status for non-resource and resource requests (the group/resource, not the subresource, qualifies). */
function forbidden(attrs: Attributes, reason: string) {
  return forbiddenStatus(attrs, reason);
}

async function servingCertificate(opts: ApiserverOptions, log: Logger): Promise<{ cert: Buffer; key: Buffer }> {
  if (opts.tlsCertFile) {
    return { cert: readFileSync(opts.tlsCertFile), key: readFileSync(opts.tlsPrivateKeyFile) };
  }
  const hosts = ['localhost', '127.0.0.1', '::1'];
  if (opts.bindAddress !== '0.0.0.0' && opts.bindAddress !== '::' && !hosts.includes(opts.bindAddress)) hosts.push(opts.bindAddress);
  const pair = await generateSelfSignedServing({ hosts, dir: opts.certDir, name: 'apiserver' });
  if (pair.created) log.info(`Generated self-signed cert (${pair.certFile}, ${pair.keyFile})`);
  return { cert: readFileSync(pair.certFile), key: readFileSync(pair.keyFile) };
}
