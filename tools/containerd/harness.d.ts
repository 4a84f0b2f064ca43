// Types for harness.js, so TypeScript specs and benches can import it.
export interface PrivateContainerd {
  /** Path of the unix socket. */
  socket: string;
  /** `unix://<socket>`, ready for --container-runtime-endpoint. */
  endpoint: string;
  /** The instance's own directory (config, root, state, CNI config, log). */
  dir: string;
  logFile: string;
  /** Runs `ctr --namespace k8s.io <args>` against this instance; returns stdout. */
  ctr(args: string[]): string;
  /** Kills the daemon only (containers and shims survive). */
  kill(): Promise<void>;
  /** Kills every task and shim, the daemon, unmounts and removes the directory. */
  stop(): Promise<void>;
}
export interface StartContainerdOptions { dir?: string; keepDir?: boolean }
export function startContainerd(opts?: StartContainerdOptions): Promise<PrivateContainerd>;
export function ensureTestImages(socket: string, opts?: { unused?: boolean }): { busybox: string; pause: string; unused: string };
export const TEST_IMAGE: string;
export const PAUSE_IMAGE: string;
export const UNUSED_IMAGE: string;
/** `ctr` against a containerd's socket in the CRI namespace (k8s.io); returns its output. */
export function ctrSync(socket: string, args: string[]): string;
