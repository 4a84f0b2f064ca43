// Pod readiness gates (upstream GeneratePodReadyCondition and NeedToReconcilePodReadiness): a pod whose spec names
// `readinessGates` is Ready only when its containers are ready and every gate's condition, which another controller
// sets in the pod's status, is True. The agent keeps those conditions (they are not its own) and reads them here.
import type { PodCondition } from './types';

interface GatedPod {
  spec: { readinessGates?: { conditionType: string }[] };
  status?: { conditions?: PodCondition[] };
}

export const READINESS_GATES_NOT_READY = 'ReadinessGatesNotReady';

/** Why the pod's gates hold it from Ready, one message per gate that does (none: they do not). */
function unreadyGateMessages(pod: GatedPod): string[] {
  const out: string[] = [];
  for (const { conditionType: type } of pod.spec.readinessGates ?? []) {
    const c = pod.status?.conditions?.find((x) => x.type === type);
    if (!c) out.push(`corresponding condition of pod readiness gate ${JSON.stringify(type)} does not exist.`);
    else if (c.status !== 'True') out.push(`the status of pod readiness gate ${JSON.stringify(type)} is not "True", but ${c.status}`);
  }
  return out;
}

/**
 * The Ready condition's status, reason and message given ContainersReady's: its own when that is not True, else
 * False with ReadinessGatesNotReady while a gate holds.
 */
export function readyFromGates(pod: GatedPod, containersReady: { status: string; reason?: string; message?: string }): { status: string; reason?: string; message?: string } {
  if (containersReady.status !== 'True') return containersReady;
  const held = unreadyGateMessages(pod);
  return held.length ? { status: 'False', reason: READINESS_GATES_NOT_READY, message: held.join(', ') } : { status: 'True' };
}

/**
 * Whether a pod's status, as the API server holds it, calls for a sync: a gate's condition changed (another
 * controller wrote it), so the Ready condition there no longer says what the gates say.
 */
export function readinessNeedsSync(pod: GatedPod): boolean {
  if (!pod.spec.readinessGates?.length) return false;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const containersReady = pod.status?.conditions?.find((c) => c.type === 'ContainersReady');
  if (!ready || !containersReady) return false;
  const want = readyFromGates(pod, containersReady);
  return ready.status !== want.status || (ready.message ?? '') !== (want.message ?? '');
}
