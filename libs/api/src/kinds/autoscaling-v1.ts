// autoscaling/v1 Scale: the body of the `scale` subresource of workloads (deployments/scale, replicasets/scale).
// Not a stored resource and not listed in discovery as one: only the subresources answer with it. Field numbers
// are those of k8s.io/api autoscaling/v1 generated.proto.
import type { Static } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { int32, object, objectMeta, pb, required, str, typeMeta, valueStruct } from '../schema';

const scaleSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(2, object({ replicas: pb(1, int32('Desired number of instances of the scaled object.')) }, { description: 'Desired state of the scale.' }))),
  status: valueStruct(pb(
    3,
    object(
      {
        replicas: pb(1, required(int32('Actual number of observed instances of the scaled object.'))),
        selector: pb(2, str('Label query over the pods that should match the replicas count, in the string form of label selectors (`app=web`).')),
      },
      { description: 'Current state of the scale; read-only.' },
    ),
  )),
});

export type Scale = Static<typeof scaleSchema>;

export const scale = defineKind({
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  plural: 'scales',
  namespaced: true,
  verbs: ['get', 'patch', 'update'],
  description: 'The scale of a resource: how many replicas it wants and has; the body of its scale subresource.',
  schema: scaleSchema,
});
