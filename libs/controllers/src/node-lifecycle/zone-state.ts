// Zones and their disruption state (upstream's ComputeZoneState and handleDisruption). Nodes are grouped by
// region and zone labels; the share of not-ready nodes in a zone sets how fast their NoExecute taints are added.
// When every node of every zone is not ready at once, the likelier story is that this controller lost the
// cluster (a network partition, the API server down), not that every machine died: all NoExecute taints are
// removed and no new ones are added until some node is ready again.
import type { Node, NodeCondition } from '../core-v1/types';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

const REGION_LABELS = ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];
const ZONE_LABELS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];
/** Nodes with this label are left out of the zone counts (upstream's labelNodeDisruptionExclusion). */
export const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';

/** component-helpers' GetZoneKey: "" without labels, else `<region>:\0:<zone>`. */
export function zoneKey(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const first = (keys: string[]) => keys.map((k) => labels[k]).find((v) => v) ?? '';
  const region = first(REGION_LABELS);
  const zone = first(ZONE_LABELS);
  return region === '' && zone === '' ? '' : `${region}:\x00:${zone}`;
}

export const excludedFromDisruptionChecks = (node: Node): boolean => node.metadata.labels?.[EXCLUDE_DISRUPTION_LABEL] !== undefined;

/**
 * A zone's state from its nodes' Ready conditions (undefined: never posted one): no ready node at all is a full
 * disruption; more than two not ready and at least `unhealthyZoneThreshold` of them a partial one.
 */
export function computeZoneState(ready: ReadonlyArray<NodeCondition | undefined>, unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  const readyCount = ready.filter((c) => c?.status === 'True').length;
  const notReady = ready.length - readyCount;
  if (readyCount === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / ready.length >= unhealthyZoneThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

export interface EvictionRates {
  /** --node-eviction-rate: nodes per second tainted NoExecute in a healthy zone. */
  nodeEvictionRate: number;
  /** --secondary-node-eviction-rate: in a partially disrupted zone of a large cluster. */
  secondaryNodeEvictionRate: number;
  /** --large-cluster-size-threshold: a partially disrupted zone this size or smaller stops tainting. */
  largeClusterSizeThreshold: number;
}

/** The tainting rate a zone gets in a state (setLimiterInZone with ReducedQPSFunc and HealthyQPSFunc). */
export function evictionRateFor(state: ZoneState, zoneSize: number, rates: EvictionRates): number {
  switch (state) {
    case 'PartialDisruption':
      return zoneSize > rates.largeClusterSizeThreshold ? rates.secondaryNodeEvictionRate : 0;
    default:
      return rates.nodeEvictionRate;
  }
}

/** What a monitor pass does about disruption. */
export type DisruptionPlan =
  /** Nothing changed that matters, or every zone is and was fully disrupted. */
  | { kind: 'none' }
  /** Every zone just became fully disrupted: remove the NoExecute taints everywhere and stop tainting. */
  | { kind: 'enter-full-disruption' }
  /** Some node is ready again after a full disruption: restart every node's grace and set every zone's rate. */
  | { kind: 'exit-full-disruption'; states: Map<string, ZoneState> }
  /** Zones whose state changed (their rates change with it). */
  | { kind: 'zone-changes'; states: Map<string, ZoneState> };

/**
 * Compares the zones' states before this pass (`previous`) with the ones just computed (`next`, one per zone
 * that has nodes). A zone new to `previous` was 'Initial'; one missing from `next` has no nodes left and counts
 * no more.
 */
export function planDisruption(previous: ReadonlyMap<string, ZoneState>, next: ReadonlyMap<string, ZoneState>): DisruptionPlan {
  const before = [...next.keys()].map((zone) => previous.get(zone) ?? 'Initial');
  const allAre = [...next.values()].every((s) => s === 'FullDisruption');
  const allWere = before.every((s) => s === 'FullDisruption');
  if (allAre && allWere) return { kind: 'none' };
  if (allAre) return { kind: 'enter-full-disruption' };
  if (allWere) return { kind: 'exit-full-disruption', states: new Map(next) };
  const changed = new Map([...next].filter(([zone, state]) => previous.get(zone) !== state));
  return changed.size ? { kind: 'zone-changes', states: changed } : { kind: 'none' };
}
