// The handler set the read-only and main servers share (pkg/kubelet/server InstallDefaultHandlers), plus
// the debugging handlers only the main server has.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HealthChecks } from '@cl/healthz';
import type { Registry } from 'prom-client';
import { serveCheckpoint } from './checkpoint';
import { serveDebug, DEBUG_PREFIXES } from './debug-handlers';
import type { NodeRuntime } from './node-runtime';
import { cpuCount, memoryCapacity } from './node-stats';
import { notFound, send, sendJson } from './respond';
import { PROMETHEUS_TEXT, renderCadvisorMetrics, renderResourceMetrics, type ResourceInput } from './resource-metrics';
import { buildSummary, type SummaryContext } from './stats-summary';
import type { LogFn } from '../log';

export { notFound } from './respond';

export interface HandlerDeps {
  nodeName: string;
  startTime: Date;
  pods: () => object[];
  health: HealthChecks;
  metrics: Registry;
  /** Registry of /metrics/slis (health check results). */
  sliMetrics: Registry;
  /** Registry of /metrics/probes (prober results; empty while no pod has probes). */
  probeMetrics?: Registry;
  /** The effective configuration for /configz; absent disables it (read-only server, debugging off). */
  configz?: () => object;
  /** Debugging handlers enabled (main server with --enable-debugging-handlers). */
  debugging: boolean;
  setVerbosity?: (v: number) => void;
  /** The container runtime for logs, exec, stats; absent when no runtime is connected (unit tests). */
  runtime?: NodeRuntime;
  /** nodefs (--root-dir), the pod log directory and the directory /logs/ serves (/var/log). */
  rootDir?: string;
  podLogsDir?: string;
  systemLogDir?: string;
  log?: LogFn;
  /** --streaming-connection-idle-timeout in ms (0: none). */
  streamingIdleTimeoutMs?: number;
  /** The ContainerCheckpoint gate: POST /checkpoint/... among the debugging handlers. */
  checkpoint?: boolean;
}

const podList = (items: object[]) => ({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items });

function summaryContext(deps: HandlerDeps): SummaryContext {
  return { nodeName: deps.nodeName, startTime: deps.startTime, runtime: deps.runtime, rootDir: deps.rootDir ?? '/', podLogsDir: deps.podLogsDir ?? '/var/log/pods' };
}

async function resourceInput(deps: HandlerDeps, onlyCpuAndMemory: boolean): Promise<ResourceInput> {
  try {
    const s = await buildSummary(summaryContext(deps), onlyCpuAndMemory);
    return { node: s.node as ResourceInput['node'], pods: s.pods, scrapeError: false };
  } catch (e) {
    deps.log?.(`E "Error getting summary for resourceMetric prometheus endpoint" err=${JSON.stringify((e as Error).message)}`);
    return { node: {}, pods: [], scrapeError: true };
  }
}

async function cadvisorMetrics(deps: HandlerDeps): Promise<string> {
  const input = await resourceInput(deps, true);
  const containers = deps.runtime ? await deps.runtime.cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } }).catch(() => []) : [];
  return renderCadvisorMetrics({
    ...input,
    machine: { cpuCores: await cpuCount(), memoryBytes: await memoryCapacity() },
    containerInfo: (uid, name) => {
      const c = containers.find((x) => x.labels['io.kubernetes.pod.uid'] === uid && x.metadata?.name === name);
      return c ? { id: c.id, image: c.image?.image ?? '' } : undefined;
    },
  });
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  return async (req, res, path) => {
    if (path === '/healthz' || path.startsWith('/healthz/')) {
      if (await deps.health.handle(req, res)) return;
      return notFound(res);
    }
    if (path === '/pods' || path === '/pods/') return sendJson(res, podList(deps.pods()));
    if (path === '/stats/summary' || path === '/stats' || path === '/stats/') {
      const only = new URL(req.url ?? '/', 'http://x').searchParams.get('only_cpu_and_memory') === 'true';
      try {
        return sendJson(res, await buildSummary(summaryContext(deps), only));
      } catch (e) {
        return send(res, 500, `Internal Error: failed to get summary stats: ${(e as Error).message}`);
      }
    }
    if (path === '/metrics') return send(res, 200, await deps.metrics.metrics(), deps.metrics.contentType);
    if (path === '/metrics/slis') return send(res, 200, await deps.sliMetrics.metrics(), deps.sliMetrics.contentType);
    if (path === '/metrics/resource') return send(res, 200, renderResourceMetrics(await resourceInput(deps, true)), PROMETHEUS_TEXT);
    if (path === '/metrics/cadvisor') return send(res, 200, await cadvisorMetrics(deps), PROMETHEUS_TEXT);
    if (path === '/metrics/probes') {
      return send(res, 200, deps.probeMetrics ? await deps.probeMetrics.metrics() : '', PROMETHEUS_TEXT);
    }
    if (path === '/configz' && deps.configz && deps.debugging) return sendJson(res, deps.configz());
    if (path.startsWith('/checkpoint/') && deps.debugging && deps.checkpoint) {
      return serveCheckpoint(req, res, path.slice('/checkpoint/'.length), deps.pods, deps.runtime, deps.rootDir ?? '/var/lib/clet');
    }
    const debugPrefix = DEBUG_PREFIXES.find((p) => path === p.slice(0, -1) || path.startsWith(p));
    if (debugPrefix || path === '/debug/flags/v') {
      if (!deps.debugging) return send(res, 405, 'Debug endpoints are disabled.\n');
      return serveDebug(req, res, path, debugPrefix, deps);
    }
    return notFound(res);
  };
}
