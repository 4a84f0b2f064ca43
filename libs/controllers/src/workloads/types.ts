// The parts of core/v1 Pod and apps/v1 ReplicaSet and Deployment that the workload controllers read and write, as
// they arrive in JSON. Optional almost everywhere: a controller must not crash on an object another client wrote
// half-way; the API server's defaults and validation are what make the fields meaningful. Templates and specs
// are carried through untouched (`[field: string]: unknown`), so what the controllers copy keeps every field.
import type { MetaLabelSelector, ObjectMeta, OwnerReference } from '@cl/apimachinery';
import { resourcePath } from '@cl/kube-client';

export type { ObjectMeta, OwnerReference };

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
  [field: string]: unknown;
}

export interface ContainerStatus {
  name: string;
  restartCount?: number;
  [field: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    nodeName?: string;
    initContainers?: Array<{ name: string; restartPolicy?: string; [field: string]: unknown }>;
    [field: string]: unknown;
  };
  status?: {
    phase?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    [field: string]: unknown;
  };
}

/** core/v1 PodTemplateSpec: metadata (labels, annotations, finalizers) and the pod spec. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[]; [field: string]: unknown };
  spec?: Record<string, unknown>;
}

export interface ReplicaSetCondition extends Condition {
  lastTransitionTime?: string | null;
}

export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
  [field: string]: unknown;
}

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    /** Defaulted to 1 by the server. */
    replicas?: number;
    minReadySeconds?: number;
    selector?: MetaLabelSelector | null;
    template?: PodTemplate;
    [field: string]: unknown;
  };
  status?: ReplicaSetStatus;
}

/** An int or a percentage string ("25%"), as intstr.IntOrString. */
export type IntOrPercent = number | string;

export interface DeploymentCondition extends Condition {
  lastUpdateTime?: string | null;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
  [field: string]: unknown;
}

export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    replicas?: number;
    selector?: MetaLabelSelector | null;
    template?: PodTemplate;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrPercent | null; maxUnavailable?: IntOrPercent | null } | null };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
    [field: string]: unknown;
  };
  status?: DeploymentStatus;
}

/** "namespace/name", the informers' key. */
export function keyOf(obj: { metadata: ObjectMeta }): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** The ReplicaSet's URL path. */
export function replicaSetPath(rs: ReplicaSet): string {
  return resourcePath({ group: 'apps', version: 'v1', resource: 'replicasets', namespace: rs.metadata.namespace, name: rs.metadata.name });
}

/** spec.replicas as the server defaults it (1 when absent). */
export function specReplicas(obj: { spec?: { replicas?: number } }): number {
  return obj.spec?.replicas ?? 1;
}
