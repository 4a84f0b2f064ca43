// The effective node-agent configuration: upstream KubeletConfiguration (kubelet.config.k8s.io/v1beta1)
// field names, so files written for the kubelet load unchanged and /configz prints what a kubelet prints.
// Durations stay Go duration strings ("1m0s"), exactly as they appear in a file; use
// `parseDuration` from @cl/flags to get milliseconds.

export const CLET_CONFIG_GROUP_VERSION = 'clet.config.cl.io/v1beta1';
export const CLET_CONFIG_KIND = 'CletConfiguration';
export const KUBELET_CONFIG_GROUP_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';

/** A Go duration string such as `20s`, `1m0s`, `4h0m0s`. */
export type GoDuration = string;

export interface CletAuthentication {
  x509: { clientCAFile: string };
  webhook: { enabled: boolean; cacheTTL: GoDuration };
  anonymous: { enabled: boolean };
}

export type AuthorizationMode = 'AlwaysAllow' | 'Webhook';

export interface CletAuthorization {
  /** Validated to be one of AuthorizationMode; kept a string because files may carry anything. */
  mode: string;
  webhook: { cacheAuthorizedTTL: GoDuration; cacheUnauthorizedTTL: GoDuration };
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface MemoryReservation {
  numaNode: number;
  limits: Record<string, string>;
}

export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

export interface VModuleItem {
  filePattern: string;
  verbosity: number;
}

export interface LoggingConfiguration {
  format: string;
  flushFrequency: GoDuration;
  verbosity: number;
  vmodule?: VModuleItem[];
  options: {
    json: { infoBufferSize: string; splitStream?: boolean };
    text: { infoBufferSize: string; splitStream?: boolean };
  };
}

export interface CletConfiguration {
  enableServer: boolean;
  staticPodPath: string;
  podLogsDir: string;
  syncFrequency: GoDuration;
  fileCheckFrequency: GoDuration;
  httpCheckFrequency: GoDuration;
  staticPodURL: string;
  staticPodURLHeader: Record<string, string[]>;
  address: string;
  port: number;
  /** 0 disables the read-only server. */
  readOnlyPort: number;
  volumePluginDir: string;
  providerID: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsCipherSuites: string[];
  tlsMinVersion: string;
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
  authentication: CletAuthentication;
  authorization: CletAuthorization;
  registryPullQPS: number;
  registryBurst: number;
  eventRecordQPS: number;
  eventBurst: number;
  enableDebuggingHandlers: boolean;
  enableContentionProfiling: boolean;
  /** 0 disables the health server. */
  healthzPort: number;
  healthzBindAddress: string;
  oomScoreAdj: number;
  clusterDomain: string;
  clusterDNS: string[];
  streamingConnectionIdleTimeout: GoDuration;
  nodeStatusUpdateFrequency: GoDuration;
  nodeStatusReportFrequency: GoDuration;
  nodeLeaseDurationSeconds: number;
  imageMinimumGCAge: GoDuration;
  imageMaximumGCAge: GoDuration;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  volumeStatsAggPeriod: GoDuration;
  kubeletCgroups: string;
  systemCgroups: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  cgroupDriver: string;
  cpuManagerPolicy: string;
  cpuManagerPolicyOptions: Record<string, string>;
  cpuManagerReconcilePeriod: GoDuration;
  memoryManagerPolicy: string;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  topologyManagerPolicyOptions: Record<string, string>;
  qosReserved: Record<string, string>;
  runtimeRequestTimeout: GoDuration;
  hairpinMode: string;
  maxPods: number;
  podCIDR: string;
  podPidsLimit: number;
  resolvConf: string;
  runOnce: boolean;
  cpuCFSQuota: boolean;
  cpuCFSQuotaPeriod: GoDuration;
  nodeStatusMaxImages: number;
  maxOpenFiles: number;
  contentType: string;
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionPressureTransitionPeriod: GoDuration;
  evictionMaxPodGracePeriod: number;
  evictionMinimumReclaim: Record<string, string>;
  mergeDefaultEvictionSettings: boolean;
  podsPerCore: number;
  enableControllerAttachDetach: boolean;
  protectKernelDefaults: boolean;
  makeIPTablesUtilChains: boolean;
  iptablesMasqueradeBit: number;
  iptablesDropBit: number;
  featureGates: Record<string, boolean>;
  failSwapOn: boolean;
  failCgroupV1: boolean;
  memorySwap: { swapBehavior?: string };
  containerLogMaxSize: string;
  containerLogMaxFiles: number;
  containerLogMaxWorkers: number;
  containerLogMonitorInterval: GoDuration;
  configMapAndSecretChangeDetectionStrategy: string;
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
  reservedSystemCPUs: string;
  showHiddenMetricsForVersion: string;
  systemReservedCgroup: string;
  kubeReservedCgroup: string;
  enforceNodeAllocatable: string[];
  allowedUnsafeSysctls: string[];
  kernelMemcgNotification: boolean;
  logging: LoggingConfiguration;
  enableSystemLogHandler: boolean;
  enableSystemLogQuery: boolean;
  shutdownGracePeriod: GoDuration;
  shutdownGracePeriodCriticalPods: GoDuration;
  shutdownGracePeriodByPodPriority: ShutdownGracePeriodByPodPriority[];
  reservedMemory: MemoryReservation[];
  enableProfilingHandler: boolean;
  enableDebugFlagsHandler: boolean;
  seccompDefault: boolean;
  memoryThrottlingFactor: number;
  registerWithTaints: Taint[];
  registerNode: boolean;
  localStorageCapacityIsolation: boolean;
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
}

/**
 * The command-line-only settings (upstream KubeletFlags): not part of the config file, not on /configz.
 */
export interface CletFlags {
  config: string;
  configDir: string;
  clconfig: string;
  bootstrapClconfig: string;
  hostnameOverride: string;
  nodeIP: string;
  certDir: string;
  rootDir: string;
  cloudProvider: string;
  cloudConfig: string;
  nodeLabels: Record<string, string>;
  lockFile: string;
  exitOnLockContention: boolean;
  /** Milliseconds. */
  minimumContainerTTLDuration: number;
  maximumDeadContainersPerContainer: number;
  maximumDeadContainers: number;
  registerSchedulable: boolean;
  experimentalMounterPath: string;
  experimentalAllocatableIgnoreEviction: boolean;
  podInfraContainerImage: string;
  imageCredentialProviderConfig: string;
  imageCredentialProviderBinDir: string;
  runtimeCgroups: string;
}
