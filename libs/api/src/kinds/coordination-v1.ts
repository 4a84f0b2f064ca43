// coordination.k8s.io/v1: leases (node heartbeats in kube-node-lease, leader election).
import { defineKind } from '../kind';
import { int32, microTime, object, objectMeta, str, typeMeta } from '../schema';

export const lease = defineKind({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  description: 'A lease held by one holder and renewed before it runs out.',
  schema: object({
    ...typeMeta(),
    metadata: objectMeta,
    spec: object({
      holderIdentity: str(),
      leaseDurationSeconds: int32('How long candidates wait after the last renewal before taking the lease.'),
      acquireTime: microTime(),
      renewTime: microTime(),
      leaseTransitions: int32(),
      strategy: str(),
      preferredHolder: str(),
    }),
  }),
});
