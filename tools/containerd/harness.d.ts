// Types for harness.js, so TypeScript specs and benches can import it.
export interface PrivateContainerd {
  /** Path of the unix socket. */
  socket: string;
  /** `unix://<socket>`, ready for --container-runtime-endpoint. */
  endpoint: string;
  /** The instance's own directory (config, root, state, CNI config, log). */
  dir: string;
  logFile: string;
  /** What stopContainerd() needs to stop it from another process. */
  instance: ContainerdInstance;
  /** Runs `ctr --namespace k8s.io <args>` against this instance; returns stdout. */
  ctr(args: string[]): string;
  /** Kills the daemon only (containers and shims survive). */
  kill(): Promise<void>;
  /** Kills every task and shim, the daemon, unmounts and removes the directory. */
  stop(): Promise<void>;
}
/** A running instance as plain data (the launcher writes it down for a stop without it). */
export interface ContainerdInstance { pid: number; dir: string; socket: string; bridge: string; netnsBefore: string[]; keepDir: boolean }
export interface StartContainerdOptions {
  dir?: string;
  keepDir?: boolean;
  /** In a session of its own, out of the caller's process group (a terminal's Ctrl-C reaches only the caller). */
  detached?: boolean;
  /** Called as soon as the daemon runs, before it answers. */
  onSpawn?: (instance: ContainerdInstance) => void;
}
export function startContainerd(opts?: StartContainerdOptions): Promise<PrivateContainerd>;
/** Stops an instance with all its containers; by default signals the daemon by pid (a caller that did not start it). */
export function stopContainerd(instance: ContainerdInstance, daemon?: { running(): boolean; signal(sig: NodeJS.Signals): void }): Promise<void>;
export function ensureTestImages(socket: string, opts?: { unused?: boolean }): { busybox: string; pause: string; unused: string };
export const TEST_IMAGE: string;
export const PAUSE_IMAGE: string;
export const UNUSED_IMAGE: string;
/** `ctr` against a containerd's socket in the CRI namespace (k8s.io); returns its output. */
export function ctrSync(socket: string, args: string[]): string;
