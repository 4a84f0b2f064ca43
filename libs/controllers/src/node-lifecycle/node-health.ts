// How the node lifecycle controller judges a node's heartbeat (upstream's tryUpdateNodeHealth): it remembers, in
// its own clock, when it last saw the agent's Ready heartbeat or its lease renewal change ("probe time"); once
// that is older than the grace period, the agent is taken to be gone and the node's conditions become Unknown.
// Comparing observations in the controller's clock, not the times the agent wrote, keeps clock skew between
// machines out of the decision.
import { metaTime } from '@cl/apimachinery';
import { nodeCondition, timeOf, type Lease, type Node, type NodeCondition } from '../core-v1/types';

/** What the controller remembers of a node between passes (upstream's nodeHealthData). Times are ms since the epoch. */
export interface NodeHealth {
  /** When a heartbeat (Ready's lastHeartbeatTime or the lease's renewTime) was last seen to change. */
  probeTimestamp: number;
  /** When the Ready condition was last seen to transition. */
  readyTransitionTimestamp: number;
  /** The Ready condition as last seen (absent: the node has none). */
  ready?: NodeCondition;
  /** The lease's renewTime as last seen. */
  leaseRenewTime?: number;
}

export const READY = 'Ready';

/** Upstream's reasons and messages; "Kubelet" is upstream's word, and `kubectl describe node` users search for it. */
export const STOPPED_POSTING = { reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' } as const;
export const NEVER_POSTED = { reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' } as const;

/** The conditions the controller sets Unknown; NetworkUnavailable is left alone (the network plugin owns it). */
export const CONDITIONS_SET_UNKNOWN = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

/**
 * The health record after looking at `node` and its `lease` at `now`. A node without a Ready condition counts
 * from its creation; a changed Ready heartbeat or a renewed lease moves the probe time to now.
 */
export function observeNodeHealth(saved: NodeHealth | undefined, node: Node, lease: Lease | undefined, now: number): NodeHealth {
  const ready = nodeCondition(node, READY);
  let health: NodeHealth;
  if (!ready) {
    const created = timeOf(node.metadata.creationTimestamp) ?? now;
    health = saved ? { ...saved, ready: undefined } : { probeTimestamp: created, readyTransitionTimestamp: created };
  } else if (!saved?.ready) {
    // First sight of a Ready condition (a new node, or this controller just started).
    health = { probeTimestamp: now, readyTransitionTimestamp: now, ready, leaseRenewTime: saved?.leaseRenewTime };
  } else if (saved.ready.lastHeartbeatTime !== ready.lastHeartbeatTime) {
    const transitioned = saved.ready.lastTransitionTime !== ready.lastTransitionTime;
    health = { probeTimestamp: now, readyTransitionTimestamp: transitioned ? now : saved.readyTransitionTimestamp, ready, leaseRenewTime: saved.leaseRenewTime };
  } else {
    health = saved;
  }
  // A renewed lease is a heartbeat too, and the cheap one: agents post their status much less often.
  const renewed = timeOf(lease?.spec?.renewTime);
  if (renewed !== undefined && (health.leaseRenewTime === undefined || health.leaseRenewTime < renewed)) {
    health = { ...health, leaseRenewTime: renewed, probeTimestamp: now };
  }
  return health;
}

/** The grace a node gets: the startup grace until it has posted a Ready condition, then the monitor grace. */
export function gracePeriodFor(node: Node, opts: { nodeMonitorGracePeriodMs: number; nodeStartupGracePeriodMs: number }): number {
  return nodeCondition(node, READY) ? opts.nodeMonitorGracePeriodMs : opts.nodeStartupGracePeriodMs;
}

export const heartbeatExpired = (health: NodeHealth, gracePeriodMs: number, now: number): boolean => now > health.probeTimestamp + gracePeriodMs;

/**
 * The node's conditions once its agent is taken to be gone: Ready and the pressure conditions Unknown (their
 * heartbeat kept, their transition now), the ones it never posted added as never updated. Conditions already
 * Unknown are left as they are, so repeating this changes nothing.
 */
export function unknownConditions(node: Node, now: Date): NodeCondition[] {
  const conditions = (node.status?.conditions ?? []).map((c) => ({ ...c }));
  const at = metaTime(now);
  for (const type of CONDITIONS_SET_UNKNOWN) {
    const current = conditions.find((c) => c.type === type);
    if (!current) {
      conditions.push({ type, status: 'Unknown', reason: NEVER_POSTED.reason, message: NEVER_POSTED.message, lastHeartbeatTime: node.metadata.creationTimestamp ?? null, lastTransitionTime: at });
    } else if (current.status !== 'Unknown') {
      Object.assign(current, { status: 'Unknown', reason: STOPPED_POSTING.reason, message: STOPPED_POSTING.message, lastTransitionTime: at });
    }
  }
  return conditions;
}

/**
 * The Ready condition a node's health is judged by: its own, or for a node that never posted one, an Unknown one
 * dated at its creation (upstream's stand-in, so a new node is neither ready nor evicted before its startup grace).
 */
export function observedReady(node: Node): NodeCondition {
  const created = node.metadata.creationTimestamp ?? null;
  return nodeCondition(node, READY) ?? { type: READY, status: 'Unknown', lastHeartbeatTime: created, lastTransitionTime: created };
}
