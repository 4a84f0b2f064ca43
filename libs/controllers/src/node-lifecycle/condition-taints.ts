// The taints the node lifecycle controller keeps on a node from its conditions, as upstream's TaintNodesByCondition
// (NoSchedule: the scheduler stops placing pods) and TaintBasedEvictions (NoExecute: the taint eviction
// controller removes pods that do not tolerate them) do it.
import { sameTaint } from '../core-v1/taints';
import type { Node, Taint } from '../core-v1/types';
import {
  TAINT_DISK_PRESSURE,
  TAINT_MEMORY_PRESSURE,
  TAINT_NETWORK_UNAVAILABLE,
  TAINT_NOT_READY,
  TAINT_PID_PRESSURE,
  TAINT_UNREACHABLE,
  TAINT_UNSCHEDULABLE,
} from '../core-v1/well-known';

/** Condition type and status -> the key of the taint they call for (nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINT_KEYS: ReadonlyArray<{ type: string; status: string; key: string }> = [
  { type: 'Ready', status: 'False', key: TAINT_NOT_READY },
  { type: 'Ready', status: 'Unknown', key: TAINT_UNREACHABLE },
  { type: 'MemoryPressure', status: 'True', key: TAINT_MEMORY_PRESSURE },
  { type: 'DiskPressure', status: 'True', key: TAINT_DISK_PRESSURE },
  { type: 'NetworkUnavailable', status: 'True', key: TAINT_NETWORK_UNAVAILABLE },
  { type: 'PIDPressure', status: 'True', key: TAINT_PID_PRESSURE },
];

/** The NoSchedule taint keys this controller owns; others' NoSchedule taints are never touched. */
const OWNED_NO_SCHEDULE_KEYS: ReadonlySet<string> = new Set([...CONDITION_TAINT_KEYS.map((c) => c.key), TAINT_UNSCHEDULABLE]);

export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' };
export const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NOT_READY, effect: 'NoExecute' };

export interface TaintChanges {
  add: Taint[];
  remove: Taint[];
}

/**
 * The NoSchedule taints a node's conditions and spec.unschedulable call for, in the order of its conditions. A
 * node that has posted no conditions calls for none: upstream removes the not-ready taint TaintNodesByCondition
 * put on it at creation as soon as it looks, and the agent's first status brings the right ones.
 */
export function noScheduleTaintsFor(node: Node): Taint[] {
  const taints: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const rule = CONDITION_TAINT_KEYS.find((r) => r.type === c.type && r.status === c.status);
    if (rule) taints.push({ key: rule.key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) taints.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  return taints;
}

/** What to add and remove so the node's condition NoSchedule taints are what its conditions call for. */
export function noScheduleTaintChanges(node: Node): TaintChanges {
  const wanted = noScheduleTaintsFor(node);
  const present = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' && OWNED_NO_SCHEDULE_KEYS.has(t.key));
  return {
    add: wanted.filter((w) => !present.some((p) => sameTaint(p, w))),
    remove: present.filter((p) => !wanted.some((w) => sameTaint(p, w))),
  };
}

/**
 * The NoExecute taint the Ready status calls for, and the one it excludes: not-ready and unreachable mirror
 * Ready=False and Ready=Unknown, so a node has at most one of them. Ready=True calls for neither.
 */
export function noExecuteTaintFor(readyStatus: string): TaintChanges {
  switch (readyStatus) {
    case 'False':
      return { add: [NOT_READY_NO_EXECUTE], remove: [UNREACHABLE_NO_EXECUTE] };
    case 'Unknown':
      return { add: [UNREACHABLE_NO_EXECUTE], remove: [NOT_READY_NO_EXECUTE] };
    default:
      return { add: [], remove: [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE] };
  }
}

/**
 * The taints after `changes`: removed ones go, added ones join with `timeAdded` (or replace one of the same key
 * and effect whose value differs). A taint already there as asked keeps its timeAdded, which eviction times
 * count from. Undefined when nothing would change.
 */
export function applyTaintChanges(taints: readonly Taint[] | undefined, changes: TaintChanges, timeAdded: string): Taint[] | undefined {
  const current = taints ?? [];
  let next = current.filter((t) => !changes.remove.some((r) => sameTaint(t, r)));
  for (const add of changes.add) {
    const existing = next.find((t) => sameTaint(t, add));
    if (existing && (existing.value ?? '') === (add.value ?? '')) continue;
    const added = { ...add, timeAdded };
    next = existing ? next.map((t) => (t === existing ? added : t)) : [...next, added];
  }
  const changed = next.length !== current.length || next.some((t, i) => t !== current[i]);
  return changed ? next : undefined;
}
