// Local ephemeral storage limits (--local-storage-capacity-isolation, upstream's localStorageEviction): a pod whose
// emptyDir outgrows its sizeLimit, whose ephemeral storage outgrows its containers' summed limit, or one of whose
// containers outgrows its own limit is evicted whatever the node's free space, in upstream's words.
import { Quantity } from '@cl/apimachinery';
import type { Pod } from '../pods/api-types';
import { parseQuantity } from '../pods/quantity';
import type { PodUsage } from './pod-usage';

export interface LocalStorageViolation {
  pod: Pod;
  message: string;
  /** The evictions metric's label, as upstream's pseudo-signals. */
  signal: 'emptydirfs.limit' | 'ephemeralpodfs.limit' | 'ephemeralcontainerfs.limit';
}

const text = (q: string | number) => Quantity.parse(String(q)).toString();

/** Whether a pod asks for any local storage limit (only those are measured). */
export function hasLocalStorageLimits(pod: Pod): boolean {
  return (pod.spec.volumes ?? []).some((v) => v.emptyDir?.sizeLimit !== undefined)
    || pod.spec.containers.some((c) => c.resources?.limits?.['ephemeral-storage'] !== undefined);
}

/** The pod's summed container ephemeral-storage limits, when any container has one (upstream's PodLimits). */
function podLimit(pod: Pod): { bytes: number; text: string } | undefined {
  const limits = pod.spec.containers.map((c) => c.resources?.limits?.['ephemeral-storage']).filter((l): l is string | number => l !== undefined);
  if (limits.length === 0) return undefined;
  const sum = limits.reduce<Quantity>((a, l) => a.add(Quantity.parse(String(l))), Quantity.parse('0'));
  return { bytes: Number(sum.value()), text: sum.toString() };
}

/**
 * The first limit each pod breaks, checked in upstream's order: emptyDir sizeLimit, the pod's total, each container
 * (logs, plus the writable layer unless images have a filesystem of their own).
 */
export function localStorageViolation(pod: Pod, usage: PodUsage, dedicatedImageFs: boolean): LocalStorageViolation | null {
  for (const v of pod.spec.volumes ?? []) {
    const limit = v.emptyDir?.sizeLimit;
    const used = usage.emptyDirs[v.name];
    if (limit === undefined || used === undefined || parseQuantity(limit) <= 0) continue;
    if (used > parseQuantity(limit)) {
      return { pod, signal: 'emptydirfs.limit', message: `Usage of EmptyDir volume ${JSON.stringify(v.name)} exceeds the limit ${JSON.stringify(text(limit))}. ` };
    }
  }
  const total = podLimit(pod);
  if (total && usage.ephemeralBytes > total.bytes) {
    return { pod, signal: 'ephemeralpodfs.limit', message: `Pod ephemeral local storage usage exceeds the total limit of containers ${total.text}. ` };
  }
  for (const c of usage.containers) {
    const limit = pod.spec.containers.find((x) => x.name === c.name)?.resources?.limits?.['ephemeral-storage'];
    if (limit === undefined || parseQuantity(limit) === 0) continue;
    const used = dedicatedImageFs ? c.logsBytes : c.ephemeralBytes ?? c.logsBytes;
    if (used > parseQuantity(limit)) {
      return { pod, signal: 'ephemeralcontainerfs.limit', message: `Container ${c.name} exceeded its local ephemeral storage limit ${JSON.stringify(text(limit))}. ` };
    }
  }
  return null;
}
