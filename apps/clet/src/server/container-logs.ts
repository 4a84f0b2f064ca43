// GET /containerLogs/{namespace}/{pod}/{container}: the container's log file from the runtime, with
// the query parameters of v1 PodLogOptions (follow, previous, tailLines/tail, limitBytes, timestamps,
// sinceSeconds, sinceTime) and the kubelet's status codes and messages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCriLog, type LogReadOptions, type LogSink } from './cri-log-reader';
import type { NodeRuntime } from './node-runtime';
import { findPod, hasContainerSpec, logContainerId } from './pod-lookup';
import { sendText } from './respond';

export interface PodLogQuery {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  sinceTime?: number;
}

/** Go's query-to-bool conversion: anything but "0" or "false" (any case) is true. */
const queryBool = (v: string | null) => v !== null && v !== '0' && v.toLowerCase() !== 'false';

function queryInt(q: URLSearchParams, name: string): number | undefined | Error {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) return new Error(`invalid ${name}`);
  return Number(v);
}

/** Decodes and validates the query; 'decode' and 'invalid' map to upstream's 400 and 422. */
export function parsePodLogQuery(q: URLSearchParams): PodLogQuery | 'decode' | 'invalid' {
  const query = new URLSearchParams(q);
  // The legacy "tail" parameter stands for tailLines; "all" means no limit.
  const tail = query.get('tail');
  if (tail) {
    if (tail === 'all') query.delete('tailLines');
    else query.set('tailLines', tail);
  }
  const out: PodLogQuery = { follow: queryBool(query.get('follow')), previous: queryBool(query.get('previous')), timestamps: queryBool(query.get('timestamps')) };
  for (const name of ['tailLines', 'limitBytes', 'sinceSeconds'] as const) {
    const v = queryInt(query, name);
    if (v instanceof Error) return 'decode';
    if (v !== undefined) out[name] = v;
  }
  const sinceTime = query.get('sinceTime');
  if (sinceTime) {
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(sinceTime) || Number.isNaN(Date.parse(sinceTime))) return 'decode';
    out.sinceTime = Date.parse(sinceTime);
  }
  if (out.tailLines !== undefined && out.tailLines < 0) return 'invalid';
  if (out.limitBytes !== undefined && out.limitBytes < 1) return 'invalid';
  if (out.sinceSeconds !== undefined && (out.sinceSeconds < 1 || out.sinceTime !== undefined)) return 'invalid';
  return out;
}

export function readOptions(q: PodLogQuery, now = Date.now()): LogReadOptions {
  let sinceMs: number | undefined;
  if (q.sinceSeconds !== undefined) sinceMs = now - q.sinceSeconds * 1000;
  if (q.sinceTime !== undefined && (sinceMs === undefined || q.sinceTime > sinceMs)) sinceMs = q.sinceTime;
  return {
    follow: q.follow,
    timestamps: q.timestamps,
    ...(q.tailLines !== undefined ? { tailLines: q.tailLines } : {}),
    ...(q.limitBytes !== undefined ? { limitBytes: q.limitBytes } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  };
}

function responseSink(res: ServerResponse): LogSink {
  return {
    get closed() {
      return res.destroyed || res.writableEnded;
    },
    write(chunk) {
      return new Promise((resolve) => {
        if (res.write(chunk)) return resolve();
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    },
  };
}

export async function serveContainerLogs(
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  pods: () => object[],
  runtime: NodeRuntime | undefined,
): Promise<void> {
  const parts = rest.split('/');
  if (parts.length !== 3) return sendText(res, 404, '404 page not found\n');
  const [namespace, podName, container] = parts.map((p) => decodeURIComponent(p));
  if (!podName) return sendText(res, 400, '{"message": "Missing podID."}');
  if (!container) return sendText(res, 400, '{"message": "Missing container name."}');
  if (!namespace) return sendText(res, 400, '{"message": "Missing podNamespace."}');
  const q = parsePodLogQuery(new URL(req.url ?? '/', 'http://x').searchParams);
  if (q === 'decode') return sendText(res, 400, '{"message": "Unable to decode query."}');
  if (q === 'invalid') return sendText(res, 422, '{"message": "Invalid request."}');

  const pod = findPod(pods(), namespace, podName);
  if (!pod) return sendText(res, 404, `pod ${JSON.stringify(podName)} does not exist`);
  if (!hasContainerSpec(pod, container)) return sendText(res, 404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);
  if (!runtime) return sendText(res, 400, `pod ${JSON.stringify(podName)} cannot be found - no logs available`);

  let containerId: string;
  let path: string;
  try {
    containerId = logContainerId(pod, container, q.previous);
  } catch (e) {
    return sendText(res, 400, (e as Error).message);
  }
  try {
    path = await runtime.logPath(containerId);
  } catch (e) {
    return sendText(res, 400, `failed to get container status ${JSON.stringify(containerId)}: ${(e as Error).message}`);
  }
  // From here on the status is 200, as upstream commits it before reading (errors end the stream).
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.flushHeaders();
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  try {
    await readCriLog(path, readOptions(q), responseSink(res), () => runtime.isRunning(containerId), abort.signal);
  } catch (e) {
    res.write(`failed to open log file ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  res.end();
}
