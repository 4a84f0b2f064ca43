// The node's own numbers for /stats/summary and the metrics endpoints, read from /proc and statfs (the
// kubelet takes them from cAdvisor's root container, which reads the same kernel files).
import { readFile, readdir, statfs } from 'node:fs/promises';

export interface CpuStats { time: string; usageNanoCores?: number; usageCoreNanoSeconds: number }
export interface MemoryStats {
  time: string; availableBytes?: number; usageBytes: number; workingSetBytes: number; rssBytes: number; pageFaults: number; majorPageFaults: number;
}
export interface FsStats { time: string; availableBytes: number; capacityBytes: number; usedBytes: number; inodesFree: number; inodes: number; inodesUsed: number }
export interface InterfaceStats { name: string; rxBytes: number; rxErrors: number; txBytes: number; txErrors: number }
export interface NetworkStats extends InterfaceStats { time: string; interfaces: InterfaceStats[] }

/** metav1.Time: RFC3339 with whole seconds. */
export const apiTime = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

const USER_HZ_NANOS = 1e7; // /proc/stat counts in 1/100 s

let lastCpu: { at: bigint; usage: number } | undefined;

export async function nodeCpu(now = new Date()): Promise<CpuStats> {
  const first = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy time excludes idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = first;
  const usage = (user + nice + system + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * USER_HZ_NANOS;
  const at = process.hrtime.bigint();
  const out: CpuStats = { time: apiTime(now), usageCoreNanoSeconds: usage };
  if (lastCpu && at > lastCpu.at && usage >= lastCpu.usage) out.usageNanoCores = Math.round(((usage - lastCpu.usage) / Number(at - lastCpu.at)) * 1e9);
  lastCpu = { at, usage };
  return out;
}

async function keyValues(file: string, sep: RegExp): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const [k, v] = line.split(sep);
    if (k && v !== undefined) m.set(k.trim(), parseInt(v.trim(), 10));
  }
  return m;
}

export async function nodeMemory(now = new Date()): Promise<MemoryStats> {
  const mi = await keyValues('/proc/meminfo', /:\s*/);
  const vm = await keyValues('/proc/vmstat', / /);
  const kb = (k: string) => (mi.get(k) ?? 0) * 1024;
  const total = kb('MemTotal');
  const usage = total - kb('MemFree');
  // Working set as cAdvisor computes it: usage minus the inactive file cache the kernel can drop.
  const workingSet = Math.max(0, usage - kb('Inactive(file)'));
  return {
    time: apiTime(now),
    availableBytes: total - workingSet,
    usageBytes: usage,
    workingSetBytes: workingSet,
    rssBytes: kb('AnonPages'),
    pageFaults: vm.get('pgfault') ?? 0,
    majorPageFaults: vm.get('pgmajfault') ?? 0,
  };
}

export async function memoryCapacity(): Promise<number> {
  return ((await keyValues('/proc/meminfo', /:\s*/)).get('MemTotal') ?? 0) * 1024;
}

export async function fsStats(path: string, now = new Date()): Promise<FsStats> {
  const s = await statfs(path);
  return {
    time: apiTime(now),
    availableBytes: s.bavail * s.bsize,
    capacityBytes: s.blocks * s.bsize,
    usedBytes: (s.blocks - s.bfree) * s.bsize,
    inodesFree: s.ffree,
    inodes: s.files,
    inodesUsed: s.files - s.ffree,
  };
}

/** Interfaces of /proc/net/dev (of the given process's network namespace) without loopback. */
export async function networkStats(pid: number | 'self' = 'self', now = new Date()): Promise<NetworkStats | undefined> {
  const text = await readFile(`/proc/${pid}/net/dev`, 'utf8').catch(() => '');
  const interfaces: InterfaceStats[] = [];
  for (const line of text.split('\n').slice(2)) {
    const [name, rest] = line.split(':');
    if (!rest || name.trim() === 'lo') continue;
    const n = rest.trim().split(/\s+/).map(Number);
    interfaces.push({ name: name.trim(), rxBytes: n[0], rxErrors: n[2], txBytes: n[8], txErrors: n[10] });
  }
  if (interfaces.length === 0) return undefined;
  // The default interface is the one carrying the default route; eth0 first, as cAdvisor reports.
  const route = await readFile(`/proc/${pid}/net/route`, 'utf8').catch(() => '');
  const dflt = route.split('\n').slice(1).map((l) => l.split('\t')).find((f) => f[1] === '00000000')?.[0];
  const primary = interfaces.find((i) => i.name === dflt) ?? interfaces.find((i) => i.name === 'eth0') ?? interfaces[0];
  return { time: apiTime(now), ...primary, interfaces };
}

export async function rlimitStats(now = new Date()): Promise<{ time: string; maxpid: number; curproc: number }> {
  const maxpid = parseInt(await readFile('/proc/sys/kernel/pid_max', 'utf8'), 10);
  const curproc = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).length;
  return { time: apiTime(now), maxpid, curproc };
}

export const cpuCount = async () => (await readFile('/proc/cpuinfo', 'utf8')).split('\n').filter((l) => l.startsWith('processor')).length;
