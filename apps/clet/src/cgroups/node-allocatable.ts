// Node allocatable on the pods' top cgroup, and the reservations on the system and cluster-component cgroups
// (upstream's node_container_manager_linux.go): what --enforce-node-allocatable asks for.
import { cpus } from 'node:os';
import { memInfo } from '../node/host-measurements';
import { parseQuantity } from '../pods/quantity';
import { readSysctl } from '../startup/host';
import type { CgroupFs, CgroupResources } from './cgroup-fs';
import { milliCpuToShares } from './resources';

/** The node's capacity in the units the limits take. */
export interface NodeCapacity {
  milliCpu: number;
  memoryBytes: number;
  /** kernel.pid_max: upstream's "pid" capacity. */
  pids: number;
}

export function hostCapacity(): NodeCapacity {
  return { milliCpu: cpus().length * 1000, memoryBytes: memInfo().totalBytes, pids: Number(readSysctl('kernel/pid_max') ?? 4194304) };
}

/** A --system-reserved/--cl-reserved map as the limits it stands for (cpu, memory, pid; others do not go to cgroups). */
export function reservation(r: Record<string, string>): Partial<NodeCapacity> {
  const out: Partial<NodeCapacity> = {};
  if (r.cpu !== undefined) out.milliCpu = Math.round(parseQuantity(r.cpu) * 1000);
  if (r.memory !== undefined) out.memoryBytes = Math.floor(parseQuantity(r.memory));
  if (r.pid !== undefined) out.pids = Math.floor(parseQuantity(r.pid));
  return out;
}

/** upstream getCgroupConfig: memory as the limit, cpu as shares, pid as pids.max, each only when given. */
export function limitsOf(r: Partial<NodeCapacity>): CgroupResources {
  const out: CgroupResources = {};
  if (r.memoryBytes !== undefined) out.memoryLimit = r.memoryBytes;
  if (r.milliCpu !== undefined) out.cpuShares = milliCpuToShares(r.milliCpu);
  if (r.pids !== undefined) out.pidsLimit = r.pids;
  return out;
}

export interface AllocatableSettings {
  enforceNodeAllocatable: string[];
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
}

/**
 * The pods' top cgroup: the whole capacity, or with "pods" enforced capacity minus both reservations (upstream's
 * getNodeAllocatableInternalAbsolute: eviction thresholds are not taken off here). Even without enforcement the
 * limits are written, because the default cpu.shares (1024) would starve pods next to busy system services.
 */
export function podsLimits(cap: NodeCapacity, s: AllocatableSettings): CgroupResources {
  if (!s.enforceNodeAllocatable.includes('pods')) return limitsOf(cap);
  const sys = reservation(s.systemReserved);
  const kube = reservation(s.kubeReserved);
  const left = (k: keyof NodeCapacity) => Math.max(0, cap[k] - (sys[k] ?? 0) - (kube[k] ?? 0));
  return limitsOf({ milliCpu: left('milliCpu'), memoryBytes: left('memoryBytes'), pids: left('pids') });
}

export interface ReservedCgroups extends AllocatableSettings {
  systemReservedCgroup: string;
  kubeReservedCgroup: string;
}

/**
 * "system-reserved" and "cl-reserved"/"kube-reserved" put their reservation on cgroups the operator made; upstream
 * refuses to start when such a cgroup does not exist. Returns the errors, in upstream's words.
 */
export function enforceReserved(cgfs: CgroupFs, s: ReservedCgroups): string[] {
  const errs: string[] = [];
  const enforce = (what: string, name: string, reserved: Record<string, string>) => {
    if (!cgfs.exists(name)) {
      errs.push(`Failed to enforce ${what} Reserved Cgroup Limits on ${JSON.stringify(name)}: ${JSON.stringify(name)} cgroup does not exist`);
      return;
    }
    try {
      cgfs.update(name, limitsOf(reservation(reserved)));
    } catch (e) {
      errs.push(`Failed to enforce ${what} Reserved Cgroup Limits on ${JSON.stringify(name)}: ${(e as Error).message}`);
    }
  };
  if (s.enforceNodeAllocatable.includes('system-reserved')) enforce('System', s.systemReservedCgroup, s.systemReserved);
  if (s.enforceNodeAllocatable.some((v) => v === 'cl-reserved' || v === 'kube-reserved')) enforce('Kube', s.kubeReservedCgroup, s.kubeReserved);
  return errs;
}
