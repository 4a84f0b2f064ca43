// The parts of core/v1 Node, Pod and coordination/v1 Lease that the node library reads or writes. Objects
// from the API server carry more; unknown fields are kept, so these types are open.

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  creationTimestamp?: string | null;
  [key: string]: unknown;
}

export interface OwnerReference { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }

export type ResourceList = Record<string, string>;

export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface NodeAddress { type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS'; address: string }

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

export interface ContainerImage { names: string[]; sizeBytes: number }

export interface NodeStatus {
  capacity: ResourceList;
  allocatable: ResourceList;
  conditions: NodeCondition[];
  addresses: NodeAddress[];
  daemonEndpoints: { kubeletEndpoint: { Port: number } };
  nodeInfo: NodeSystemInfo;
  images: ContainerImage[];
  [key: string]: unknown;
}

export interface Node {
  apiVersion?: 'v1';
  kind?: 'Node';
  metadata: ObjectMeta;
  spec: { taints?: Taint[]; unschedulable?: boolean; providerID?: string; podCIDR?: string; [key: string]: unknown };
  status?: Partial<NodeStatus>;
}

export interface PodCondition { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string | null; reason?: string; message?: string }

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  [key: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { nodeName?: string; readinessGates?: { conditionType: string }[]; [key: string]: unknown };
  status?: PodStatus;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string; leaseTransitions?: number };
}

/**
 * The calls the node library makes to the API server. `@cl/kube-client`'s KubeClient has exactly these; a test
 * or another client can stand in. Errors carry the HTTP status as `code` (ApiError does).
 */
export interface ApiClient {
  get<T = unknown>(path: string, query?: Record<string, string | number | boolean | undefined>): Promise<T>;
  create<T = unknown>(path: string, body: unknown): Promise<T>;
  update<T = unknown>(path: string, body: unknown): Promise<T>;
  patch<T = unknown>(path: string, body: unknown, type?: 'strategic' | 'merge' | 'json'): Promise<T>;
  delete<T = unknown>(path: string, options?: Record<string, unknown>): Promise<T>;
}

/** One log line: message plus structured fields (the agent's logger prints them as klog's key=value pairs). */
export type NodeLog = (msg: string, fields?: Record<string, unknown>, severity?: 'I' | 'W' | 'E') => void;

/** The HTTP status of an API error (ApiError's `code`), or 0 for network and other errors. */
export function statusCode(e: unknown): number {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : 0;
}
