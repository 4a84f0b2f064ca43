// scheduling.k8s.io/v1 priority classes: a name for a pod priority, resolved by the Priority admission plugin.
import { bool, int32, object, objectMeta, pb, required, str, typeMeta } from '../schema';
import { defineKind } from '../kind';

export const priorityClass = defineKind({
  group: 'scheduling.k8s.io',
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  namespaced: false,
  shortNames: ['pc'],
  description: 'Maps a name to a pod priority: higher priorities are scheduled first and may preempt lower ones.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    value: pb(2, required(int32('The priority pods of this class get; user classes at most 1000000000.'))),
    globalDefault: pb(3, bool('Whether pods without a priorityClassName get this class (at most one class may say so).')),
    description: pb(4, str('When to use this class.')),
    preemptionPolicy: pb(5, str('PreemptLowerPriority (default) or Never.', { default: 'PreemptLowerPriority' })),
  }),
});
