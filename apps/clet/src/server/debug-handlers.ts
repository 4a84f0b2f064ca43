// The debugging handlers of the main server (--enable-debugging-handlers): container logs, system logs,
// run/exec/attach/port-forward, the runtime's running pods and the verbosity knob.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveContainerLogs } from './container-logs';
import type { HandlerDeps } from './handlers';
import { notFound, send, sendJson, sendText } from './respond';
import { serveRun, serveStream } from './streaming';
import { serveSystemLogs } from './system-logs';

export const DEBUG_PREFIXES = ['/run/', '/exec/', '/attach/', '/portForward/', '/containerLogs/', '/runningpods/', '/debug/pprof/', '/logs/'];

async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error('request body too large');
  }
  return body;
}

async function debugFlagsV(req: IncomingMessage, res: ServerResponse, deps: HandlerDeps): Promise<void> {
  if (req.method !== 'PUT') return send(res, 405, `unsupported http method\n`);
  const body = (await readBody(req)).trim();
  const v = Number(body);
  if (!/^\d+$/.test(body) || !deps.setVerbosity) return send(res, 400, `error: failed set global log level: invalid value ${JSON.stringify(body)}\n`);
  deps.setVerbosity(v);
  return send(res, 200, `successfully set klog.logging.verbosity to ${v}\n`);
}

/** /runningpods/: what the runtime runs, as minimal v1 Pods (name, namespace, uid, running containers). */
async function runningPods(res: ServerResponse, deps: HandlerDeps): Promise<void> {
  const pods = deps.runtime ? await deps.runtime.runningPods() : [];
  const items = pods.map((p) => ({
    metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: null },
    spec: { containers: p.containers.map((c) => ({ name: c.metadata?.name ?? '', image: c.image?.image ?? '', resources: {} })) },
    status: {},
  }));
  return sendJson(res, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
}

export async function serveDebug(req: IncomingMessage, res: ServerResponse, path: string, prefix: string | undefined, deps: HandlerDeps): Promise<void> {
  const rest = prefix && path.startsWith(prefix) ? path.slice(prefix.length) : '';
  const log = deps.log ?? (() => undefined);
  switch (prefix) {
    case '/containerLogs/':
      return serveContainerLogs(req, res, rest, deps.pods, deps.runtime);
    case '/run/':
      return serveRun(req, res, rest, deps.pods, deps.runtime);
    case '/exec/':
      return serveStream('exec', req, res, rest, deps.pods, deps.runtime, log, deps.streamingIdleTimeoutMs);
    case '/attach/':
      return serveStream('attach', req, res, rest, deps.pods, deps.runtime, log, deps.streamingIdleTimeoutMs);
    case '/portForward/':
      return serveStream('portForward', req, res, rest, deps.pods, deps.runtime, log, deps.streamingIdleTimeoutMs);
    case '/runningpods/':
      return runningPods(res, deps);
    case '/logs/': {
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        return sendText(res, 400, '400 Bad Request\n');
      }
      return serveSystemLogs(req, res, decoded, deps.systemLogDir ?? '/var/log');
    }
  }
  if (path === '/debug/flags/v') return debugFlagsV(req, res, deps);
  // /debug/pprof/ profiles a Go process; a Node process has nothing to serve there.
  return notFound(res);
}
