// --clet-cgroups, --runtime-cgroups, --system-cgroups: the cgroups of the agent itself, of the runtime, and
// of the host's other processes (upstream's container manager, "system containers").
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CgroupFs } from '../cgroups';

/**
 * The two this agent does not act on, refused at start rather than accepted and ignored. Upstream moves
 * every non-kernel process of the root cgroup into --system-cgroups, which on a shared host takes other
 * people's processes along; and since the runtime is remote, upstream uses --runtime-cgroups only to report
 * the runtime's usage in the summary API's system containers, which this agent does not report.
 */
export function checkSystemCgroupFlags(systemCgroups: string, runtimeCgroups: string): string[] {
  const errs: string[] = [];
  if (systemCgroups !== '') {
    errs.push(`--system-cgroups=${systemCgroups} is not supported by this agent: it does not move the host's processes into a system cgroup; leave it empty`);
  }
  if (runtimeCgroups !== '') {
    errs.push(`--runtime-cgroups=${runtimeCgroups} is not supported by this agent: it neither moves the container runtime nor reports that cgroup's usage; leave it empty`);
  }
  return errs;
}

/**
 * --clet-cgroups: creates the cgroup where missing and moves the agent's own process into it (every
 * hierarchy the agent uses on v1, the unified tree on v2), as upstream's ensureProcessInContainer.
 * Throws with the failing directory.
 */
export function moveSelfToCgroup(cgroups: CgroupFs, name: string, pid = process.pid): string[] {
  if (!name.startsWith('/')) throw new Error(`--clet-cgroups ${JSON.stringify(name)} must be an absolute cgroup name`);
  cgroups.create(name, {});
  const dirs = cgroups.dirs(name);
  for (const d of dirs) {
    try {
      writeFileSync(join(d, 'cgroup.procs'), String(pid));
    } catch (e) {
      throw new Error(`failed to move the clet (pid ${pid}) into cgroup ${JSON.stringify(name)} (${d}): ${(e as Error).message}`);
    }
  }
  return dirs;
}
