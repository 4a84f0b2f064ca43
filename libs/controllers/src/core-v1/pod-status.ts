// Pod status writes shared by the node controllers: a condition set as upstream's UpdatePodCondition sets it
// (the transition time moves only when the status does), and the status patch of utilpod.PatchPodStatus (a
// strategic merge patch of pods/<name>/status carrying the pod's uid, so a pod deleted and created again under
// the same name refuses it).
import { metaTime } from '@cl/apimachinery';
import { resourcePath, type KubeClient } from '@cl/kube-client';
import type { Pod, PodCondition } from './types';

/** The condition upstream sets on a pod a controller is about to delete (v1.DisruptionTarget). */
export const DISRUPTION_TARGET = 'DisruptionTarget';

/**
 * `conditions` with `condition` put in (replacing one of its type), and whether anything changed. The transition
 * time is now, unless the status stays as it was; probe time, reason and message count as changes.
 */
export function withPodCondition(conditions: readonly PodCondition[] | undefined, condition: Omit<PodCondition, 'lastTransitionTime'>, now: Date): { conditions: PodCondition[]; condition: PodCondition; changed: boolean } {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? list[i] : undefined;
  const next: PodCondition = {
    ...condition,
    lastProbeTime: condition.lastProbeTime ?? null,
    lastTransitionTime: old && old.status === condition.status ? (old.lastTransitionTime ?? null) : metaTime(now),
  };
  if (!old) return { conditions: [...list, next], condition: next, changed: true };
  list[i] = next;
  const changed =
    old.status !== next.status ||
    (old.reason ?? '') !== (next.reason ?? '') ||
    (old.message ?? '') !== (next.message ?? '') ||
    (old.lastProbeTime ?? null) !== next.lastProbeTime ||
    (old.lastTransitionTime ?? null) !== next.lastTransitionTime;
  return { conditions: list, condition: next, changed };
}

/** A strategic merge patch of the pod's status (conditions merge by type), refused if the pod's uid changed. */
export function patchPodStatus(client: KubeClient, pod: Pod, status: { phase?: string; conditions?: PodCondition[] }): Promise<Pod> {
  const { namespace = '', name = '', uid } = pod.metadata;
  const path = resourcePath({ version: 'v1', resource: 'pods', namespace, name, subresource: 'status' });
  return client.patch<Pod>(path, { metadata: uid ? { uid } : {}, status }, 'strategic');
}

export const podPath = (pod: Pod): string => resourcePath({ version: 'v1', resource: 'pods', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' });
