// The four node conditions the agent owns, in upstream's order, with their reasons and messages, and the
// events a change of each records (pkg/kubelet/nodestatus/setters.go). The product name replaces "kubelet"
// in reasons and messages, as everywhere else the agent speaks.
import type { NodeCondition } from './types';

export interface NodeHealth {
  /** Why the node cannot run pods (runtime down, network not ready, ...); empty when it can. */
  notReady: string[];
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
}

interface ConditionRule {
  type: string;
  /** True when the condition's status is "True". */
  isTrue(h: NodeHealth): boolean;
  whenTrue: { reason: string; message: (h: NodeHealth) => string; event: string };
  whenFalse: { reason: string; message: (h: NodeHealth) => string; event: string };
}

const RULES: ConditionRule[] = [
  {
    type: 'MemoryPressure',
    isTrue: (h) => h.memoryPressure,
    whenTrue: { reason: 'CletHasInsufficientMemory', message: () => 'clet has insufficient memory available', event: 'NodeHasInsufficientMemory' },
    whenFalse: { reason: 'CletHasSufficientMemory', message: () => 'clet has sufficient memory available', event: 'NodeHasSufficientMemory' },
  },
  {
    type: 'DiskPressure',
    isTrue: (h) => h.diskPressure,
    whenTrue: { reason: 'CletHasDiskPressure', message: () => 'clet has disk pressure', event: 'NodeHasDiskPressure' },
    whenFalse: { reason: 'CletHasNoDiskPressure', message: () => 'clet has no disk pressure', event: 'NodeHasNoDiskPressure' },
  },
  {
    type: 'PIDPressure',
    isTrue: (h) => h.pidPressure,
    whenTrue: { reason: 'CletHasInsufficientPID', message: () => 'clet has insufficient PID available', event: 'NodeHasInsufficientPID' },
    whenFalse: { reason: 'CletHasSufficientPID', message: () => 'clet has sufficient PID available', event: 'NodeHasSufficientPID' },
  },
  {
    type: 'Ready',
    isTrue: (h) => h.notReady.length === 0,
    whenTrue: { reason: 'CletReady', message: () => 'clet is posting ready status', event: 'NodeReady' },
    whenFalse: { reason: 'CletNotReady', message: (h) => notReadyMessage(h.notReady), event: 'NodeNotReady' },
  },
];

/** Upstream's aggregate error text: one reason as it is, several distinct ones as `[a, b]`. */
function notReadyMessage(reasons: string[]): string {
  const distinct = [...new Set(reasons)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

export const OWN_CONDITION_TYPES = RULES.map((r) => r.type);

export interface ConditionChange { type: string; event: string }

/**
 * The agent's conditions for `now`: a condition whose status is unchanged against `previous` (the Node as the
 * API server has it) keeps its lastTransitionTime; a changed one (or a new one) transitions now and is
 * reported in `changes`, for the NodeReady / NodeHasSufficientMemory ... events.
 */
export function nodeConditions(health: NodeHealth, previous: readonly NodeCondition[] | undefined, now: string): { conditions: NodeCondition[]; changes: ConditionChange[] } {
  const changes: ConditionChange[] = [];
  const conditions = RULES.map((rule) => {
    const on = rule.isTrue(health);
    const side = on ? rule.whenTrue : rule.whenFalse;
    const status = on ? 'True' : 'False';
    const before = previous?.find((c) => c.type === rule.type);
    const transitioned = !before || before.status !== status;
    if (transitioned) changes.push({ type: rule.type, event: side.event });
    return {
      type: rule.type,
      status,
      lastHeartbeatTime: now,
      lastTransitionTime: transitioned ? now : before.lastTransitionTime,
      reason: side.reason,
      message: side.message(health),
    } satisfies NodeCondition;
  });
  return { conditions, changes };
}
