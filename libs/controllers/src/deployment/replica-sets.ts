// A Deployment's ReplicaSets: which one is new (its template is the Deployment's), which are old, their orders
// and sums (upstream's deployment util and controller_utils sorting).
import { timeOf } from '../workloads/pod-state';
import { specReplicas, type Deployment, type ReplicaSet } from '../workloads/types';
import { revisionOf } from './revisions';
import { templatesEqualIgnoringHash } from './template-hash';

const created = (rs: ReplicaSet) => timeOf(rs.metadata.creationTimestamp) ?? 0;
const nameOf = (rs: ReplicaSet) => rs.metadata.name ?? '';

/** ReplicaSetsByCreationTimestamp: oldest first, names breaking ties. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return created(a) - created(b) || (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0);
}

/** ReplicaSetsBySizeOlder: largest first, then oldest first (who gives up pods first when scaling down). */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || byCreation(a, b);
}

/** ReplicaSetsBySizeNewer: largest first, then newest first (who gets pods first when scaling up). */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || created(b) - created(a);
}

/** ReplicaSetsByRevision: lowest revision first; unreadable or equal revisions by creation. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const [ra, rb] = [revisionOf(a), revisionOf(b)];
  if (ra === undefined || rb === undefined || ra === rb) return byCreation(a, b);
  return ra - rb;
}

/** ReplicaSets that have (or ought to have) pods. */
export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => !!rs && specReplicas(rs) > 0);
}

/** The oldest ReplicaSet whose template is the Deployment's (there may be several after an upgrade). */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => templatesEqualIgnoringHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one. */
export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rss);
  return rss.filter((rs) => !newRS || rs.metadata.uid !== newRS.metadata.uid);
}

const sum = (rss: readonly (ReplicaSet | undefined)[], f: (rs: ReplicaSet) => number) => rss.reduce((n, rs) => n + (rs ? f(rs) : 0), 0);

/** The pods the ReplicaSets ought to have (spec.replicas). */
export const specReplicaSum = (rss: readonly (ReplicaSet | undefined)[]) => sum(rss, specReplicas);
/** The pods they have (status.replicas). */
export const actualReplicaSum = (rss: readonly (ReplicaSet | undefined)[]) => sum(rss, (rs) => rs.status?.replicas ?? 0);
export const readyReplicaSum = (rss: readonly (ReplicaSet | undefined)[]) => sum(rss, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicaSum = (rss: readonly (ReplicaSet | undefined)[]) => sum(rss, (rs) => rs.status?.availableReplicas ?? 0);
