// coordination.k8s.io/v1: leases (node heartbeats in kube-node-lease, leader election).
import { defineKind } from '../kind';
import { int32, microTime, object, objectMeta, pb, str, typeMeta, valueStruct } from '../schema';

export const lease = defineKind({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  description: 'A lease held by one holder and renewed before it runs out.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    spec: valueStruct(pb(
      2,
      object({
        holderIdentity: pb(1, str()),
        leaseDurationSeconds: pb(2, int32('How long candidates wait after the last renewal before taking the lease.')),
        acquireTime: pb(3, microTime()),
        renewTime: pb(4, microTime()),
        leaseTransitions: pb(5, int32()),
        strategy: pb(6, str()),
        preferredHolder: pb(7, str()),
      }),
    )),
  }),
});
