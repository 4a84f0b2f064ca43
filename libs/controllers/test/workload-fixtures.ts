// Small builders of Pods, ReplicaSets and Deployments for the unit specs of the workload controllers: only the
// fields a case is about are given; the rest take what the API server's defaults would give.
import type { Deployment, Pod, ReplicaSet } from '../src/workloads/types';

export interface PodShape {
  name?: string;
  node?: string;
  phase?: string;
  ready?: boolean;
  /** When the Ready condition last changed. */
  readySince?: string;
  created?: string;
  restarts?: number;
  cost?: string;
  uid?: string;
  labels?: Record<string, string>;
}

export function pod(s: PodShape = {}): Pod {
  return {
    metadata: {
      name: s.name ?? 'p',
      namespace: 'ns',
      uid: s.uid ?? s.name ?? 'p',
      creationTimestamp: s.created,
      labels: s.labels ?? { app: 'web' },
      annotations: s.cost !== undefined ? { 'controller.kubernetes.io/pod-deletion-cost': s.cost } : undefined,
    },
    spec: { nodeName: s.node },
    status: {
      phase: s.phase ?? 'Running',
      conditions: s.ready === undefined ? [] : [{ type: 'Ready', status: s.ready ? 'True' : 'False', lastTransitionTime: s.readySince }],
      containerStatuses: s.restarts !== undefined ? [{ name: 'c', restartCount: s.restarts }] : undefined,
    },
  };
}

export interface ReplicaSetShape {
  name: string;
  replicas: number;
  /** status.replicas; spec.replicas unless given. */
  actual?: number;
  ready?: number;
  available?: number;
  created?: string;
  revision?: number;
  desired?: number;
  max?: number;
  image?: string;
}

export function replicaSet(s: ReplicaSetShape): ReplicaSet {
  const annotations: Record<string, string> = {};
  if (s.revision !== undefined) annotations['deployment.kubernetes.io/revision'] = String(s.revision);
  if (s.desired !== undefined) annotations['deployment.kubernetes.io/desired-replicas'] = String(s.desired);
  if (s.max !== undefined) annotations['deployment.kubernetes.io/max-replicas'] = String(s.max);
  return {
    metadata: { name: s.name, namespace: 'ns', uid: `uid-${s.name}`, creationTimestamp: s.created ?? '2025-01-01T00:00:00Z', annotations, generation: 1 },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: s.image ?? 'nginx:1' }] } },
    },
    status: { replicas: s.actual ?? s.replicas, readyReplicas: s.ready ?? s.available ?? 0, availableReplicas: s.available ?? 0, observedGeneration: 1 },
  };
}

export interface DeploymentShape {
  replicas: number;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  strategy?: 'RollingUpdate' | 'Recreate';
  image?: string;
  statusReplicas?: number;
  generation?: number;
}

export function deployment(s: DeploymentShape): Deployment {
  const recreate = s.strategy === 'Recreate';
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-web', generation: s.generation ?? 1 },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: s.image ?? 'nginx:1' }] } },
      strategy: recreate ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: { maxSurge: s.maxSurge ?? '25%', maxUnavailable: s.maxUnavailable ?? '25%' } },
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
    },
    status: { replicas: s.statusReplicas ?? 0, observedGeneration: s.generation ?? 1 },
  };
}
