// core/v1 kinds that need no node: namespaces, config maps, secrets, service accounts, events.
import { Type } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomic, atomicList, bool, bytesMap, int32, mergeList, microTime, object, objectMeta, pb, required, str, stringMap, time, typeMeta, valueStruct } from '../schema';

const core = { group: '', version: 'v1' } as const;

/** The finalizer the server puts on every namespace and the namespace controller removes once it is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

export const namespace = defineKind({
  ...core,
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  subresources: ['status', 'finalize'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  description: 'A scope for names. Deleting a namespace deletes everything in it.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    spec: valueStruct(pb(2, object({ finalizers: pb(1, atomicList(Type.String(), 'Must be empty before the namespace is removed; the server adds "kubernetes".')) }))),
    status: valueStruct(pb(
      3,
      object({
        phase: pb(1, str('Active, or Terminating while its contents are deleted.')),
        conditions: pb(
          2,
          mergeList(
            object({ type: pb(1, required(str())), status: pb(2, required(str())), lastTransitionTime: pb(4, time()), reason: pb(5, str()), message: pb(6, str()) }),
            'type',
            'Observations of the namespace state.',
          ),
        ),
      }),
    )),
  }),
});

export const configMap = defineKind({
  ...core,
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  description: 'Configuration data for pods to consume: UTF-8 strings in data, other bytes in binaryData.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    immutable: pb(4, bool('If true, data and binaryData cannot change after creation.')),
    data: pb(2, stringMap('UTF-8 configuration data; keys are alphanumeric, "-", "_" or ".".')),
    binaryData: pb(3, bytesMap('Binary configuration data, base64 in JSON; keys may not repeat those of data.')),
  }),
});

export const secret = defineKind({
  ...core,
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  description: 'Sensitive data (passwords, tokens, keys), base64 in data; stringData is merged into data on write.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    immutable: pb(5, bool('If true, data cannot change after creation.')),
    data: pb(2, bytesMap('Secret values, base64 encoded.')),
    stringData: pb(4, stringMap('Write-only convenience: plain strings merged into data (and dropped) on write.')),
    type: pb(3, str('How the data is used; its required keys depend on it. Defaults to Opaque.', { default: 'Opaque' })),
  }),
});

/** A reference to another object (events' involvedObject; events.k8s.io's regarding and related). */
export const objectReference = atomic(object({
  kind: pb(1, str()),
  namespace: pb(2, str()),
  name: pb(3, str()),
  uid: pb(4, str()),
  apiVersion: pb(5, str()),
  resourceVersion: pb(6, str()),
  fieldPath: pb(7, str('A field of the object, e.g. spec.containers{name}.')),
}));

export const serviceAccount = defineKind({
  ...core,
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  subresources: ['token'],
  description: 'An identity for processes in pods.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    secrets: pb(2, mergeList(objectReference, 'name', 'Secrets pods of this account may use (legacy token secrets).')),
    imagePullSecrets: pb(3, atomicList(atomic(object({ name: pb(1, str()) })), 'Secrets used to pull images of pods running as this account.')),
    automountServiceAccountToken: pb(4, bool('Whether pods mount an API token by default.')),
  }),
});

export const event = defineKind({
  ...core,
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  description: 'A report of something that happened to an object; kept for --event-ttl.',
  schema: object({
    ...typeMeta(),
    metadata: pb(1, objectMeta),
    involvedObject: valueStruct(pb(2, objectReference)),
    reason: pb(3, str('Short CamelCase cause of the event.')),
    message: pb(4, str('Human-readable description.')),
    source: valueStruct(pb(5, object({ component: pb(1, str()), host: pb(2, str()) }))),
    firstTimestamp: pb(6, time()),
    lastTimestamp: pb(7, time()),
    count: pb(8, int32('How many times it happened.')),
    type: pb(9, str('Normal or Warning.')),
    eventTime: pb(10, microTime()),
    series: pb(11, object({ count: pb(1, int32()), lastObservedTime: pb(2, microTime()) })),
    action: pb(12, str()),
    related: pb(13, objectReference),
    reportingComponent: pb(14, str()),
    reportingInstance: pb(15, str()),
  }),
});
