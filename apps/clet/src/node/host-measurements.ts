// What the node reports about its host, read from the kernel as cadvisor and the eviction manager do:
// memory from /proc/meminfo, filesystems by statfs, processes from /proc/loadavg, hugepages from sysfs,
// identity from machine-id, DMI and boot_id.
import { readFileSync, readdirSync, statfsSync } from 'node:fs';
import * as os from 'node:os';

const readText = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

/** /proc/meminfo fields in bytes (the file gives kB). */
export function memInfo(): { totalBytes: number; availableBytes: number } {
  const text = readText('/proc/meminfo');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { totalBytes: field('MemTotal') || os.totalmem(), availableBytes: field('MemAvailable') || os.freemem() };
}

export interface FsUsage { capacityBytes: number; availableBytes: number; inodes: number; inodesFree: number }

/** Capacity and what an unprivileged writer may still use (statfs bavail), as the eviction manager measures. */
export function fsUsage(path: string): FsUsage {
  const s = statfsSync(path);
  return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize, inodes: s.files, inodesFree: s.ffree };
}

/** Processes the kernel may still start: pid_max minus the tasks that exist (upstream's pid.available). */
export function pidsAvailable(): { max: number; available: number } {
  const max = Number(readText('/proc/sys/kernel/pid_max')) || 32768;
  const running = Number(readText('/proc/loadavg').split(' ')[3]?.split('/')[1] ?? 0);
  return { max, available: max - running };
}

/** Huge pages per size as capacity entries: `hugepages-2Mi` -> bytes reserved. */
export function hugePages(): Record<string, number> {
  const out: Record<string, number> = {};
  let sizes: string[] = [];
  try {
    sizes = readdirSync('/sys/kernel/mm/hugepages');
  } catch {
    return out;
  }
  for (const dir of sizes) {
    const kb = Number(/^hugepages-(\d+)kB$/.exec(dir)?.[1] ?? 0);
    if (!kb) continue;
    const count = Number(readText(`/sys/kernel/mm/hugepages/${dir}/nr_hugepages`)) || 0;
    const name = kb % (1024 * 1024) === 0 ? `${kb / 1024 / 1024}Gi` : kb % 1024 === 0 ? `${kb / 1024}Mi` : `${kb}Ki`;
    out[`hugepages-${name}`] = count * kb * 1024;
  }
  return out;
}

/** nodeInfo's identity fields. systemUUID needs root on most hosts; empty when unreadable, as upstream. */
export function hostIdentity(): { machineID: string; systemUUID: string; bootID: string; osImage: string; kernelVersion: string } {
  const osRelease = readText('/etc/os-release');
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1] ?? 'Linux';
  return {
    machineID: readText('/etc/machine-id') || readText('/var/lib/dbus/machine-id'),
    systemUUID: readText('/sys/class/dmi/id/product_uuid').toLowerCase(),
    bootID: readText('/proc/sys/kernel/random/boot_id'),
    osImage: pretty,
    kernelVersion: os.release(),
  };
}
