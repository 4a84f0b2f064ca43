// The pod a ReplicaSet creates from its template (upstream's GetPodFromTemplate): the template's labels,
// annotations, finalizers and spec, a generated name after the ReplicaSet's, and the ReplicaSet as controller.
import { controllerRefTo } from '../workloads/controller-ref';
import type { Pod, ReplicaSet } from '../workloads/types';

export function podFromTemplate(rs: ReplicaSet): Pod {
  const template = rs.spec?.template ?? {};
  const labels = { ...(template.metadata?.labels ?? {}) };
  // A pod without labels could never be matched back to its ReplicaSet.
  if (Object.keys(labels).length === 0) throw new Error('unable to create pods, no labels');
  const metadata: Pod['metadata'] = {
    generateName: `${rs.metadata.name}-`,
    labels,
    ownerReferences: [controllerRefTo({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: rs.metadata })],
  };
  if (template.metadata?.annotations && Object.keys(template.metadata.annotations).length) metadata.annotations = { ...template.metadata.annotations };
  if (template.metadata?.finalizers?.length) metadata.finalizers = [...template.metadata.finalizers];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template.spec ?? {}) };
}
