// The node's facts for its status, measured on each status update: capacity from the host, allocatable after
// --kube-reserved, --system-reserved and the hard eviction thresholds (upstream's node allocatable), pressure
// conditions from the eviction manager (../eviction), readiness from the runtime's Status, identity
// and images from the host and the runtime.
import { cpus as hostCpus } from 'node:os';
import { Quantity } from '@cl/apimachinery';
import type { CriClient } from '@cl/cri';
import { goArch, type NodeFacts } from '@cl/node';
import { fsUsage, hostIdentity, hugePages, memInfo } from './host-measurements';

export interface NodeFactsOptions {
  cri: CriClient;
  /** Where the agent keeps its state (--root-dir): nodefs, the ephemeral-storage capacity. */
  rootDir: string;
  nodeIP: string;
  hostname: string;
  port: number;
  version: string;
  maxPods: number;
  nodeStatusMaxImages: number;
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  evictionHard: Record<string, string>;
  /** The eviction manager's node conditions (MemoryPressure, DiskPressure, PIDPressure); none without one. */
  pressure?: () => { memoryPressure: boolean; diskPressure: boolean; pidPressure: boolean };
  /** The sync loop's health (PLEG in upstream's words): an error makes the node NotReady. */
  syncLoopHealthy: () => Error | null;
  cpus?: () => number;
}

/**
 * The pods this node takes (capacity and admission): --max-pods, or fewer with --pods-per-core (podsPerCore x cores),
 * as upstream's node capacity; 0 podsPerCore is no per-core limit.
 */
export function effectiveMaxPods(maxPods: number, podsPerCore: number, cores: number): number {
  return podsPerCore > 0 ? Math.min(maxPods, podsPerCore * cores) : maxPods;
}

/** Upstream's maxNamesPerImageInNodeStatus. */
const MAX_NAMES_PER_IMAGE = 5;

const binary = (bytes: number) => Quantity.parse(`${Math.floor(bytes / 1024)}Ki`);

/** A threshold as bytes (or count): an absolute quantity, or a percentage of `capacity`. */
export function thresholdValue(text: string | undefined, capacity: number): number {
  if (!text) return 0;
  if (text.endsWith('%')) return (Number(text.slice(0, -1)) / 100) * capacity;
  return Number(Quantity.parse(text).value());
}

export function nodeFactsSource(o: NodeFactsOptions): () => Promise<NodeFacts> {
  const identity = hostIdentity();
  return async () => {
    const mem = memInfo();
    const nodefs = fsUsage(o.rootDir);
    const cpus = o.cpus ? o.cpus() : hostCpus().length;
    const capacity: Record<string, Quantity> = {
      cpu: Quantity.parse(String(cpus)),
      'ephemeral-storage': binary(nodefs.capacityBytes),
      memory: binary(mem.totalBytes),
      pods: Quantity.parse(String(o.maxPods)),
    };
    for (const [name, bytes] of Object.entries(hugePages())) capacity[name] = Quantity.parse(String(bytes));

    // Hard eviction thresholds come off allocatable as upstream: memory.available from memory,
    // nodefs.available from ephemeral-storage.
    const evictionReserve: Record<string, number> = {
      memory: thresholdValue(o.evictionHard['memory.available'], mem.totalBytes),
      'ephemeral-storage': thresholdValue(o.evictionHard['nodefs.available'], nodefs.capacityBytes),
    };
    const allocatable: Record<string, string> = {};
    for (const [name, cap] of Object.entries(capacity)) {
      let left = cap;
      for (const reserved of [o.kubeReserved[name], o.systemReserved[name]]) if (reserved) left = left.sub(Quantity.parse(reserved));
      if (evictionReserve[name]) left = left.sub(Quantity.parse(String(Math.ceil(evictionReserve[name]))));
      allocatable[name] = (left.sign() < 0 ? Quantity.parse('0') : left).toString();
    }

    const [notReady, runtimeVersion, images] = await Promise.all([runtimeProblems(o), runtimeVersionOf(o.cri), nodeImages(o.cri, o.nodeStatusMaxImages)]);
    const loop = o.syncLoopHealthy();
    if (loop) notReady.push(`PLEG is not healthy: ${loop.message}`);
    return {
      capacity: Object.fromEntries(Object.entries(capacity).map(([k, v]) => [k, v.toString()])),
      allocatable,
      addresses: [{ type: 'InternalIP', address: o.nodeIP }, { type: 'Hostname', address: o.hostname }],
      nodeInfo: {
        ...identity,
        containerRuntimeVersion: runtimeVersion,
        kubeletVersion: o.version,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: goArch(),
      },
      images,
      daemonPort: o.port,
      notReady,
      ...(o.pressure?.() ?? { memoryPressure: false, diskPressure: false, pidPressure: false }),
    };
  };
}

/** Upstream's runtime readiness messages, from the CRI Status conditions. */
async function runtimeProblems(o: NodeFactsOptions): Promise<string[]> {
  let status;
  try {
    status = await o.cri.status();
  } catch {
    return ['container runtime is down'];
  }
  const problems: string[] = [];
  const cond = (type: string) => status.status?.conditions.find((c) => c.type === type);
  const runtime = cond('RuntimeReady');
  if (!runtime?.status) problems.push(`container runtime not ready: RuntimeReady=false reason:${runtime?.reason ?? ''} message:${runtime?.message ?? ''}`);
  const network = cond('NetworkReady');
  if (!network?.status) problems.push(`container runtime network not ready: NetworkReady=false reason:${network?.reason ?? ''} message:${network?.message ?? ''}`);
  return problems;
}

async function runtimeVersionOf(cri: CriClient): Promise<string> {
  try {
    const v = await cri.version();
    return `${v.runtimeName}://${v.runtimeVersion}`;
  } catch {
    return '';
  }
}

/** Images largest first, at most `max` (-1: all), each with its digests then tags (upstream's order). */
async function nodeImages(cri: CriClient, max: number): Promise<Array<{ names: string[]; sizeBytes: number }>> {
  if (max === 0) return [];
  let list;
  try {
    list = await cri.listImages();
  } catch {
    return [];
  }
  const images = list
    .map((i) => ({ names: [...i.repoDigests, ...i.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: Number(i.size) }))
    .filter((i) => i.names.length > 0)
    .sort((a, b) => b.sizeBytes - a.sizeBytes);
  return max < 0 ? images : images.slice(0, max);
}
