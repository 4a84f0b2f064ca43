// The parts of core/v1 Pod and Node the scheduler reads, as they arrive in JSON. Everything is optional because
// the scheduler must not crash on an object another client wrote half-way; the API server's validation is what
// makes the fields meaningful.

/** A resource list as the API carries it: `{ cpu: '500m', memory: '1Gi', 'example.com/gpu': '1' }`. */
export type ResourceList = Readonly<Record<string, string | number>>;

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect | string;
}

export interface Toleration {
  key?: string;
  /** `Equal` (the default when empty) or `Exists`. */
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface NodeSelectorRequirement {
  key: string;
  /** In, NotIn, Exists, DoesNotExist, Gt, Lt. */
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface ContainerPort {
  containerPort?: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

export interface Container {
  name?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
  ports?: ContainerPort[];
  /** `Always` marks a restartable init container (a sidecar). */
  restartPolicy?: string;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  deletionTimestamp?: string | null;
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

export interface Pod {
  metadata: ObjectMeta;
  spec?: {
    nodeName?: string;
    schedulerName?: string;
    nodeSelector?: Record<string, string>;
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null } | null } | null;
    tolerations?: Toleration[];
    containers?: Container[];
    initContainers?: Container[];
    overhead?: ResourceList;
    priority?: number;
    preemptionPolicy?: string;
    schedulingGates?: Array<{ name: string }>;
  };
  status?: { phase?: string; conditions?: PodCondition[]; nominatedNodeName?: string };
}

export interface NodeCondition {
  type: string;
  status: string;
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { allocatable?: ResourceList; capacity?: ResourceList; conditions?: NodeCondition[] };
}

/** "namespace/name", the key of the informers' stores. */
export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/** spec.priority, which the Priority admission plugin sets; 0 when absent (corev1helpers.PodPriority). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}
