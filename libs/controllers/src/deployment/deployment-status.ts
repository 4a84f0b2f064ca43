// A Deployment's status from its ReplicaSets (upstream's calculateStatus, syncRolloutStatus and the condition
// helpers of deployment util): the counts `kubectl get deploy` shows, the Available condition, and the
// Progressing condition that `kubectl rollout status` reads to know a rollout finished or got stuck.
import { jsonEqual, metaTime } from '@cl/apimachinery';
import { timeOf } from '../workloads/pod-state';
import { specReplicas, type Deployment, type DeploymentCondition, type DeploymentStatus, type ReplicaSet } from '../workloads/types';
import { maxUnavailable } from './fenceposts';
import { actualReplicaSum, availableReplicaSum, readyReplicaSum, specReplicaSum } from './replica-sets';

export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';

/** Condition reasons, as upstream names them. */
export const REASONS = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedReplicaSetCreate: 'ReplicaSetCreateError',
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewReplicaSet: 'FoundNewReplicaSet',
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** math.MaxInt32: the value that means "no deadline" / "keep every revision". */
const MAX_INT32 = 2 ** 31 - 1;

export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== MAX_INT32;
}

export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec?.revisionHistoryLimit;
  return l !== undefined && l !== null && l !== MAX_INT32;
}

export function newCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const t = metaTime(new Date(now));
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * SetDeploymentCondition: a condition with the same status and reason as the present one changes nothing; one
 * with the same status keeps its lastTransitionTime; it goes to the end of the list.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  const rest = (status.conditions ?? []).filter((c) => c.type !== type);
  if (rest.length) status.conditions = rest;
  else delete status.conditions;
}

/** calculateStatus: the counts over all ReplicaSets (updated ones from the new one) and the Available condition. */
export function calculateDeploymentStatus(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = availableReplicaSum(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: actualReplicaSum(allRSs),
    updatedReplicas: actualReplicaSum([newRS]),
    readyReplicas: readyReplicaSum(allRSs),
    availableReplicas: available,
    // More available than wanted (while scaling down) is not negative unavailability.
    unavailableReplicas: Math.max(0, specReplicaSum(allRSs) - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions?.length) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= specReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition(AVAILABLE, 'True', REASONS.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(AVAILABLE, 'False', REASONS.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** DeploymentComplete: every desired replica updated and available, no old pods, and this generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = specReplicas(d);
  return (s.updatedReplicas ?? 0) === replicas && (s.replicas ?? 0) === replicas && (s.availableReplicas ?? 0) === replicas && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods than the status shows. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** DeploymentTimedOut: the last progress (lastUpdateTime of Progressing) is older than progressDeadlineSeconds. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(s, PROGRESSING);
  if (!condition) return false;
  // A finished rollout is not judged again; a timed-out one stays timed out.
  if (condition.reason === REASONS.newReplicaSetAvailable) return false;
  if (condition.reason === REASONS.timedOut) return true;
  const from = timeOf(condition.lastUpdateTime) ?? 0;
  return from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < now;
}

/**
 * syncRolloutStatus's status: the counts and Available, then Progressing (complete, progressing, or timed out,
 * unless the last rollout already completed and nothing is old), and the ReplicaFailure of a ReplicaSet (the new
 * one's first) carried over.
 */
export function rolloutStatus(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const status = calculateDeploymentStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(status, PROGRESSING);
  const current = getCondition(d.status, PROGRESSING);
  const complete = status.replicas === status.updatedReplicas && current?.reason === REASONS.newReplicaSetAvailable;
  const name = d.metadata.name ?? '';
  if (hasProgressDeadline(d) && !complete) {
    if (deploymentComplete(d, status)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has successfully progressed.` : `Deployment "${name}" has successfully progressed.`;
      setCondition(status, newCondition(PROGRESSING, 'True', REASONS.newReplicaSetAvailable, msg, now));
    } else if (deploymentProgressing(d, status)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" is progressing.` : `Deployment "${name}" is progressing.`;
      const condition = newCondition(PROGRESSING, 'True', REASONS.replicaSetUpdated, msg, now);
      // Progress moves lastUpdateTime even with the same reason; lastTransitionTime stays while it stays True.
      if (current?.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
      removeCondition(status, PROGRESSING);
      setCondition(status, condition);
    } else if (deploymentTimedOut(d, status, now)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has timed out progressing.` : `Deployment "${name}" has timed out progressing.`;
      setCondition(status, newCondition(PROGRESSING, 'False', REASONS.timedOut, msg, now));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure) setCondition(status, failure);
  else removeCondition(status, REPLICA_FAILURE);
  return status;
}

/** The ReplicaFailure condition of the new ReplicaSet, else of any ReplicaSet, as a Deployment condition. */
function replicaFailure(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): DeploymentCondition | undefined {
  for (const rs of [newRS, ...allRSs]) {
    const c = rs?.status?.conditions?.find((x) => x.type === REPLICA_FAILURE);
    if (c) return { type: c.type, status: c.status, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message };
  }
  return undefined;
}

/**
 * requeueStuckDeployment: when a rollout with a deadline shows no progress, how long until it should be looked
 * at again to judge the deadline (undefined: no need; it is not stuck, finished, or already timed out).
 */
export function stuckRecheckDelayMs(d: Deployment, status: DeploymentStatus, now: number): number | undefined {
  const current = getCondition(d.status, PROGRESSING);
  if (!hasProgressDeadline(d) || !current) return undefined;
  if (deploymentComplete(d, status) || current.reason === REASONS.timedOut) return undefined;
  const after = (timeOf(current.lastUpdateTime) ?? 0) + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - now;
  // Less than a second left: now; otherwise one second after the deadline, against clock skew.
  return after < 1000 ? 0 : after + 1000;
}

/** The status with zero counts and empty lists dropped: the server may omit them, which is no change. */
function comparable(s: DeploymentStatus | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s ?? {})) {
    if (v === undefined || v === null || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out;
}

export function deploymentStatusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return jsonEqual(comparable(a), comparable(b));
}
