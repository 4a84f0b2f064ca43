// POST /checkpoint/{ns}/{pod}/{container}[?timeout=s] (ContainerCheckpoint gate, debugging handlers):
// asks the runtime to write a checkpoint archive under <root-dir>/checkpoints and names the file.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeRuntime } from './node-runtime';
import { findPod, hasContainerSpec, podFullName } from './pod-lookup';
import { send, sendText } from './respond';

export async function serveCheckpoint(
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  pods: () => object[],
  runtime: NodeRuntime | undefined,
  rootDir: string,
): Promise<void> {
  const parts = rest.split('/').map((p) => decodeURIComponent(p));
  if (parts.length !== 3) return sendText(res, 404, '404 page not found\n');
  if (req.method !== 'POST') return sendText(res, 405, '405: Method Not Allowed');
  const [namespace, podName, container] = parts;
  const pod = findPod(pods(), namespace, podName);
  if (!pod || !runtime) return sendText(res, 404, 'pod does not exist');
  if (!hasContainerSpec(pod, container)) return sendText(res, 404, `container ${container} does not exist`);
  // The last "timeout" parameter wins, as upstream reads it.
  const timeouts = new URL(req.url ?? '/', 'http://x').searchParams.getAll('timeout');
  let timeout = 0;
  if (timeouts.length > 0) {
    const t = timeouts[timeouts.length - 1];
    if (!/^[+-]?\d+$/.test(t)) return sendText(res, 404, 'cannot parse value of timeout parameter');
    timeout = Number(t);
  }
  const dir = join(rootDir, 'checkpoints');
  const location = join(dir, `checkpoint-${podFullName(pod)}-${container}-${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}.tar`);
  try {
    const c = await runtime.runningContainer(namespace, podName, '', container);
    if (!c) throw new Error(`container ${container} not found`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await runtime.cri.checkpointContainer(c.id, location, timeout);
  } catch (e) {
    return sendText(res, 500, `checkpointing of ${namespace}/${podName}/${container} failed (${(e as Error).message})`);
  }
  return send(res, 200, JSON.stringify({ items: [location] }), 'application/json');
}
