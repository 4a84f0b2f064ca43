// From a pod's requests and limits to the limits of its pod cgroup, as upstream's ResourceConfigForPod
// (pkg/kubelet/cm/helpers_linux.go), and the CPU conversions the container limits share.
import type { Container, Pod } from '../pods/api-types';
import { parseQuantity } from '../pods/quantity';
import type { CgroupResources } from './cgroup-fs';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export const MIN_SHARES = 2;
export const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
const MILLI_CPU_TO_CPU = 1000;
/** The smallest quota the kernel accepts (1ms). */
export const MIN_QUOTA_US = 1000;
export const DEFAULT_CPU_PERIOD_US = 100_000;

/** Upstream MilliCPUToShares: 0 is the minimum (2), capped at the kernel's maximum. */
export function milliCpuToShares(milli: number): number {
  if (milli === 0) return MIN_SHARES;
  const shares = Math.floor((milli * SHARES_PER_CPU) / MILLI_CPU_TO_CPU);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** Upstream MilliCPUToQuota: 0 means no limit; otherwise at least 1ms per period. */
export function milliCpuToQuota(milli: number, periodUs: number): number {
  if (milli === 0) return 0;
  return Math.max(MIN_QUOTA_US, Math.floor((milli * periodUs) / MILLI_CPU_TO_CPU));
}

const milli = (q: string | number | undefined) => (q === undefined ? 0 : Math.round(parseQuantity(q) * 1000));
const bytes = (q: string | number | undefined) => (q === undefined ? 0 : Math.floor(parseQuantity(q)));

/** A container's request, defaulting to its limit as API defaulting does (static pods are not defaulted). */
function request(c: Container, r: 'cpu' | 'memory'): string | number | undefined {
  return c.resources?.requests?.[r] ?? c.resources?.limits?.[r];
}

/**
 * The pod's effective value (upstream PodRequests/PodLimits): the sum over the app containers, or the largest
 * init container when that is larger (init containers run one at a time, before the others).
 */
function podTotal(pod: Pod, value: (c: Container) => number): number {
  const sum = pod.spec.containers.reduce((n, c) => n + value(c), 0);
  const init = (pod.spec.initContainers ?? []).reduce((n, c) => Math.max(n, value(c)), 0);
  return Math.max(sum, init);
}

export function podCpuRequestMilli(pod: Pod): number {
  return podTotal(pod, (c) => milli(request(c, 'cpu')));
}

export interface PodCgroupOptions {
  /** --cpu-cfs-quota: false lifts the quota (-1). */
  cpuCFSQuota: boolean;
  /** --cpu-cfs-quota-period in microseconds. */
  cpuPeriodUs: number;
  /** --pod-max-pids; only a positive value is written (the pod otherwise shares its parent's). */
  podPidsLimit: number;
}

/** The pod cgroup's limits: shares from requests, CFS quota and memory only when every container declares a limit. */
export function podCgroupResources(pod: Pod, qos: QosClass, o: PodCgroupOptions): CgroupResources {
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  const cpuLimitsDeclared = all.every((c) => milli(c.resources?.limits?.cpu) > 0);
  const memoryLimitsDeclared = all.every((c) => bytes(c.resources?.limits?.memory) > 0);
  const cpuShares = milliCpuToShares(podCpuRequestMilli(pod));
  const cpuQuota = o.cpuCFSQuota ? milliCpuToQuota(podTotal(pod, (c) => milli(c.resources?.limits?.cpu)), o.cpuPeriodUs) : -1;
  const memoryLimit = podTotal(pod, (c) => bytes(c.resources?.limits?.memory));
  const res: CgroupResources = {};
  switch (qos) {
    case 'Guaranteed':
      Object.assign(res, { cpuShares, cpuQuota, cpuPeriod: o.cpuPeriodUs, memoryLimit });
      break;
    case 'Burstable':
      res.cpuShares = cpuShares;
      if (cpuLimitsDeclared) Object.assign(res, { cpuQuota, cpuPeriod: o.cpuPeriodUs });
      if (memoryLimitsDeclared) res.memoryLimit = memoryLimit;
      break;
    default:
      res.cpuShares = MIN_SHARES;
  }
  if (o.podPidsLimit > 0) res.pidsLimit = o.podPidsLimit;
  return res;
}
