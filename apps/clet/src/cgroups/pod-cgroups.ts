// The pods' cgroup tree under --cgroup-root, as upstream's QoS and pod container managers build it:
//   <root>/kubepods                  node allocatable (memory, cpu shares, pids)
//   <root>/kubepods/burstable        cpu.shares = the Burstable pods' cpu requests
//   <root>/kubepods/besteffort       cpu.shares = 2
//   <root>/kubepods/pod<uid>         a Guaranteed pod; the others sit under their QoS cgroup
// Each pod's sandbox names its pod cgroup as cgroup_parent, so the runtime puts the containers there.
//
// Several agents may share one host (the test suites do): the top and QoS cgroups are only ever created and
// written, never removed, and a pod cgroup is removed only by the agent that ran the pod, once its containers
// stopped, and only while empty (rmdir), so one agent never takes away another's cgroups.
import * as path from 'node:path';
import type { CletConfiguration } from '../config/types';
import { parseDuration } from '@cl/flags';
import { logLine, type LogFn } from '../log';
import type { Pod } from '../pods/api-types';
import { qosClass } from '../pods/runtime-spec';
import { CgroupFs } from './cgroup-fs';
import { enforceReserved, hostCapacity, podsLimits, type NodeCapacity, type ReservedCgroups } from './node-allocatable';
import { MIN_SHARES, milliCpuToShares, podCgroupResources, podCpuRequestMilli, type QosClass } from './resources';

export interface CgroupSettings extends ReservedCgroups {
  cgroupsPerQOS: boolean;
  /** --cgroup-root; '' is "/". */
  cgroupRoot: string;
  cpuCFSQuota: boolean;
  cpuPeriodUs: number;
  podPidsLimit: number;
}

export function cgroupSettings(c: CletConfiguration): CgroupSettings {
  return {
    cgroupsPerQOS: c.cgroupsPerQOS,
    cgroupRoot: c.cgroupRoot,
    cpuCFSQuota: c.cpuCFSQuota,
    cpuPeriodUs: parseDuration(c.cpuCFSQuotaPeriod || '100ms') * 1000,
    podPidsLimit: c.podPidsLimit,
    enforceNodeAllocatable: c.enforceNodeAllocatable,
    systemReserved: c.systemReserved,
    kubeReserved: c.kubeReserved,
    systemReservedCgroup: c.systemReservedCgroup,
    kubeReservedCgroup: c.kubeReservedCgroup,
  };
}

/** How long a pod cgroup may stay busy after its containers stopped (the runtime removes theirs asynchronously). */
const REMOVE_ATTEMPTS = 10;
const REMOVE_RETRY_MS = 200;

/** How long an empty pod cgroup must have been left alone before the start-up sweep removes it. */
const SWEEP_MIN_AGE_MS = 5 * 60_000;

interface Held { name: string; qos: QosClass; cpuRequestMilli: number }

export class PodCgroups {
  private readonly held = new Map<string, Held>();
  private burstableShares = -1;

  private constructor(readonly settings: CgroupSettings, private readonly cgfs: CgroupFs, private readonly log: LogFn) {}

  /**
   * Checks the host and creates the top and QoS cgroups (with --cgroups-per-qos); throws with every problem,
   * in upstream's words, so the agent stops before serving.
   */
  static start(s: CgroupSettings, cgfs: CgroupFs, log: LogFn, capacity: NodeCapacity = hostCapacity()): PodCgroups {
    const m = new PodCgroups(s, cgfs, log);
    if (!s.cgroupsPerQOS) return m;
    const missing = cgfs.missingSubsystems();
    if (missing.length > 0) throw new Error(`failed to find subsystem mount for required subsystem: ${missing.join(', ')}`);
    if (!cgfs.exists(m.root)) throw new Error(`invalid configuration: cgroup-root ${JSON.stringify(m.root)} doesn't exist`);
    const errs: string[] = [];
    try {
      cgfs.create(m.kubepods, {});
    } catch (e) {
      throw new Error(`failed to create the pods' top cgroup ${JSON.stringify(m.kubepods)}: ${(e as Error).message}`);
    }
    try {
      cgfs.update(m.kubepods, podsLimits(capacity, s));
      log(logLine('Updated Node Allocatable limit across pods', { cgroup: m.kubepods }, { v: 2 }));
    } catch (e) {
      // Upstream keeps retrying (usage above a lowered limit waits for evictions); here the limit stays as it was.
      log(logLine('Failed to update Node Allocatable Limits', { cgroup: m.kubepods }, { severity: 'W', err: (e as Error).message }));
    }
    try {
      cgfs.create(m.qosName('BestEffort'), { cpuShares: MIN_SHARES });
      cgfs.create(m.qosName('Burstable'), {});
      m.updateBurstable();
    } catch (e) {
      errs.push(`failed to create top level QOS containers: ${(e as Error).message}`);
    }
    errs.push(...enforceReserved(cgfs, s));
    if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    m.sweepEmptyPodCgroups();
    return m;
  }

  /**
   * Pod cgroups left by an agent stopped while its pods ran (the containers outlive it, as upstream's do): once
   * empty they go. Upstream kills what is left in the cgroups of pods it does not know; with other agents sharing
   * the tree that would kill their pods, so only cgroups without a process anywhere inside, unchanged for a while
   * (another agent may have just made one for a sandbox it is about to start), are removed (rmdir).
   */
  private sweepEmptyPodCgroups(): void {
    let removed = 0;
    for (const qos of ['Guaranteed', 'Burstable', 'BestEffort'] as const) {
      for (const child of this.cgfs.children(this.qosName(qos))) {
        if (!/^pod[0-9a-f-]+$/.test(child)) continue;
        const name = path.posix.join(this.qosName(qos), child);
        if (this.cgfs.hasProcesses(name) || Date.now() - this.cgfs.changedAt(name) < SWEEP_MIN_AGE_MS) continue;
        if (this.cgfs.remove(name).length === 0) removed++;
      }
    }
    if (removed > 0) this.log(logLine('Removed empty pod cgroups of pods no longer running', { count: removed }, { v: 2 }));
  }

  get cpuCFSQuota(): boolean {
    return this.settings.cpuCFSQuota;
  }

  get cpuPeriodUs(): number {
    return this.settings.cpuPeriodUs;
  }

  get root(): string {
    return this.settings.cgroupRoot || '/';
  }

  get kubepods(): string {
    return path.posix.join(this.root, 'kubepods');
  }

  qosName(qos: QosClass): string {
    return qos === 'Guaranteed' ? this.kubepods : path.posix.join(this.kubepods, qos.toLowerCase());
  }

  private podName(uid: string, qos: QosClass): string {
    return path.posix.join(this.qosName(qos), `pod${uid}`);
  }

  /** The sandbox's cgroup_parent (cgroupfs form); '' without --cgroups-per-qos (the runtime's default). */
  parentOf(pod: Pod): string {
    return this.settings.cgroupsPerQOS ? this.podName(pod.metadata.uid!, qosClass(pod)) : '';
  }

  /** Creates the pod's cgroup with its limits before its sandbox runs; the Burstable shares follow the pods. */
  ensure(pod: Pod): void {
    if (!this.settings.cgroupsPerQOS) return;
    const uid = pod.metadata.uid!;
    const qos = qosClass(pod);
    const name = this.podName(uid, qos);
    if (this.held.get(uid)?.name === name && this.cgfs.exists(name)) return;
    this.cgfs.create(name, podCgroupResources(pod, qos, this.settings));
    this.held.set(uid, { name, qos, cpuRequestMilli: podCpuRequestMilli(pod) });
    this.updateBurstable();
  }

  /**
   * Removes the pod's cgroup once its containers stopped. A pod this agent never ran in this life (an orphan from
   * before a restart) is looked for under each QoS class. Busy cgroups are retried briefly, then left with a log.
   */
  async remove(uid: string): Promise<void> {
    if (!this.settings.cgroupsPerQOS) return;
    const held = this.held.get(uid);
    const names = held ? [held.name] : (['Guaranteed', 'Burstable', 'BestEffort'] as const).map((q) => this.podName(uid, q));
    let left: string[] = [];
    for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
      left = names.flatMap((n) => this.cgfs.remove(n));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, REMOVE_RETRY_MS));
    }
    if (left.length > 0) this.log(logLine('Failed to remove pod cgroup, it is still in use', { podUID: uid, paths: left.join(',') }, { severity: 'W' }));
    this.held.delete(uid);
    try {
      this.updateBurstable();
    } catch (e) {
      this.log(logLine('Failed to update the Burstable QoS cgroup', {}, { severity: 'W', err: (e as Error).message }));
    }
  }

  /** Upstream setCPUCgroupConfig: the Burstable cgroup's shares are its pods' summed cpu requests. */
  private updateBurstable(): void {
    let milli = 0;
    for (const h of this.held.values()) if (h.qos === 'Burstable') milli += h.cpuRequestMilli;
    const shares = milliCpuToShares(milli);
    if (shares === this.burstableShares) return;
    this.cgfs.update(this.qosName('Burstable'), { cpuShares: shares });
    this.burstableShares = shares;
  }
}
