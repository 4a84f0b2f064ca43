// Eviction signals as upstream's eviction API names them: what each measures, the node resource it starves, the
// node condition it raises, and the observation of each from the host (upstream's makeSignalObservations).
import { fsUsage, memInfo, pidsAvailable, type FsUsage } from '../node/host-measurements';
import { nodeMemory } from '../server/node-stats';

export type Signal =
  | 'memory.available'
  | 'allocatableMemory.available'
  | 'nodefs.available'
  | 'nodefs.inodesFree'
  | 'imagefs.available'
  | 'imagefs.inodesFree'
  | 'containerfs.available'
  | 'containerfs.inodesFree'
  | 'pid.available';

export type NodeConditionType = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** The resource a signal starves (upstream's signalToResource) and the condition it raises (signalToNodeCondition). */
export const SIGNALS: Readonly<Record<Signal, { resource: string; condition: NodeConditionType }>> = {
  'memory.available': { resource: 'memory', condition: 'MemoryPressure' },
  'allocatableMemory.available': { resource: 'memory', condition: 'MemoryPressure' },
  'nodefs.available': { resource: 'ephemeral-storage', condition: 'DiskPressure' },
  'nodefs.inodesFree': { resource: 'inodes', condition: 'DiskPressure' },
  'imagefs.available': { resource: 'ephemeral-storage', condition: 'DiskPressure' },
  'imagefs.inodesFree': { resource: 'inodes', condition: 'DiskPressure' },
  'containerfs.available': { resource: 'ephemeral-storage', condition: 'DiskPressure' },
  'containerfs.inodesFree': { resource: 'inodes', condition: 'DiskPressure' },
  'pid.available': { resource: 'pids', condition: 'PIDPressure' },
};

export const isSignal = (s: string): s is Signal => s in SIGNALS;

/** What is left of a resource and how much there is, at one time. */
export interface Observation {
  available: number;
  capacity: number;
  /** ms since the epoch. */
  time: number;
}

export type Observations = Partial<Record<Signal, Observation>>;

/** What the observations are made from: the host now (hostMeasurements) or a table in a spec. */
export interface Measurements {
  memory: { totalBytes: number; availableBytes: number };
  nodefs: FsUsage;
  /** The runtime's image filesystem; absent when it is nodefs' device (upstream's !dedicatedImageFs). */
  imagefs?: FsUsage;
  pids: { max: number; available: number };
  time: number;
}

/**
 * Each signal's observation. The image filesystem's signals follow nodefs when the runtime keeps its images on the
 * same device (upstream reports the same filesystem for both then); the container filesystem is the image one (no
 * split image filesystem). allocatableMemory.available has no observation here (no pod-cgroup working set read),
 * so a threshold on it is never met.
 */
export function observe(m: Measurements): Observations {
  const fs = (u: FsUsage) => ({
    available: { available: u.availableBytes, capacity: u.capacityBytes, time: m.time },
    inodes: { available: u.inodesFree, capacity: u.inodes, time: m.time },
  });
  const nodefs = fs(m.nodefs);
  const imagefs = m.imagefs ? fs(m.imagefs) : nodefs;
  return {
    'memory.available': { available: m.memory.availableBytes, capacity: m.memory.totalBytes, time: m.time },
    'nodefs.available': nodefs.available,
    'nodefs.inodesFree': nodefs.inodes,
    'imagefs.available': imagefs.available,
    'imagefs.inodesFree': imagefs.inodes,
    'containerfs.available': imagefs.available,
    'containerfs.inodesFree': imagefs.inodes,
    'pid.available': { available: m.pids.available, capacity: m.pids.max, time: m.time },
  };
}

/**
 * The host's measurements: memory as capacity minus the working set (usage less inactive file cache, cadvisor's and
 * /stats/summary's node memory.availableBytes), nodefs from --root-dir, imagefs from the runtime's image filesystem
 * mount point when that is another device, pids from pid_max and the tasks that exist.
 */
export async function hostMeasurements(rootDir: string, imageFsMount: string | undefined, now: number): Promise<Measurements> {
  const nodefs = fsUsage(rootDir);
  let imagefs: FsUsage | undefined;
  if (imageFsMount) {
    try {
      const u = fsUsage(imageFsMount);
      // The same device reports the same totals: treat it as nodefs (no dedicated image filesystem).
      if (u.capacityBytes !== nodefs.capacityBytes || u.inodes !== nodefs.inodes) imagefs = u;
    } catch { /* no such mount: as nodefs */ }
  }
  const memory = { totalBytes: memInfo().totalBytes, availableBytes: (await nodeMemory(new Date(now))).availableBytes ?? 0 };
  return { memory, nodefs, ...(imagefs ? { imagefs } : {}), pids: pidsAvailable(), time: now };
}
