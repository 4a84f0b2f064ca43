// The cgroup file system as the cgroupfs driver sees it: a cgroup is a path ("/kubepods/burstable/pod<uid>") that
// exists once per v1 hierarchy (/sys/fs/cgroup/<subsystem>/<path>) or once in the unified v2 tree
// (/sys/fs/cgroup/<path>). Creating, writing limits and removing go through here, for both versions.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hostPaths, isCgroupV1 } from '../startup/host';

/** The limits the agent writes (upstream's ResourceConfig, the fields it uses). Absent fields are left alone. */
export interface CgroupResources {
  cpuShares?: number;
  /** Microseconds per period; -1 lifts the quota. */
  cpuQuota?: number;
  cpuPeriod?: number;
  memoryLimit?: number;
  /** -1 is unlimited ("max"). */
  pidsLimit?: number;
}

/** The v1 hierarchies the agent creates its cgroups in and writes limits to (upstream also needs cpuset, hugetlb). */
export const V1_SUBSYSTEMS = ['cpu', 'cpuacct', 'memory', 'pids'] as const;

/** Where each limit lives, by version. v2 takes cpu.weight instead of shares, "quota period" in cpu.max. */
const V1_FILES = { cpuShares: 'cpu/cpu.shares', cpuPeriod: 'cpu/cpu.cfs_period_us', cpuQuota: 'cpu/cpu.cfs_quota_us', memoryLimit: 'memory/memory.limit_in_bytes', pidsLimit: 'pids/pids.max' };

/** Upstream's CpuSharesToCpuWeight (runc): shares [2, 262144] onto weight [1, 10000]. */
export function sharesToWeight(shares: number): number {
  return shares === 0 ? 0 : 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

export class CgroupFs {
  constructor(readonly mount: string, readonly v1: boolean) {}

  /** /sys/fs/cgroup (or the CLET_TEST_SYS_FS_CGROUP test directory) with its detected version. */
  static host(): CgroupFs {
    return new CgroupFs(hostPaths().cgroupRoot, isCgroupV1());
  }

  /** The v1 subsystems (of those the agent needs) that are not mounted; always empty on v2. */
  missingSubsystems(): string[] {
    return this.v1 ? V1_SUBSYSTEMS.filter((s) => !fs.existsSync(path.join(this.mount, s))) : [];
  }

  /** The directories of cgroup `name` the agent manages: one per needed v1 subsystem, or the one v2 directory. */
  dirs(name: string): string[] {
    return this.v1 ? V1_SUBSYSTEMS.map((s) => path.join(this.mount, s, name)) : [path.join(this.mount, name)];
  }

  exists(name: string): boolean {
    return this.dirs(name).every((d) => fs.existsSync(d));
  }

  /** Creates the cgroup (and its parents) where missing, then writes `res`. */
  create(name: string, res: CgroupResources): void {
    if (!this.v1) this.enableV2Controllers(name);
    for (const d of this.dirs(name)) fs.mkdirSync(d, { recursive: true });
    this.update(name, res);
  }

  update(name: string, res: CgroupResources): void {
    if (this.v1) {
      // The period goes first: a quota is checked against the period in force.
      for (const key of ['cpuShares', 'cpuPeriod', 'cpuQuota', 'memoryLimit', 'pidsLimit'] as const) {
        const v = res[key];
        // A zero quota means "not set" (libcontainer's reading); the kernel would refuse it.
        if (v === undefined || (key === 'cpuQuota' && v === 0)) continue;
        const [subsystem, file] = V1_FILES[key].split('/');
        const text = key === 'pidsLimit' && v < 0 ? 'max' : String(v);
        this.write(path.join(this.mount, subsystem, name, file), text);
      }
      return;
    }
    const dir = path.join(this.mount, name);
    if (res.cpuShares !== undefined) this.write(path.join(dir, 'cpu.weight'), String(sharesToWeight(res.cpuShares)));
    if (res.cpuQuota !== undefined || res.cpuPeriod !== undefined) {
      const quota = res.cpuQuota === undefined || res.cpuQuota <= 0 ? 'max' : String(res.cpuQuota);
      this.write(path.join(dir, 'cpu.max'), res.cpuPeriod !== undefined ? `${quota} ${res.cpuPeriod}` : quota);
    }
    if (res.memoryLimit !== undefined) this.write(path.join(dir, 'memory.max'), String(res.memoryLimit));
    if (res.pidsLimit !== undefined) this.write(path.join(dir, 'pids.max'), res.pidsLimit < 0 ? 'max' : String(res.pidsLimit));
  }

  /** One limit file's content (`file` as named in v1, e.g. "memory/memory.limit_in_bytes", or v2, "memory.max"). */
  read(name: string, file: string): string {
    const [first, ...rest] = file.split('/');
    const p = this.v1 && rest.length ? path.join(this.mount, first, name, ...rest) : path.join(this.mount, name, file);
    return fs.readFileSync(p, 'utf8').trim();
  }

  /** The child cgroups of `name` (in the memory hierarchy on v1, where every pod cgroup exists). */
  children(name: string): string[] {
    const dir = this.v1 ? path.join(this.mount, 'memory', name) : path.join(this.mount, name);
    try {
      return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      return [];
    }
  }

  /** When the cgroup's directory last changed (a child made or removed), the latest over the hierarchies. */
  changedAt(name: string): number {
    return Math.max(0, ...this.allDirs(name).map((d) => fs.statSync(d).mtimeMs));
  }

  /** Whether any process is in the cgroup or below it, in any hierarchy. */
  hasProcesses(name: string): boolean {
    const busy = (dir: string): boolean => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return false;
      }
      for (const e of entries) {
        if (e.isDirectory() && busy(path.join(dir, e.name))) return true;
        if (e.name === 'cgroup.procs' && fs.readFileSync(path.join(dir, e.name), 'utf8').trim() !== '') return true;
      }
      return false;
    };
    return this.allDirs(name).some(busy);
  }

  /**
   * Removes the cgroup in every hierarchy it exists in (the runtime also makes it in cpuset, devices, freezer...),
   * children first. Only empty cgroups can be removed (the kernel refuses rmdir while a process is inside), so a
   * cgroup still in use by anybody is never taken away. Returns the directories that could not be removed.
   */
  remove(name: string): string[] {
    const left: string[] = [];
    for (const d of this.allDirs(name)) rmdirTree(d, left);
    return left;
  }

  /** `name` in every hierarchy (v1) or the unified tree (v2), deduplicated through co-mounted symlinks. */
  private allDirs(name: string): string[] {
    if (!this.v1) return [path.join(this.mount, name)];
    const seen = new Set<string>();
    const out: string[] = [];
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(this.mount);
    } catch {
      return out;
    }
    for (const h of entries) {
      let real: string;
      try {
        real = fs.realpathSync(path.join(this.mount, h));
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      const d = path.join(real, name);
      if (fs.existsSync(d)) out.push(d);
    }
    return out;
  }

  /** v2 lets a child use a controller only when every ancestor lists it in cgroup.subtree_control. */
  private enableV2Controllers(name: string): void {
    const parts = name.split('/').filter(Boolean);
    let dir = this.mount;
    for (const part of parts) {
      const control = path.join(dir, 'cgroup.subtree_control');
      if (fs.existsSync(control)) {
        try {
          fs.writeFileSync(control, '+cpu +memory +pids');
        } catch {
          // A controller the kernel does not offer here: the limit write below reports it.
        }
      }
      dir = path.join(dir, part);
      fs.mkdirSync(dir, { recursive: true });
    }
  }

  private write(file: string, text: string): void {
    try {
      fs.writeFileSync(file, text);
    } catch (e) {
      throw new Error(`failed to write ${JSON.stringify(text)} to ${JSON.stringify(file)}: ${(e as Error).message}`);
    }
  }
}

/** Depth-first rmdir of a cgroup directory and its child cgroups; failures are collected, never thrown. */
function rmdirTree(dir: string, left: string[]): void {
  let children: fs.Dirent[] = [];
  try {
    children = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const c of children) if (c.isDirectory()) rmdirTree(path.join(dir, c.name), left);
  try {
    fs.rmdirSync(dir);
  } catch (e) {
    // In a temp-dir test tree the limit files are plain files; a real cgroup directory's files vanish with it.
    if ((e as NodeJS.ErrnoException).code === 'ENOTEMPTY' && isPlainTestTree(dir)) fs.rmSync(dir, { recursive: true, force: true });
    else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') left.push(dir);
  }
}

/** True outside cgroupfs (a unit test's temp directory standing in for /sys/fs/cgroup). */
function isPlainTestTree(dir: string): boolean {
  return process.env.CLET_TEST_SYS_FS_CGROUP !== undefined && dir.startsWith(process.env.CLET_TEST_SYS_FS_CGROUP);
}
