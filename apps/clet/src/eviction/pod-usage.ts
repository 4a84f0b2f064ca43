// What each running pod uses of the resources eviction reclaims, as upstream reads the stats summary: memory
// working set and writable layer per container from the runtime's container stats, logs and emptyDir volumes
// from their directories, the process count from the sandbox stats where the runtime gives them.
import { readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CriClient } from '@cl/cri';
import type { Pod } from '../pods/api-types';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from '../pods/runtime-spec';

export interface ContainerUsage {
  name: string;
  memoryBytes?: number;
  /** Writable layer plus logs (upstream's rootfs + logs used bytes), when both are known. */
  ephemeralBytes?: number;
  /** The container's logs alone (what counts against its limit when images have their own filesystem). */
  logsBytes: number;
}

export interface PodUsage {
  containers: ContainerUsage[];
  memoryBytes: number;
  /** Writable layers, logs and emptyDir volumes (upstream's fsStatsRoot, fsStatsLogs, fsStatsLocalVolumeSource). */
  ephemeralBytes: number;
  ephemeralInodes: number;
  processes: number;
  /** Bytes of each emptyDir volume by name (upstream's volume stats), for their sizeLimit. */
  emptyDirs: Record<string, number>;
}

/** Bytes and inodes under a directory (0 when it does not exist), as cadvisor's du of a volume. */
export async function dirUsage(dir: string): Promise<{ bytes: number; inodes: number }> {
  let bytes = 0;
  let inodes = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = join(dir, e.name);
    inodes++;
    if (e.isDirectory()) {
      const sub = await dirUsage(p);
      bytes += sub.bytes;
      inodes += sub.inodes;
    } else {
      bytes += await lstat(p).then((s) => s.size, () => 0);
    }
  }
  return { bytes, inodes };
}

export interface UsageDirs {
  rootDir: string;
  podLogsDir: string;
}

const num = (v: { value: string } | null | undefined) => (v ? Number(v.value) : 0);

/** Each pod's usage by uid; a pod the runtime has no running container of has none (upstream: no stats). */
export async function podUsages(cri: Pick<CriClient, 'listContainers' | 'listContainerStats' | 'listPodSandboxStats'>, pods: readonly Pod[], dirs: UsageDirs): Promise<Map<string, PodUsage>> {
  const [containers, stats, sandboxStats] = await Promise.all([
    cri.listContainers(),
    cri.listContainerStats(),
    cri.listPodSandboxStats().catch(() => []),
  ]);
  const statsById = new Map(stats.map((s) => [s.attributes?.id ?? '', s]));
  const processes = new Map<string, number>();
  for (const s of sandboxStats) {
    const uid = s.attributes?.metadata?.uid ?? '';
    processes.set(uid, (processes.get(uid) ?? 0) + num(s.linux?.process?.processCount));
  }
  const out = new Map<string, PodUsage>();
  for (const pod of pods) {
    const uid = pod.metadata.uid ?? '';
    const running = containers.filter((c) => c.labels[LABEL_POD_UID] === uid && c.state === 'CONTAINER_RUNNING');
    if (running.length === 0) continue;
    const usage: PodUsage = { containers: [], memoryBytes: 0, ephemeralBytes: 0, ephemeralInodes: 0, processes: processes.get(uid) ?? 0, emptyDirs: {} };
    for (const c of running) {
      const name = c.labels[LABEL_CONTAINER_NAME] ?? '';
      const st = statsById.get(c.id);
      const logs = await dirUsage(join(dirs.podLogsDir, `${pod.metadata.namespace}_${pod.metadata.name}_${uid}`, name));
      const memoryBytes = num(st?.memory?.workingSetBytes);
      const layer = num(st?.writableLayer?.usedBytes);
      usage.containers.push({ name, logsBytes: logs.bytes, ...(st?.memory ? { memoryBytes } : {}), ...(st?.writableLayer ? { ephemeralBytes: layer + logs.bytes } : {}) });
      usage.memoryBytes += memoryBytes;
      usage.ephemeralBytes += layer + logs.bytes;
      usage.ephemeralInodes += num(st?.writableLayer?.inodesUsed) + logs.inodes;
    }
    for (const v of pod.spec.volumes ?? []) {
      if (!v.emptyDir) continue;
      const used = await dirUsage(join(dirs.rootDir, 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', v.name));
      usage.emptyDirs[v.name] = used.bytes;
      usage.ephemeralBytes += used.bytes;
      usage.ephemeralInodes += used.inodes + 1;
    }
    out.set(uid, usage);
  }
  return out;
}
