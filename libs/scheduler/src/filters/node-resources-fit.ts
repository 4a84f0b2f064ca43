// NodeResourcesFit: the pod's requests must fit in what the node has allocatable minus what its pods request,
// and the node must have room for one more pod. Every shortfall is a reason of its own, so the FailedScheduling
// message counts `Insufficient cpu` and `Insufficient memory` separately.
import type { NodeInfo } from '../node-info';
import { podResources } from '../resources';
import type { Pod } from '../types';

export const TOO_MANY_PODS_REASON = 'Too many pods';

/** The reasons, in upstream's order: pods, cpu, memory, ephemeral-storage, then scalar resources by name. */
export function insufficientResources(pod: Pod, nodeInfo: NodeInfo): string[] {
  const reasons: string[] = [];
  const { allocatable, requested } = nodeInfo;
  if (nodeInfo.pods.length + 1 > allocatable.allowedPodNumber) reasons.push(TOO_MANY_PODS_REASON);
  const want = podResources(pod);
  const short = (wanted: number, free: number) => wanted > 0 && wanted > free;
  if (short(want.milliCPU, allocatable.milliCPU - requested.milliCPU)) reasons.push('Insufficient cpu');
  if (short(want.memory, allocatable.memory - requested.memory)) reasons.push('Insufficient memory');
  if (short(want.ephemeralStorage, allocatable.ephemeralStorage - requested.ephemeralStorage)) reasons.push('Insufficient ephemeral-storage');
  // Upstream walks a Go map here, in no fixed order; by name is one of its orders and a stable one.
  for (const name of Object.keys(want.scalar).sort()) {
    if (short(want.scalar[name], (allocatable.scalar[name] ?? 0) - (requested.scalar[name] ?? 0))) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

export function nodeResourcesFit(pod: Pod, nodeInfo: NodeInfo): string[] | null {
  const reasons = insufficientResources(pod, nodeInfo);
  return reasons.length ? reasons : null;
}
