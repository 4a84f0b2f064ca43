// The annotations a Deployment keeps on its ReplicaSets (upstream's deployment util): the revision that orders
// rollouts (`kubectl rollout history`/`undo` read it), the revisions a reused ReplicaSet served before, and the
// desired and maximum replicas it was sized for, which tell a scaling event from a rollout.
import type { Deployment, ReplicaSet } from '../workloads/types';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Upstream's maxRevHistoryLengthInChars. */
export const MAX_REVISION_HISTORY_LENGTH = 2000;

/** Deployment annotations that are not copied onto its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

/** strconv.ParseInt(s, 10, 64) of a whole decimal number; undefined when it is not one. */
function parseInt64(s: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(s) ? Number(s) : undefined;
}

/** The revision annotation: 0 when absent, undefined when unreadable (such ReplicaSets are skipped). */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number | undefined {
  const v = obj.metadata.annotations?.[REVISION_ANNOTATION];
  return v === undefined ? 0 : parseInt64(v);
}

export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((max, rs) => Math.max(max, revisionOf(rs) ?? 0), 0);
}

/** An int annotation (desired or max replicas); undefined when absent or unreadable. */
export function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  if (v === undefined || !/^[+-]?[0-9]+$/.test(v)) return undefined;
  return Number(v);
}

/** Sets desired-replicas and max-replicas; true when either changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of [[DESIRED_REPLICAS_ANNOTATION, String(desired)], [MAX_REPLICAS_ANNOTATION, String(max)]]) {
    if (annotations[k] !== v) {
      annotations[k] = v;
      changed = true;
    }
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata.annotations;
  return !a || a[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || a[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's annotations copied onto its new ReplicaSet (but not the ones
 * above), its revision raised to `newRevision` when lower (a reused ReplicaSet keeps its former revisions in
 * revision-history, at most 2000 characters of them), and, for one about to be created, the replica annotations.
 * Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean, replicas: { desired: number; max: number }): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (NOT_COPIED.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const oldText = annotations[REVISION_ANNOTATION];
  const hadRevision = oldText !== undefined;
  const old = oldText === undefined || oldText === '' ? 0 : parseInt64(oldText);
  // An unreadable revision is left alone, as upstream does.
  if (old === undefined) return changed;
  if (old < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (hadRevision) appendRevisionHistory(annotations, oldText);
  }
  if (!exists && setReplicasAnnotations(rs, replicas.desired, replicas.max)) changed = true;
  return changed;
}

function appendRevisionHistory(annotations: Record<string, string>, oldRevision: string) {
  const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
  if (history === '') {
    annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
    return;
  }
  const revisions = history.split(',');
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > MAX_REVISION_HISTORY_LENGTH && start < revisions.length) total -= revisions[start++].length + 1;
  if (total <= MAX_REVISION_HISTORY_LENGTH) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldRevision].join(',');
}
