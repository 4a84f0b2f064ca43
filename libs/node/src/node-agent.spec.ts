// What makes the node hand a pod to its runtime as a change (UPDATE) rather than as the copy it already has with
// a new status (RECONCILE): every status write of the agent comes back from the watch with a new resourceVersion,
// and must not cost one more sync of the pod.
import { differsSemantically } from './node-agent';
import type { Pod } from './types';

const base: Pod = {
  metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '10', labels: { app: 'web' }, annotations: { a: '1' } },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Pending' },
};
const changed = (f: (p: Pod) => void): Pod => {
  const p = structuredClone(base);
  f(p);
  return p;
};

test.each<[string, Pod, boolean]>([
  ['only the status and resourceVersion (the agent\'s own write coming back)', changed((p) => ((p.metadata.resourceVersion = '11'), (p.status = { phase: 'Running' }))), false],
  ['managed fields or other metadata the runtime does not read', changed((p) => (p.metadata.generation = 2)), false],
  ['a label', changed((p) => (p.metadata.labels = { app: 'api' })), true],
  ['an annotation', changed((p) => (p.metadata.annotations = { a: '2' })), true],
  ['the spec (an ephemeral container added)', changed((p) => ((p.spec as { ephemeralContainers?: unknown[] }).ephemeralContainers = [{ name: 'dbg', image: 'busybox' }])), true],
  ['the deletion (kubectl delete)', changed((p) => ((p.metadata.deletionTimestamp = '2026-11-25T00:00:00Z'), (p.metadata.deletionGracePeriodSeconds = 30))), true],
  ['a shorter grace period for a pod already being deleted', changed((p) => (p.metadata.deletionGracePeriodSeconds = 0)), true],
])('%s: differs %s', (_what, pod, want) => {
  expect(differsSemantically(base, pod)).toBe(want);
});
