// The handler set the read-only and main servers share (pkg/kubelet/server InstallDefaultHandlers), plus
// the debugging handlers only the main server has.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HealthChecks } from '@cl/healthz';
import type { Registry } from 'prom-client';

export interface HandlerDeps {
  nodeName: string;
  startTime: Date;
  pods: () => object[];
  health: HealthChecks;
  metrics: Registry;
  /** Registry of /metrics/slis (health check results). */
  sliMetrics: Registry;
  /** The effective configuration for /configz; absent disables it (read-only server, debugging off). */
  configz?: () => object;
  /** Debugging handlers enabled (main server with --enable-debugging-handlers). */
  debugging: boolean;
  setVerbosity?: (v: number) => void;
}

const DEBUG_PREFIXES = ['/run/', '/exec/', '/attach/', '/portForward/', '/containerLogs/', '/runningpods/', '/debug/pprof/', '/logs/'];

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export const notFound = (res: ServerResponse) => send(res, 404, '404 page not found\n');

const podList = (items: object[]) => JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items });

async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error('request body too large');
  }
  return body;
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  return async (req, res, path) => {
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      if (await deps.health.handle(req, res)) return;
      return notFound(res);
    }
    if (path === '/pods' || path === '/pods/') {
      return send(res, 200, podList(deps.pods()), 'application/json');
    }
    if (path === '/stats/summary' || path === '/stats' || path === '/stats/') {
      const summary = {
        node: { nodeName: deps.nodeName, startTime: deps.startTime.toISOString().replace(/\.\d+Z$/, 'Z') },
        pods: deps.pods().map((p) => {
          const m = (p as { metadata?: { name?: string; namespace?: string; uid?: string } }).metadata ?? {};
          return { podRef: { name: m.name, namespace: m.namespace, uid: m.uid } };
        }),
      };
      return send(res, 200, JSON.stringify(summary), 'application/json');
    }
    if (path === '/metrics') {
      return send(res, 200, await deps.metrics.metrics(), deps.metrics.contentType);
    }
    if (path === '/metrics/slis') {
      return send(res, 200, await deps.sliMetrics.metrics(), deps.sliMetrics.contentType);
    }
    if (['/metrics/cadvisor', '/metrics/resource', '/metrics/probes'].includes(path)) {
      // Registered, like upstream, but this agent has no cAdvisor, resource or probe collectors yet.
      return send(res, 200, '', 'text/plain; version=0.0.4; charset=utf-8');
    }
    if (path === '/configz' && deps.configz && deps.debugging) {
      return send(res, 200, JSON.stringify(deps.configz()), 'application/json');
    }
    const debugPrefix = DEBUG_PREFIXES.find((p) => path === p.slice(0, -1) || path.startsWith(p));
    if (debugPrefix || path === '/debug/flags/v') {
      if (!deps.debugging) return send(res, 405, 'Debug endpoints are disabled.\n');
      if (debugPrefix === '/runningpods/') return send(res, 200, podList(deps.pods()), 'application/json');
      if (path === '/debug/flags/v') return debugFlagsV(req, res, deps);
      if (debugPrefix === '/containerLogs/') {
        const [ns, pod] = path.slice('/containerLogs/'.length).split('/');
        if (!pod) return send(res, 400, '{"message": "Missing podID."}', 'application/json');
        const known = deps.pods().some((p) => {
          const m = (p as { metadata?: { name?: string; namespace?: string } }).metadata ?? {};
          return m.name === pod && m.namespace === ns;
        });
        if (!known) return send(res, 404, `pod ${JSON.stringify(pod)} does not exist\n`);
      }
      return notFound(res);
    }
    return notFound(res);
  };
}

async function debugFlagsV(req: IncomingMessage, res: ServerResponse, deps: HandlerDeps): Promise<void> {
  if (req.method !== 'PUT') return send(res, 405, `unsupported http method\n`);
  const body = (await readBody(req)).trim();
  const v = Number(body);
  if (!/^\d+$/.test(body) || !deps.setVerbosity) return send(res, 400, `error: failed set global log level: invalid value ${JSON.stringify(body)}\n`);
  deps.setVerbosity(v);
  return send(res, 200, `successfully set klog.logging.verbosity to ${v}\n`);
}
