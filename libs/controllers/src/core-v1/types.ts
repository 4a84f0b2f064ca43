// The parts of core/v1 Node, Pod, Namespace and ConfigMap and coordination/v1 Lease that the node lifecycle,
// taint eviction, pod GC and root CA controllers read and write, as they arrive in JSON. Optional almost
// everywhere: a controller must not crash on an object another client wrote half-way. Objects that are written
// back whole (a Node's status, a ConfigMap) keep every field they arrived with, known here or not.

import type { ObjectMeta } from '@cl/apimachinery';

export type { ObjectMeta };

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect | string;
  /** RFC 3339, whole seconds; set by the node lifecycle controller on the taints it adds. */
  timeAdded?: string | null;
}

export interface Toleration {
  key?: string;
  /** `Equal` (the default when empty) or `Exists`. */
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown' | string;

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  lastHeartbeatTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[]; [field: string]: unknown };
  status?: { conditions?: NodeCondition[]; [field: string]: unknown };
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

export interface Pod {
  metadata: ObjectMeta;
  spec?: { nodeName?: string; tolerations?: Toleration[]; [field: string]: unknown };
  status?: { phase?: string; reason?: string; conditions?: PodCondition[]; [field: string]: unknown };
}

export interface Lease {
  metadata: ObjectMeta;
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string | null };
}

export interface Namespace {
  metadata: ObjectMeta;
  status?: { phase?: string };
}

export interface ConfigMap {
  metadata: ObjectMeta;
  data?: Record<string, string>;
  [field: string]: unknown;
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined for an absent or unreadable one (Go's zero time). */
export function timeOf(t: string | null | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

export const nodeCondition = (node: Pick<Node, 'status'> | undefined, type: string): NodeCondition | undefined => node?.status?.conditions?.find((c) => c.type === type);

/** "namespace/name", the key of the informers' stores. */
export const podKey = (pod: Pod): string => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
