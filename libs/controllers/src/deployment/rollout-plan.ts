// The decisions of a Deployment's rollout and scaling, as plain functions of the Deployment and its ReplicaSets
// (upstream's rolling.go, recreate.go, sync.go scale() and deployment util): how far the new ReplicaSet may grow,
// which old ones shrink by how much, and how a resize is spread over the ReplicaSets of a rollout under way.
// The controller applies the steps in order; each step is one ReplicaSet update and one event.
import { specReplicas, type Deployment, type Pod, type ReplicaSet } from '../workloads/types';
import { isRollingUpdate, maxSurge, maxUnavailable, RECREATE, ROLLING_UPDATE } from './fenceposts';
import { activeReplicaSets, availableReplicaSum, byCreation, bySizeNewer, bySizeOlder, specReplicaSum } from './replica-sets';
import { DESIRED_REPLICAS_ANNOTATION, intAnnotation, MAX_REPLICAS_ANNOTATION } from './revisions';

export interface ScaleStep {
  rs: ReplicaSet;
  to: number;
  /** Update the replica annotations even when the size stays (proportional scaling does; other steps skip). */
  evenIfSameSize?: boolean;
}

/**
 * NewRSNewReplicas: the size of the new ReplicaSet. Rolling: grow by what maxSurge leaves room for, never past
 * spec.replicas; Recreate: spec.replicas at once.
 */
export function newReplicaSetReplicas(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  const replicas = specReplicas(d);
  const type = d.spec?.strategy?.type ?? ROLLING_UPDATE;
  if (type === RECREATE) return replicas;
  if (type !== ROLLING_UPDATE) throw new Error(`deployment type ${type} isn't supported`);
  const surge = maxSurge(d);
  const current = specReplicaSum(allRSs);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return specReplicas(newRS);
  return specReplicas(newRS) + Math.min(maxTotal - current, replicas - specReplicas(newRS));
}

/** reconcileNewReplicaSet: the new ReplicaSet's next size (its current size when it should not change). */
export function newReplicaSetTarget(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  const replicas = specReplicas(d);
  if (specReplicas(newRS) >= replicas) return replicas;
  return newReplicaSetReplicas(d, allRSs, newRS);
}

/**
 * reconcileOldReplicaSets: how the old ReplicaSets shrink in a rolling update. What may go is bounded by the pods
 * beyond minAvailable that are not unavailable pods of the new ReplicaSet; unhealthy old pods go first (oldest
 * ReplicaSet first), then available old pods while more than minAvailable pods are available.
 */
export function oldReplicaSetScaleDowns(d: Deployment, allRSs: readonly ReplicaSet[], activeOldRSs: readonly ReplicaSet[], newRS: ReplicaSet): ScaleStep[] {
  if (specReplicaSum(activeOldRSs) === 0) return [];
  const minAvailable = specReplicas(d) - maxUnavailable(d);
  const newUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicaSum(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];

  const steps: ScaleStep[] = [];
  // Sizes as the steps leave them, so the second pass sees the first one's work.
  const olds = [...activeOldRSs].sort(byCreation).map((rs) => ({ rs, size: specReplicas(rs) }));
  let cleaned = 0;
  for (const old of olds) {
    if (cleaned >= maxScaledDown) break;
    const available = old.rs.status?.availableReplicas ?? 0;
    if (old.size === 0 || old.size === available) continue;
    const n = Math.min(maxScaledDown - cleaned, old.size - available);
    old.size -= n;
    cleaned += n;
    steps.push({ rs: old.rs, to: old.size });
  }

  const available = availableReplicaSum([...olds.map((o) => o.rs), newRS]);
  if (available <= minAvailable) return steps;
  const toScaleDown = available - minAvailable;
  let scaled = 0;
  for (const old of olds) {
    if (scaled >= toScaleDown) break;
    if (old.size === 0) continue;
    const n = Math.min(old.size, toScaleDown - scaled);
    old.size -= n;
    scaled += n;
    steps.push({ rs: old.rs, to: old.size });
  }
  return steps;
}

/** IsSaturated: the new ReplicaSet has, and was sized for, all of spec.replicas, and all of them are available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const replicas = specReplicas(d);
  return specReplicas(rs) === replicas && intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** FindActiveOrLatest: the only active ReplicaSet, or the newest one when none is active; undefined for several. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 1) return active[0];
  if (active.length === 0) return newRS ?? newestFirst[0];
  return undefined;
}

/** Go's math.Round: halves away from zero. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** getReplicaSetFraction: the change that keeps the ReplicaSet's share of the Deployment when it is resized. */
function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = specReplicas(d);
  if (replicas === 0) return -specReplicas(rs);
  const deploymentReplicas = replicas + maxSurge(d);
  // Without the annotation, the Deployment's current size is the best guess; the min/max below keep it in bounds.
  const annotated = intAnnotation(rs, MAX_REPLICAS_ANNOTATION) ?? d.status?.replicas ?? 0;
  // Never scaled from zero upstream; a zero here gives no share and the leftover goes to the first ReplicaSet.
  if (annotated <= 0) return 0;
  return roundHalfAway((specReplicas(rs) * deploymentReplicas) / annotated) - specReplicas(rs);
}

/** GetProportion: this ReplicaSet's part of `toAdd`, given what the ReplicaSets before it already took. */
function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * scale(): a resize of the Deployment outside a rollout step. One active ReplicaSet (or none) takes all of
 * spec.replicas; a saturated new ReplicaSet sends the old ones to 0; during a rolling update the difference is
 * spread over the active ReplicaSets in proportion to their sizes (largest first, newer first when growing,
 * older first when shrinking), leftovers to the first. Recreate Deployments are left to the rollout.
 */
export function proportionalScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ScaleStep[] {
  const replicas = specReplicas(d);
  const only = findActiveOrLatest(newRS, oldRSs);
  if (only) return specReplicas(only) === replicas ? [] : [{ rs: only, to: replicas }];
  if (isSaturated(d, newRS)) return activeReplicaSets(oldRSs).map((rs) => ({ rs, to: 0 }));
  if (!isRollingUpdate(d)) return [];

  const all = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowed - specReplicaSum(all);
  if (toAdd > 0) all.sort(bySizeNewer);
  else if (toAdd < 0) all.sort(bySizeOlder);
  let added = 0;
  const sizes = all.map((rs) => {
    if (toAdd === 0) return specReplicas(rs);
    const p = proportion(rs, d, toAdd, added);
    added += p;
    return specReplicas(rs) + p;
  });
  if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(0, sizes[0] + toAdd - added);
  return all.map((rs, i) => ({ rs, to: sizes[i], evenIfSameSize: true }));
}

/** Recreate's oldPodsRunning: old ReplicaSets report pods, or pods of theirs have not finished. */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], podsByReplicaSet: ReadonlyMap<string, readonly Pod[]>): boolean {
  if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
  for (const [uid, pods] of podsByReplicaSet) {
    if (newRS && newRS.metadata.uid === uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}
