// Literal Nodes and Pods for the unit tables, with only what each case is about spelled out.
import type { Container, ContainerPort, Node, NodeCondition, Pod, ResourceList, Taint, Toleration } from '../src';

export interface NodeSpec {
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  /** Default: 4 cpu, 8Gi memory, 110 pods. */
  allocatable?: ResourceList;
  /** Default: Ready=True. */
  conditions?: NodeCondition[];
}

export function node(name: string, s: NodeSpec = {}): Node {
  return {
    metadata: { name, labels: s.labels },
    spec: { taints: s.taints, unschedulable: s.unschedulable },
    status: { allocatable: s.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110' }, conditions: s.conditions ?? [{ type: 'Ready', status: 'True' }] },
  };
}

export interface PodSpec {
  requests?: ResourceList;
  containers?: Container[];
  initContainers?: Container[];
  overhead?: ResourceList;
  nodeSelector?: Record<string, string>;
  required?: NonNullable<NonNullable<NonNullable<Pod['spec']>['affinity']>['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution'];
  tolerations?: Toleration[];
  hostPorts?: ContainerPort[];
  priority?: number;
  preemptionPolicy?: string;
  nodeName?: string;
  phase?: string;
}

export function pod(name: string, s: PodSpec = {}): Pod {
  const containers = s.containers ?? [{ name: 'c', resources: s.requests ? { requests: s.requests } : undefined, ports: s.hostPorts }];
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      containers,
      initContainers: s.initContainers,
      overhead: s.overhead,
      nodeSelector: s.nodeSelector,
      affinity: s.required ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: s.required } } : undefined,
      tolerations: s.tolerations,
      priority: s.priority,
      preemptionPolicy: s.preemptionPolicy,
      nodeName: s.nodeName,
    },
    status: { phase: s.phase ?? 'Pending' },
  };
}
