// GET /stats/summary (stats/v1alpha1 Summary): the node from /proc and statfs, pods and containers from
// the runtime's CRI stats (ListPodSandboxStats where the runtime can, else the sum of the pod's
// ListContainerStats), root filesystems from the writable layers and logs from the pod log directory.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { nanosToDate } from '@cl/cri';
import type { ContainerStats, CpuUsage, MemoryUsage, PodSandboxStats } from '@cl/cri';
import { LABEL_POD_UID, type NodeRuntime, type StatsSnapshot } from './node-runtime';
import { apiTime, fsStats, networkStats, nodeCpu, nodeMemory, rlimitStats, type CpuStats, type FsStats, type MemoryStats } from './node-stats';

export interface SummaryContext {
  nodeName: string;
  startTime: Date;
  runtime: NodeRuntime | undefined;
  /** nodefs: the filesystem of the root directory. */
  rootDir: string;
  podLogsDir: string;
}

export interface ContainerSummary { name: string; startTime: string; cpu?: CpuStats; memory?: MemoryStats; rootfs?: FsStats; logs?: FsStats }
export interface PodSummary {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerSummary[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  network?: object;
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count: number };
}

const num = (v: { value: string } | null | undefined) => (v ? Number(v.value) : 0);
const timeOf = (ns: string | undefined, fallback: Date) => apiTime(nanosToDate(ns ?? '0') ?? fallback);

function cpuOf(c: CpuUsage | null, now: Date): CpuStats | undefined {
  if (!c || !c.usageCoreNanoSeconds) return undefined;
  return { time: timeOf(c.timestamp, now), usageNanoCores: num(c.usageNanoCores), usageCoreNanoSeconds: num(c.usageCoreNanoSeconds) };
}

function memoryOf(m: MemoryUsage | null, now: Date): MemoryStats | undefined {
  if (!m || !m.workingSetBytes) return undefined;
  return {
    time: timeOf(m.timestamp, now),
    ...(num(m.availableBytes) > 0 ? { availableBytes: num(m.availableBytes) } : {}),
    usageBytes: num(m.usageBytes),
    workingSetBytes: num(m.workingSetBytes),
    rssBytes: num(m.rssBytes),
    pageFaults: num(m.pageFaults),
    majorPageFaults: num(m.majorPageFaults),
  };
}

function sumCpu(list: (CpuStats | undefined)[], now: Date): CpuStats | undefined {
  const xs = list.filter((x): x is CpuStats => !!x);
  if (xs.length === 0) return undefined;
  return { time: apiTime(now), usageNanoCores: xs.reduce((a, x) => a + (x.usageNanoCores ?? 0), 0), usageCoreNanoSeconds: xs.reduce((a, x) => a + x.usageCoreNanoSeconds, 0) };
}

function sumMemory(list: (MemoryStats | undefined)[], now: Date): MemoryStats | undefined {
  const xs = list.filter((x): x is MemoryStats => !!x);
  if (xs.length === 0) return undefined;
  const s = (k: 'usageBytes' | 'workingSetBytes' | 'rssBytes' | 'pageFaults' | 'majorPageFaults') => xs.reduce((a, x) => a + x[k], 0);
  return { time: apiTime(now), usageBytes: s('usageBytes'), workingSetBytes: s('workingSetBytes'), rssBytes: s('rssBytes'), pageFaults: s('pageFaults'), majorPageFaults: s('majorPageFaults') };
}

async function dirUsage(dir: string): Promise<{ bytes: number; inodes: number }> {
  let bytes = 0;
  let inodes = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const sub = await dirUsage(p);
      bytes += sub.bytes;
      inodes += sub.inodes + 1;
    } else {
      bytes += await stat(p).then((s) => s.size, () => 0);
      inodes++;
    }
  }
  return { bytes, inodes };
}

function usageOn(base: FsStats | undefined, bytes: number, inodes: number, now: Date): FsStats | undefined {
  if (!base) return undefined;
  return { ...base, time: apiTime(now), usedBytes: bytes, inodesUsed: inodes };
}

/** The pods the runtime runs: the newest ready sandbox of each pod UID with its containers' stats. */
async function podSummaries(snap: StatsSnapshot, ctx: SummaryContext, onlyCpuAndMemory: boolean, now: Date): Promise<PodSummary[]> {
  const imageFs = onlyCpuAndMemory ? undefined : await ctx.runtime!.cri.imageFsInfo().catch(() => null);
  const mount = imageFs?.imageFilesystems[0]?.fsId?.mountpoint;
  const imageFsBase = mount ? await fsStats(mount, now).catch(() => undefined) : undefined;
  const logsBase = onlyCpuAndMemory ? undefined : await fsStats(ctx.podLogsDir, now).catch(() => undefined);
  const sandboxStats = new Map<string, PodSandboxStats>((snap.sandboxes ?? []).map((s) => [s.attributes?.id ?? '', s]));
  const statsById = new Map<string, ContainerStats>(snap.containers.map((c) => [c.attributes?.id ?? '', c]));
  const seen = new Set<string>();
  const out: PodSummary[] = [];
  const ready = snap.sandboxList.filter((s) => s.state === 'SANDBOX_READY').sort((a, b) => (BigInt(b.createdAt) > BigInt(a.createdAt) ? 1 : -1));
  for (const sb of ready) {
    const md = sb.metadata;
    const uid = md?.uid ?? sb.labels[LABEL_POD_UID] ?? '';
    if (!md || seen.has(uid)) continue;
    seen.add(uid);
    const containers: ContainerSummary[] = [];
    for (const c of snap.containerList.filter((x) => x.podSandboxId === sb.id && x.state === 'CONTAINER_RUNNING')) {
      const st = statsById.get(c.id);
      const name = c.metadata?.name ?? '';
      const cs: ContainerSummary = { name, startTime: timeOf(c.createdAt, now) };
      const cpu = cpuOf(st?.cpu ?? null, now);
      const memory = memoryOf(st?.memory ?? null, now);
      if (cpu) cs.cpu = cpu;
      if (memory) cs.memory = memory;
      if (!onlyCpuAndMemory) {
        const rootfs = usageOn(imageFsBase, num(st?.writableLayer?.usedBytes), num(st?.writableLayer?.inodesUsed), now);
        const logs = await dirUsage(join(ctx.podLogsDir, `${md.namespace}_${md.name}_${uid}`, name));
        const logsFs = usageOn(logsBase, logs.bytes, logs.inodes, now);
        if (rootfs) cs.rootfs = rootfs;
        if (logsFs) cs.logs = logsFs;
      }
      containers.push(cs);
    }
    const ps: PodSummary = { podRef: { name: md.name, namespace: md.namespace, uid }, startTime: timeOf(sb.createdAt, now), containers };
    const linux = sandboxStats.get(sb.id)?.linux;
    const cpu = cpuOf(linux?.cpu ?? null, now) ?? sumCpu(containers.map((c) => c.cpu), now);
    const memory = memoryOf(linux?.memory ?? null, now) ?? sumMemory(containers.map((c) => c.memory), now);
    if (cpu) ps.cpu = cpu;
    if (memory) ps.memory = memory;
    if (!onlyCpuAndMemory) {
      const net = linux?.network?.defaultInterface;
      if (net) {
        const iface = (i: NonNullable<typeof net>) => ({ name: i.name, rxBytes: num(i.rxBytes), rxErrors: num(i.rxErrors), txBytes: num(i.txBytes), txErrors: num(i.txErrors) });
        ps.network = { time: timeOf(linux?.network?.timestamp, now), ...iface(net), interfaces: (linux?.network?.interfaces ?? []).map(iface) };
      }
      const used = containers.reduce((a, c) => a + (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0), 0);
      const inodes = containers.reduce((a, c) => a + (c.rootfs?.inodesUsed ?? 0) + (c.logs?.inodesUsed ?? 0), 0);
      const eph = usageOn(imageFsBase, used, inodes, now);
      if (eph) ps['ephemeral-storage'] = eph;
      if (linux?.process?.processCount) ps.process_stats = { process_count: num(linux.process.processCount) };
    }
    out.push(ps);
  }
  return out;
}

export async function buildSummary(ctx: SummaryContext, onlyCpuAndMemory: boolean): Promise<{ node: object; pods: PodSummary[] }> {
  const now = new Date();
  const node: Record<string, unknown> = {
    nodeName: ctx.nodeName,
    startTime: apiTime(ctx.startTime),
    cpu: await nodeCpu(now),
    memory: await nodeMemory(now),
  };
  if (!onlyCpuAndMemory) {
    const net = await networkStats('self', now);
    if (net) node.network = net;
    node.fs = await fsStats(ctx.rootDir, now);
    if (ctx.runtime) {
      const info = await ctx.runtime.cri.imageFsInfo().catch(() => null);
      const img = info?.imageFilesystems[0];
      const mount = img?.fsId?.mountpoint;
      if (img && mount) {
        const base = await fsStats(mount, now);
        node.runtime = { imageFs: { ...base, usedBytes: num(img.usedBytes), inodesUsed: num(img.inodesUsed) } };
      }
    }
    node.rlimit = await rlimitStats(now);
  }
  const pods = ctx.runtime ? await podSummaries(await ctx.runtime.stats(), ctx, onlyCpuAndMemory, now) : [];
  return { node, pods };
}
