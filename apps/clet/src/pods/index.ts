import type { CletConfiguration } from '../config/types';
import { CriPodManager } from './pod-manager';
import type { LogFn } from '../log';
import type { Registry } from 'prom-client';
import type { Pod, PodStatus } from './api-types';
import type { PodEventFn } from './pod-events';
import type { PodCgroupContext } from './runtime-spec';
import type { ImagePullerOptions } from './image-puller';

/**
 * API-server mode: what the pod manager tells the node library. Pods bound to this node arrive through
 * PodManager.setApiPods; these report back (for static pods too, whose mirrors show their status).
 */
export interface PodReports {
  status(pod: Pod, status: PodStatus): void;
  /** An API pod being deleted has no running container left. */
  terminated(pod: Pod): void;
  /** The static pods (file and http sources) now, the whole set. */
  staticPods(pods: Pod[]): void;
  events: PodEventFn;
  /** An event about the node itself (the eviction manager's EvictionThresholdMet). */
  nodeEvent?(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/**
 * What the node agent's CLI hands the pod runtime.
 *
 * Required: `config` (the effective configuration; fields read: staticPodPath, staticPodURL,
 * staticPodURLHeader, fileCheckFrequency, httpCheckFrequency, syncFrequency, containerRuntimeEndpoint,
 * imageServiceEndpoint, runtimeRequestTimeout, serializeImagePulls, registryPullQPS, registryBurst,
 * containerLogMaxSize, containerLogMaxFiles, containerLogMonitorInterval, imageGCHighThresholdPercent,
 * imageGCLowThresholdPercent, imageMinimumGCAge, maxPods, podLogsDir, runOnce, resolvConf, clusterDNS,
 * clusterDomain), `nodeName` (already lower-cased) and `log` (one line per call).
 *
 * Optional, from flags that are not config fields (upstream KubeletFlags; pass them when set):
 * - `rootDir` (`--root-dir`, default /var/lib/clet): emptyDir volumes, /etc/hosts files, termination logs.
 * - `podInfraContainerImage` (`--pod-infra-container-image`): never removed by image GC. The sandbox
 *   image itself is the runtime's choice (containerd's `sandbox_image`), as in upstream 1.33.
 * - `minimumContainerTTLDuration` (ms, `--minimum-container-ttl-duration`, default 0),
 *   `maximumDeadContainersPerContainer` (default 1), `maximumDeadContainers` (default -1): container GC.
 * - `containerLogsDir` (default /var/log/containers, upstream's fixed legacy log symlink directory).
 * - `nodeIP` (`--node-ip`): host IP in pod status and the pod IP of host-network pods; default the first
 *   non-loopback IPv4 address.
 * Tuning knobs for tests (upstream constants when absent): relistPeriodMs (1s), housekeepingPeriodMs (2s),
 * containerGCPeriodMs (1m), imageGCPeriodMs (5m), evictionMonitoringPeriodMs (10s), and `now` (the sync loop's clock: its health check, retry
 * times and config.seen).
 *
 * With `config.runOnce`, start() runs the pods once and resolves when they run (the caller then
 * exits 0, leaving them running) or rejects with `runonce failed: ...`.
 */
export interface PodManagerOptions {
  config: CletConfiguration;
  nodeName: string;
  log: LogFn;
  rootDir?: string;
  podInfraContainerImage?: string;
  minimumContainerTTLDuration?: number;
  maximumDeadContainersPerContainer?: number;
  maximumDeadContainers?: number;
  nodeIP?: string;
  /** Where prober_probe_total and prober_probe_duration_seconds go (/metrics/probes). */
  probeMetrics?: Registry;
  containerLogsDir?: string;
  relistPeriodMs?: number;
  housekeepingPeriodMs?: number;
  containerGCPeriodMs?: number;
  imageGCPeriodMs?: number;
  /** How often the eviction manager observes the signals (upstream's 10 s housekeeping when absent). */
  evictionMonitoringPeriodMs?: number;
  /** Called once per eviction with the signal it reclaimed for (the clet_evictions metric). */
  evictionCount?: (signal: string) => void;
  now?: () => number;
  /** Set in API-server mode: the API source is expected (housekeeping waits for its first set) and reports go here. */
  reports?: PodReports;
  /** The pod cgroups (../cgroups PodCgroups): each sandbox's cgroup_parent, container CFS quota, pod cgroup life. */
  cgroups?: PodCgroupContext & { ensure(pod: Pod): void; remove(uid: string): Promise<void> };
  /** Credentials from the image credential provider plugins, tried in order for each pull. */
  imageCredentials?: ImagePullerOptions['credentials'];
  /** API-server mode: reads the secrets a pod names in spec.imagePullSecrets (tried before imageCredentials). */
  pullSecrets?: ImagePullerOptions['secrets'];
  /** Set in API-server mode: secrets, config maps and tokens for volumes and environment (../volumes). */
  apiObjects?: import('../volumes').PodObjectManager;
}

export interface PodManager {
  /** Connects to the CRI (rejects with upstream's `validate service connection: ...`), starts the sources and loops. */
  start(): Promise<void>;
  /** Stops sources and loops; containers keep running (as upstream on shutdown). */
  stop(): Promise<void>;
  /** The pods the API server binds to this node, the whole set (API-server mode). */
  setApiPods(pods: Pod[]): void;
  /** v1 Pod objects with the agent-computed status, for /pods. */
  pods(): object[];
  /** The `syncloop` health check: an error once the loop has not run for max(2*syncFrequency, 5m). */
  syncLoopHealthy(): Error | null;
  /** The node-pressure conditions the eviction manager reports (the node status' MemoryPressure, DiskPressure, PIDPressure). */
  nodePressure(): { memoryPressure: boolean; diskPressure: boolean; pidPressure: boolean };
}

export function createPodManager(opts: PodManagerOptions): PodManager {
  return new CriPodManager(opts);
}

export type { Pod, PodStatus, ContainerStatus } from './api-types';
export type { PodEventFn } from './pod-events';
export type { SecretGetter } from './pull-secrets';
export { defaultNodeIP } from './pod-manager';
