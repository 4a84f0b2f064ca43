// TypeScript shapes of the messages in proto/cri-subset.proto, as the client hands them over
// with the conversion options in client.ts: field names in lowerCamelCase, enums as their names, 64-bit
// integers as decimal strings on the way out (nanosecond timestamps do not fit a double) and
// number | string on the way in, every scalar present (proto3 defaults filled in).

export type Int64In = number | string;
export type StringMap = Record<string, string>;

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type MountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type SeccompProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

export interface VersionResponse { version: string; runtimeName: string; runtimeVersion: string; runtimeApiVersion: string }
export interface RuntimeCondition { type: string; status: boolean; reason: string; message: string }
export interface StatusResponse { status: { conditions: RuntimeCondition[] } | null; info: StringMap }

export interface KeyValue { key: string; value: string }
export interface DNSConfig { servers?: string[]; searches?: string[]; options?: string[] }
export interface PortMapping { protocol?: Protocol; containerPort?: number; hostPort?: number; hostIp?: string }
export interface Mount {
  containerPath: string; hostPath: string; readonly?: boolean; selinuxRelabel?: boolean; propagation?: MountPropagation;
}
export interface NamespaceOption { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode; targetId?: string }
export interface SecurityProfile { profileType?: SeccompProfileType; localhostRef?: string }
export interface ImageSpec { image: string; annotations?: StringMap; userSpecifiedImage?: string; runtimeHandler?: string }

export interface SELinuxOption { user?: string; role?: string; type?: string; level?: string }
export interface LinuxSandboxSecurityContext {
  namespaceOptions?: NamespaceOption; selinuxOptions?: SELinuxOption; runAsUser?: { value: Int64In }; runAsGroup?: { value: Int64In };
  readonlyRootfs?: boolean; supplementalGroups?: Int64In[]; privileged?: boolean; seccomp?: SecurityProfile; apparmor?: SecurityProfile;
}
export interface LinuxContainerResources {
  cpuPeriod?: Int64In; cpuQuota?: Int64In; cpuShares?: Int64In; memoryLimitInBytes?: Int64In; oomScoreAdj?: Int64In;
  cpusetCpus?: string; cpusetMems?: string; unified?: StringMap; memorySwapLimitInBytes?: Int64In;
}
export interface LinuxPodSandboxConfig {
  cgroupParent?: string; securityContext?: LinuxSandboxSecurityContext; sysctls?: StringMap;
  overhead?: LinuxContainerResources; resources?: LinuxContainerResources;
}
export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }
export interface PodSandboxConfig {
  metadata: PodSandboxMetadata; hostname?: string; logDirectory?: string; dnsConfig?: DNSConfig;
  portMappings?: PortMapping[]; labels?: StringMap; annotations?: StringMap; linux?: LinuxPodSandboxConfig;
}

export interface PodSandboxStatus {
  id: string; metadata: PodSandboxMetadata | null; state: PodSandboxState; createdAt: string;
  network: { ip: string; additionalIps: { ip: string }[] } | null;
  linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  labels: StringMap; annotations: StringMap; runtimeHandler: string;
}
export interface PodSandboxStatusResponse { status: PodSandboxStatus | null; info: StringMap }
export interface PodSandboxFilter { id?: string; state?: { state: PodSandboxState }; labelSelector?: StringMap }
export interface PodSandbox {
  id: string; metadata: PodSandboxMetadata | null; state: PodSandboxState; createdAt: string;
  labels: StringMap; annotations: StringMap; runtimeHandler: string;
}

export interface ContainerMetadata { name: string; attempt: number }
export interface LinuxContainerSecurityContext {
  capabilities?: { addCapabilities?: string[]; dropCapabilities?: string[] }; privileged?: boolean;
  namespaceOptions?: NamespaceOption; selinuxOptions?: SELinuxOption; runAsUser?: { value: Int64In }; runAsGroup?: { value: Int64In };
  readonlyRootfs?: boolean; supplementalGroups?: Int64In[]; noNewPrivs?: boolean; maskedPaths?: string[]; readonlyPaths?: string[];
  seccomp?: SecurityProfile; apparmor?: SecurityProfile;
}
export interface ContainerConfig {
  metadata: ContainerMetadata; image: ImageSpec; command?: string[]; args?: string[]; workingDir?: string;
  envs?: KeyValue[]; mounts?: Mount[]; labels?: StringMap; annotations?: StringMap; logPath?: string;
  stdin?: boolean; stdinOnce?: boolean; tty?: boolean;
  linux?: { resources?: LinuxContainerResources; securityContext?: LinuxContainerSecurityContext };
}
export interface ContainerFilter { id?: string; state?: { state: ContainerState }; podSandboxId?: string; labelSelector?: StringMap }
export interface Container {
  id: string; podSandboxId: string; metadata: ContainerMetadata | null; image: ImageSpec | null; imageRef: string;
  state: ContainerState; createdAt: string; labels: StringMap; annotations: StringMap; imageId: string;
}
export interface ContainerStatus {
  id: string; metadata: ContainerMetadata | null; state: ContainerState; createdAt: string; startedAt: string;
  finishedAt: string; exitCode: number; image: ImageSpec | null; imageRef: string; reason: string; message: string;
  labels: StringMap; annotations: StringMap; mounts: Mount[]; logPath: string; imageId: string;
}

export interface Image {
  id: string; repoTags: string[]; repoDigests: string[]; size: string; uid: { value: string } | null;
  username: string; spec: ImageSpec | null; pinned: boolean;
}
export interface AuthConfig {
  username?: string; password?: string; auth?: string; serverAddress?: string; identityToken?: string; registryToken?: string;
}
export interface FilesystemUsage {
  timestamp: string; fsId: { mountpoint: string } | null; usedBytes: { value: string } | null; inodesUsed: { value: string } | null;
}
export interface ImageFsInfoResponse { imageFilesystems: FilesystemUsage[]; containerFilesystems: FilesystemUsage[] }

// ---- streaming and stats (as the client hands them over: lowerCamelCase, 64-bit integers as decimal strings) ----
export interface UInt64 { value: string }
export interface CpuUsage { timestamp: string; usageCoreNanoSeconds: UInt64 | null; usageNanoCores: UInt64 | null }
export interface MemoryUsage {
  timestamp: string; workingSetBytes: UInt64 | null; availableBytes: UInt64 | null; usageBytes: UInt64 | null;
  rssBytes: UInt64 | null; pageFaults: UInt64 | null; majorPageFaults: UInt64 | null;
}
export interface SwapUsage { timestamp: string; swapAvailableBytes: UInt64 | null; swapUsageBytes: UInt64 | null }
export interface FilesystemUsage { timestamp: string; fsId: { mountpoint: string } | null; usedBytes: UInt64 | null; inodesUsed: UInt64 | null }
export interface ContainerStats {
  attributes: { id: string; metadata: { name: string; attempt: number } | null; labels: Record<string, string>; annotations: Record<string, string> } | null;
  cpu: CpuUsage | null; memory: MemoryUsage | null; writableLayer: FilesystemUsage | null; swap: SwapUsage | null;
}
export interface NetworkInterfaceUsage { name: string; rxBytes: UInt64 | null; rxErrors: UInt64 | null; txBytes: UInt64 | null; txErrors: UInt64 | null }
export interface PodSandboxStats {
  attributes: { id: string; metadata: { name: string; uid: string; namespace: string; attempt: number } | null; labels: Record<string, string> } | null;
  linux: {
    cpu: CpuUsage | null; memory: MemoryUsage | null;
    network: { timestamp: string; defaultInterface: NetworkInterfaceUsage | null; interfaces: NetworkInterfaceUsage[] } | null;
    process: { timestamp: string; processCount: UInt64 | null } | null;
    containers: ContainerStats[];
  } | null;
}
export interface ExecSyncResult { stdout: Buffer; stderr: Buffer; exitCode: number }
export interface StreamOptions { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }
