#!/usr/bin/env node
// `node apps/clet/dist/hollow-main.js --clconfig=KUBECONFIG --nodes=N`: N hollow nodes in one process, for scale
// tests (issue 20; kubemark's hollow kubelets). Each registers its Node, keeps its lease and status, watches the pods
// bound to it and runs them through the real agent's pod runtime, sync loop and status writes over a runtime that
// answers CRI calls from memory (hollow/fake-cri.ts). Nothing runs on the machine: no containerd, no cgroups,
// no servers. Prints one line once every node has its first pod list, and stops them all on SIGTERM/SIGINT.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration, types, FlagSet } from '@cl/flags';
import { loadKubeconfig } from '@cl/kube-client';
import { HollowNode } from './hollow/hollow-node';
import { entryText, type LogEntry } from './log';
import { DEFAULT_VERSION } from './version';

export function hollowFlags(): FlagSet {
  return new FlagSet('clet-hollow')
    .add({ name: 'clconfig', type: types.string, default: '', usage: 'kubeconfig of the API server the nodes join (required).' })
    .add({ name: 'nodes', type: types.int32, default: 1, usage: 'How many hollow nodes to run.' })
    .add({ name: 'node-name-prefix', type: types.string, default: 'hollow-node-', usage: 'Node names are this prefix and the node index.' })
    .add({ name: 'first-index', type: types.int32, default: 0, usage: 'Index of the first node (several processes can share a cluster).' })
    .add({ name: 'root-dir', type: types.string, default: '', usage: 'Where the nodes keep pod directories; default a temporary directory removed at exit.' })
    .add({ name: 'capacity-cpu', type: types.string, default: '4', usage: 'CPU capacity each node reports.' })
    .add({ name: 'capacity-memory', type: types.string, default: '16Gi', usage: 'Memory capacity each node reports.' })
    .add({ name: 'max-pods', type: types.int32, default: 110, usage: 'Pods each node admits (and reports as capacity).' })
    .add({ name: 'kube-api-qps', type: types.float64, default: 50, usage: "QPS of each node's own API client." })
    .add({ name: 'kube-api-burst', type: types.int32, default: 100, usage: "Burst of each node's own API client." })
    .add({ name: 'node-status-update-frequency', type: types.string, default: '10s', usage: 'How often each node checks its status.' })
    .add({ name: 'node-lease-duration-seconds', type: types.int32, default: 40, usage: "Each node's lease duration; renewed every quarter of it." })
    .add({ name: 'start-concurrency', type: types.int32, default: 20, usage: 'Nodes started at once.' });
}

export interface HollowOptions {
  clconfig: string;
  nodes: number;
  prefix: string;
  firstIndex: number;
  rootDir: string;
  cpu: string;
  memory: string;
  maxPods: number;
  qps: number;
  burst: number;
  statusUpdateFrequencyMs: number;
  leaseDurationSeconds: number;
  startConcurrency: number;
}

/** The options, or every problem with the command line at once. */
export function parseHollowArgs(argv: readonly string[]): { options?: HollowOptions; errors: string[] } {
  const r = hollowFlags().parse(argv);
  const errors = [...r.errors];
  const v = r.values;
  if (!v['clconfig']) errors.push('--clconfig is required: the kubeconfig of the API server the nodes join');
  if ((v['nodes'] as number) < 1) errors.push('--nodes must be at least 1');
  if ((v['max-pods'] as number) < 1) errors.push('--max-pods must be at least 1');
  if ((v['start-concurrency'] as number) < 1) errors.push('--start-concurrency must be at least 1');
  let statusUpdateFrequencyMs = 0;
  try {
    statusUpdateFrequencyMs = parseDuration(v['node-status-update-frequency'] as string);
  } catch (e) {
    errors.push(`--node-status-update-frequency: ${(e as Error).message}`);
  }
  if (errors.length) return { errors };
  return {
    errors,
    options: {
      clconfig: v['clconfig'] as string,
      nodes: v['nodes'] as number,
      prefix: v['node-name-prefix'] as string,
      firstIndex: v['first-index'] as number,
      rootDir: v['root-dir'] as string,
      cpu: v['capacity-cpu'] as string,
      memory: v['capacity-memory'] as string,
      maxPods: v['max-pods'] as number,
      qps: v['kube-api-qps'] as number,
      burst: v['kube-api-burst'] as number,
      statusUpdateFrequencyMs,
      leaseDurationSeconds: v['node-lease-duration-seconds'] as number,
      startConcurrency: v['start-concurrency'] as number,
    },
  };
}

/** Warnings and errors only: a thousand nodes' info lines would drown the process. */
const log = (e: LogEntry | string) => {
  if (typeof e === 'string' || (e.severity !== 'E' && e.severity !== 'W')) return;
  process.stderr.write(`${e.severity}${new Date().toISOString()} hollow] ${entryText(e)}\n`);
};

async function main(argv: readonly string[]): Promise<number> {
  const { options: o, errors } = parseHollowArgs(argv);
  if (!o) {
    for (const e of errors) process.stderr.write(`Error: ${e}\n`);
    return 1;
  }
  const api = loadKubeconfig(o.clconfig);
  const ownDir = !o.rootDir;
  const root = o.rootDir || mkdtempSync(join(tmpdir(), 'cl-hollow-'));
  const nodes: HollowNode[] = [];
  for (let i = 0; i < o.nodes; i++) {
    const index = o.firstIndex + i;
    const name = `${o.prefix}${index}`;
    nodes.push(
      new HollowNode({
        api,
        name,
        index,
        dir: join(root, name),
        version: DEFAULT_VERSION,
        capacity: { cpu: o.cpu, memory: o.memory, pods: o.maxPods },
        qps: o.qps,
        burst: o.burst,
        statusUpdateFrequencyMs: o.statusUpdateFrequencyMs,
        leaseDurationSeconds: o.leaseDurationSeconds,
        log,
      }),
    );
  }
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
      if (ownDir) rmSync(root, { recursive: true, force: true });
    })());
  const signalled = new Promise<number>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void stop().then(() => resolve(0)));
  });
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < nodes.length && !stopping) await nodes[next++].start();
  };
  await Promise.all(Array.from({ length: Math.min(o.startConcurrency, nodes.length) }, worker));
  if (!stopping) process.stdout.write(`${nodes.length} hollow nodes started in ${((Date.now() - started) / 1000).toFixed(2)} s (${o.prefix}${o.firstIndex}..${o.prefix}${o.firstIndex + nodes.length - 1})\n`);
  return signalled;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`Error: ${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}
