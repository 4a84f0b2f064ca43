// A ReplicaSet's status from the pods it owns (upstream's calculateStatus and the check in updateReplicaSetStatus
// that skips writes which change nothing).
import { jsonEqual, metaTime } from '@cl/apimachinery';
import { isPodAvailable, isPodReady } from '../workloads/pod-state';
import { specReplicas, type Pod, type ReplicaSet, type ReplicaSetCondition, type ReplicaSetStatus } from '../workloads/types';

export const REPLICA_FAILURE = 'ReplicaFailure';

/** Pod labels that include every label of the template (labels.Set(template).AsSelector().Matches). */
function hasTemplateLabels(pod: Pod, template: Record<string, string>): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(template).every(([k, v]) => labels[k] === v);
}

/**
 * The status for `activePods` (the active pods the ReplicaSet owns), at `now`: counts, and the ReplicaFailure
 * condition added when creating or deleting pods failed (`manageError`) and removed once a sync succeeds.
 * observedGeneration is left as it was: the write sets it.
 */
export function calculateReplicaSetStatus(rs: ReplicaSet, activePods: readonly Pod[], manageError: Error | undefined, now: number): ReplicaSetStatus {
  const status: ReplicaSetStatus = { ...(rs.status ?? {}) };
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (hasTemplateLabels(pod, templateLabels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }
  const failure = rs.status?.conditions?.find((c) => c.type === REPLICA_FAILURE);
  if (manageError && !failure) {
    const diff = activePods.length - specReplicas(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const condition: ReplicaSetCondition = { type: REPLICA_FAILURE, status: 'True', lastTransitionTime: metaTime(new Date(now)), reason, message: manageError.message };
    status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== REPLICA_FAILURE), condition];
  } else if (!manageError && failure) {
    const rest = (status.conditions ?? []).filter((c) => c.type !== REPLICA_FAILURE);
    if (rest.length) status.conditions = rest;
    else delete status.conditions;
  }
  status.replicas = activePods.length;
  status.fullyLabeledReplicas = fullyLabeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  return status;
}

/** Whether writing `status` would change nothing (counts, conditions, and the generation already observed). */
export function replicaSetStatusUnchanged(rs: ReplicaSet, status: ReplicaSetStatus): boolean {
  const old = rs.status ?? {};
  return (
    (old.replicas ?? 0) === (status.replicas ?? 0) &&
    (old.fullyLabeledReplicas ?? 0) === (status.fullyLabeledReplicas ?? 0) &&
    (old.readyReplicas ?? 0) === (status.readyReplicas ?? 0) &&
    (old.availableReplicas ?? 0) === (status.availableReplicas ?? 0) &&
    (rs.metadata.generation ?? 0) === (old.observedGeneration ?? 0) &&
    jsonEqual(old.conditions ?? [], status.conditions ?? [])
  );
}
