// The parts of core/v1 Pod that the node agent reads or writes. Unknown fields in manifests are kept
// (decoding is non-strict, as upstream) but not typed here.

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string; apiVersion?: string }; [key: string]: unknown };
}

export interface ContainerPort { name?: string; containerPort: number; hostPort?: number; hostIP?: string; protocol?: string }
export interface VolumeMount { name: string; mountPath: string; readOnly?: boolean; subPath?: string; mountPropagation?: string }
export interface ResourceRequirements { limits?: Record<string, string | number>; requests?: Record<string, string | number> }

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  volumeMounts?: VolumeMount[];
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  securityContext?: { privileged?: boolean; runAsUser?: number; runAsGroup?: number; readOnlyRootFilesystem?: boolean; [key: string]: unknown };
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  /** Init containers only: `Always` makes a restartable ("sidecar") init container. */
  restartPolicy?: 'Always';
  [key: string]: unknown;
}

/** A container added to a running pod (`kubectl debug`): started once, never restarted. */
export interface EphemeralContainer extends Container {
  /** Shares that container's process namespace (when the pod shares none). */
  targetContainerName?: string;
}

export interface Volume {
  name: string;
  hostPath?: { path: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: string };
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  volumes?: Volume[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  dnsPolicy?: string;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  hostname?: string;
  subdomain?: string;
  setHostnameAsFQDN?: boolean;
  hostAliases?: { ip: string; hostnames?: string[] }[];
  activeDeadlineSeconds?: number;
  readinessGates?: { conditionType: string }[];
  runtimeClassName?: string;
  hostUsers?: boolean;
  os?: { name: string };
  resources?: ResourceRequirements;
  resourceClaims?: unknown[];
  overhead?: Record<string, string | number>;
  serviceAccountName?: string;
  tolerations?: { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }[];
  schedulerName?: string;
  securityContext?: { runAsUser?: number; runAsGroup?: number; supplementalGroups?: number[]; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ContainerStateWaiting { reason?: string; message?: string }
export interface ContainerStateRunning { startedAt?: string }
export interface ContainerStateTerminated {
  exitCode: number; signal?: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string; containerID?: string;
}
export interface ContainerState { waiting?: ContainerStateWaiting; running?: ContainerStateRunning; terminated?: ContainerStateTerminated }

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodCondition { type: string; status: 'True' | 'False' | 'Unknown'; lastProbeTime: null; lastTransitionTime: string; reason?: string; message?: string }

export interface PodStatus {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: string;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}
