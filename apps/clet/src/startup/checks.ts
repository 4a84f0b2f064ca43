// Start-up checks that refuse to run on an unsuitable host, with upstream's messages.
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
