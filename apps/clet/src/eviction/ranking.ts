// The order pods are evicted in, as upstream's rank functions: for memory, pods using more than they requested
// first, then lower priority, then the larger excess over requests; for disk the same with ephemeral storage
// (bytes or inodes); for pids, lower priority, then more processes. A pod without usage counts as exceeding.
import type { Pod } from '../pods/api-types';
import { parseQuantity } from '../pods/quantity';
import type { PodUsage } from './pod-usage';

/** A pod's request of a resource: its containers' sum, or the largest init container's when that is more. */
export function podRequest(pod: Pod, resource: string): number {
  const of = (c: { resources?: { requests?: Record<string, string | number> } }) => {
    const q = c.resources?.requests?.[resource];
    return q === undefined ? 0 : parseQuantity(q);
  };
  const sum = pod.spec.containers.reduce((a, c) => a + of(c), 0);
  return Math.max(sum, ...(pod.spec.initContainers ?? []).map(of));
}

const priorityOf = (pod: Pod) => Number(pod.spec.priority ?? 0);

type Usage = (u: PodUsage) => number;
type Compare = (a: Pod, b: Pod) => number;

/** Pods over their request first; a pod without usage goes first (upstream: unknown usage is not trusted). */
function exceedsRequests(usages: ReadonlyMap<string, PodUsage>, usage: Usage, resource: string): Compare {
  const exceeds = (p: Pod) => {
    const u = usages.get(p.metadata.uid ?? '');
    return !u || usage(u) > podRequest(p, resource);
  };
  return (a, b) => Number(exceeds(b)) - Number(exceeds(a));
}

const byPriority: Compare = (a, b) => priorityOf(a) - priorityOf(b);

/** Larger usage above the request first. */
function aboveRequests(usages: ReadonlyMap<string, PodUsage>, usage: Usage, resource: string): Compare {
  const above = (p: Pod) => {
    const u = usages.get(p.metadata.uid ?? '');
    return u ? usage(u) - podRequest(p, resource) : Number.POSITIVE_INFINITY;
  };
  return (a, b) => above(b) - above(a);
}

function orderedBy(...cmps: Compare[]): Compare {
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

const memoryUsed: Usage = (u) => u.memoryBytes;
const bytesUsed: Usage = (u) => u.ephemeralBytes;
const inodesUsed: Usage = (u) => u.ephemeralInodes;

/** The pods in eviction order for the resource being reclaimed (memory, ephemeral-storage, inodes or pids). */
export function rankPods(pods: readonly Pod[], resource: string, usages: ReadonlyMap<string, PodUsage>): Pod[] {
  let cmp: Compare;
  switch (resource) {
    case 'memory':
      cmp = orderedBy(exceedsRequests(usages, memoryUsed, 'memory'), byPriority, aboveRequests(usages, memoryUsed, 'memory'));
      break;
    case 'ephemeral-storage':
      cmp = orderedBy(exceedsRequests(usages, bytesUsed, 'ephemeral-storage'), byPriority, aboveRequests(usages, bytesUsed, 'ephemeral-storage'));
      break;
    case 'inodes':
      // Inodes have no request: every pod using any exceeds it, then priority and usage decide.
      cmp = orderedBy(exceedsRequests(usages, inodesUsed, 'inodes'), byPriority, aboveRequests(usages, inodesUsed, 'inodes'));
      break;
    default:
      cmp = orderedBy(byPriority, (a, b) => (usages.get(b.metadata.uid ?? '')?.processes ?? 0) - (usages.get(a.metadata.uid ?? '')?.processes ?? 0));
  }
  return [...pods].sort(cmp);
}

/**
 * Upstream's IsCriticalPod: static pods (any source but the API server), mirror pods, and pods of priority at least
 * 2000000000 (system-cluster-critical and system-node-critical). They are never evicted and admitted under pressure.
 */
export function isCriticalPod(pod: Pod): boolean {
  const a = pod.metadata.annotations ?? {};
  const source = a['kubernetes.io/config.source'];
  if (source !== undefined && source !== 'api') return true;
  if (a['kubernetes.io/config.mirror'] !== undefined) return true;
  return priorityOf(pod) >= 2_000_000_000;
}
