// Upstream's MarkPodsNotReady: when a node stops being ready, the pods on it that say they are Ready are told
// otherwise (Ready=False, written through pods/<name>/status), so Services stop sending them traffic long before
// any eviction. Each pod so marked gets a `NodeNotReady` warning event.
import { isNotFound, resourcePath, type EventRecorder, type KubeClient } from '@cl/kube-client';
import { podReference } from '../core-v1/events';
import { withPodCondition } from '../core-v1/pod-status';
import type { Pod } from '../core-v1/types';

/** The pod's status with Ready=False, or undefined when it has no Ready condition or it is False already. */
export function notReadyStatus(pod: Pod, now: Date): Pod['status'] | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return undefined;
  const { conditions, changed } = withPodCondition(pod.status?.conditions, { ...ready, status: 'False' }, now);
  return changed ? { ...pod.status, conditions } : undefined;
}

/** Marks the pods of `nodeName` among `pods` not ready; rejects (after trying all) if any write failed. */
export async function markPodsNotReady(client: KubeClient, events: EventRecorder, pods: readonly Pod[], nodeName: string, log: (msg: string, fields?: Record<string, unknown>) => void): Promise<void> {
  const errors: unknown[] = [];
  for (const pod of pods) {
    if (pod.spec?.nodeName !== nodeName) continue;
    const status = notReadyStatus(pod, new Date());
    if (!status) continue;
    const { namespace = '', name = '' } = pod.metadata;
    try {
      // A PUT of the pod as last seen: a pod changed meanwhile is a conflict, retried on the next pass.
      await client.update(resourcePath({ version: 'v1', resource: 'pods', namespace, name, subresource: 'status' }), { ...pod, status });
    } catch (e) {
      if (isNotFound(e)) continue;
      log('Failed to update status for pod', { pod: `${namespace}/${name}`, err: (e as Error)?.message ?? String(e) });
      errors.push(e);
    }
    events.event(podReference(pod), 'Warning', 'NodeNotReady', 'Node is not ready');
  }
  if (errors.length) throw new AggregateError(errors, `unable to mark all pods NotReady on node ${nodeName}`);
}
