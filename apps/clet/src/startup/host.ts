// Host facts the start-up checks read. The paths can be redirected by environment variables so tests can
// present a swap-enabled or cgroup v2 host without changing the machine.
import { readFileSync, statfsSync } from 'node:fs';

const CGROUP2_SUPER_MAGIC = 0x63677270;

export const hostPaths = () => ({
  procSwaps: process.env.CLET_TEST_PROC_SWAPS ?? '/proc/swaps',
  cgroupRoot: process.env.CLET_TEST_SYS_FS_CGROUP ?? '/sys/fs/cgroup',
  procSys: process.env.CLET_TEST_PROC_SYS ?? '/proc/sys',
});

/** statfs(/sys/fs/cgroup).f_type == CGROUP2_SUPER_MAGIC means v2; anything else is v1. */
export function isCgroupV1(): boolean {
  try {
    return statfsSync(hostPaths().cgroupRoot).type !== CGROUP2_SUPER_MAGIC;
  } catch {
    return true;
  }
}

/** The lines of /proc/swaps (header included), or null when the file does not exist. */
export function swapLines(): string[] | null {
  let text: string;
  try {
    text = readFileSync(hostPaths().procSwaps, 'utf8');
  } catch {
    return null;
  }
  return text.trim().split('\n');
}

export function readSysctl(name: string): string | null {
  try {
    return readFileSync(`${hostPaths().procSys}/${name}`, 'utf8').trim();
  } catch {
    return null;
  }
}
