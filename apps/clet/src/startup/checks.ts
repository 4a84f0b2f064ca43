// Start-up checks that refuse to run on an unsuitable host, with upstream's messages.
import { existsSync } from 'node:fs';
import type { CletConfiguration } from '../config/types';
import { readSysctl, swapLines } from './host';
import { logLine, type LogFn } from '../log';

/** Returns the error, or null; `log` gets the informational lines upstream logs. */
export function checkSwap(failSwapOn: boolean, log: LogFn): string | null {
  if (!failSwapOn) return null;
  const lines = swapLines();
  if (lines === null) {
    log(logLine('File does not exist, assuming that swap is disabled', { path: '/proc/swaps' }));
    return null;
  }
  if (lines.length > 1) {
    return (
      'running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false. ' +
      `/proc/swaps contained: [${lines.join(' ')}]`
    );
  }
  return null;
}

// The kernel tunables the node agent expects (upstream's setupKernelTunables).
const KERNEL_DEFAULTS: Array<[string, number]> = [
  ['vm/overcommit_memory', 1],
  ['vm/panic_on_oom', 0],
  ['kernel/panic', 10],
  ['kernel/panic_on_oops', 1],
  ['kernel/keys/root_maxkeys', 1000000],
  ['kernel/keys/root_maxbytes', 25000000],
];

/**
 * With --protect-kernel-defaults, every differing tunable is an error. Without it upstream rewrites the
 * tunables; this agent only logs the difference, because changing a shared host's kernel settings is not
 * something a node agent under test should do behind the operator's back.
 */
export function checkKernelDefaults(protect: boolean, log: LogFn): string[] {
  const errs: string[] = [];
  for (const [name, want] of KERNEL_DEFAULTS) {
    const got = readSysctl(name);
    if (got === null || Number(got) === want) continue;
    if (protect) errs.push(`invalid kernel flag: ${name}, expected value: ${want}, actual value: ${got}`);
    else log(logLine('Kernel tunable differs from the expected value, not changing it', { flag: name, expected: want, actual: got }));
  }
  return errs;
}

/** Where a running systemd leaves its mark (sd_booted); CLET_TEST_RUN_SYSTEMD stands in for it in tests. */
const systemdMark = () => process.env.CLET_TEST_RUN_SYSTEMD ?? '/run/systemd/system';

/**
 * Settings this agent accepts as valid but cannot honour on this host: refused at start, every one at once,
 * rather than accepted and ignored.
 */
export function checkResourceManagers(kc: CletConfiguration, cgroupV1: boolean): string[] {
  const errs: string[] = [];
  if (kc.cpuManagerPolicy === 'static') {
    errs.push('cpu manager policy "static" is not supported by this agent: it does not assign exclusive CPUs to containers; use --cpu-manager-policy=none');
  }
  if (kc.memoryManagerPolicy === 'Static') {
    errs.push('memory manager policy "Static" is not supported by this agent: it does not pin containers to NUMA nodes; use --memory-manager-policy=None');
  }
  if (kc.topologyManagerPolicy !== 'none') {
    errs.push(`topology manager policy ${JSON.stringify(kc.topologyManagerPolicy)} is not supported by this agent: it aligns no resources to NUMA nodes; use --topology-manager-policy=none`);
  }
  if (kc.cgroupDriver === 'systemd') {
    errs.push(existsSync(systemdMark())
      ? 'cgroup driver "systemd" is not supported by this agent; use --cgroup-driver=cgroupfs'
      : 'cgroup driver "systemd" needs a running systemd, and none runs on this host (no /run/systemd/system); use --cgroup-driver=cgroupfs');
  }
  const swap = kc.memorySwap.swapBehavior ?? '';
  if (swap === 'LimitedSwap') {
    errs.push(cgroupV1
      ? 'swap feature is enabled and LimitedSwap but it is only supported with cgroupv2'
      : 'memorySwap.swapBehavior "LimitedSwap" is not supported by this agent (it sets no swap limits); use NoSwap');
  }
  return errs;
}
