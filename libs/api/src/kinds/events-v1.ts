// events.k8s.io/v1 events: the structured form of events, stored with core/v1 events (one store, two views).
import { defineKind } from '../kind';
import { int32, microTime, object, objectMeta, pb, str, time, typeMeta, valueStruct } from '../schema';
import { objectReference as reference } from './core-v1';


export const eventV1 = defineKind({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  description: 'A report of something that happened to an object, in the structured form; the same objects as core/v1 events.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    eventTime: pb(2, microTime('When the event was first observed; required.')),
    series: pb(3, object({ count: pb(1, int32()), lastObservedTime: pb(2, microTime()) })),
    reportingController: pb(4, str('The controller that emitted the event, e.g. cl.io/clet; required.')),
    reportingInstance: pb(5, str('The instance of the controller, e.g. clet-node1; required.')),
    action: pb(6, str('What was done, or failed to be done, to the regarding object; required.')),
    reason: pb(7, str('Why the action was taken; required.')),
    regarding: valueStruct(pb(8, reference)),
    related: pb(9, reference),
    note: pb(10, str('A human-readable description, at most 1 kB.')),
    type: pb(11, str('Normal or Warning.')),
    deprecatedSource: valueStruct(pb(12, object({ component: pb(1, str()), host: pb(2, str()) }))),
    deprecatedFirstTimestamp: pb(13, time()),
    deprecatedLastTimestamp: pb(14, time()),
    deprecatedCount: pb(15, int32()),
  }),
});
