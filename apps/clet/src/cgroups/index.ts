// The node agent's cgroups: the pods' QoS tree and pod cgroups (pod-cgroups.ts), node allocatable on it
// (node-allocatable.ts), the file system under both cgroup versions (cgroup-fs.ts), and the agent's own OOM score.
import { writeFileSync } from 'node:fs';
import { logLine, type LogFn } from '../log';

export { CgroupFs, V1_SUBSYSTEMS, sharesToWeight, type CgroupResources } from './cgroup-fs';
export { PodCgroups, cgroupSettings, type CgroupSettings } from './pod-cgroups';
export { hostCapacity, podsLimits, enforceReserved, type NodeCapacity } from './node-allocatable';
export { milliCpuToQuota, milliCpuToShares, podCgroupResources, DEFAULT_CPU_PERIOD_US } from './resources';

/**
 * --oom-score-adj on the agent's own process, as upstream at start. Lowering the score needs CAP_SYS_RESOURCE;
 * without it upstream logs and goes on, and so does this.
 */
export function applyOwnOomScoreAdj(value: number, log: LogFn, file = '/proc/self/oom_score_adj'): void {
  try {
    writeFileSync(file, String(value));
  } catch (e) {
    log(logLine('Failed to ApplyOOMScoreAdj', {}, { severity: 'W', err: (e as Error).message }));
  }
}
