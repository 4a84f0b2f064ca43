// core/v1 kinds that need no node: namespaces, config maps, secrets, service accounts, events.
import { Type } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomicList, bool, bytesMap, int32, mergeList, object, objectMeta, required, str, stringMap, time, typeMeta } from '../schema';

const core = { group: '', version: 'v1' } as const;

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
    metadata: objectMeta,
    spec: object({ finalizers: atomicList(Type.String(), 'Must be empty before the namespace is removed; the server adds "kubernetes".') }),
    status: object({
      phase: str('Active, or Terminating while its contents are deleted.'),
      conditions: mergeList(
        object({ type: required(str()), status: required(str()), lastTransitionTime: time(), reason: str(), message: str() }),
        'type',
        'Observations of the namespace state.',
      ),
    }),
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
    metadata: objectMeta,
    immutable: bool('If true, data and binaryData cannot change after creation.'),
    data: stringMap('UTF-8 configuration data; keys are alphanumeric, "-", "_" or ".".'),
    binaryData: bytesMap('Binary configuration data, base64 in JSON; keys may not repeat those of data.'),
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
    metadata: objectMeta,
    immutable: bool('If true, data cannot change after creation.'),
    data: bytesMap('Secret values, base64 encoded.'),
    stringData: stringMap('Write-only convenience: plain strings merged into data (and dropped) on write.'),
    type: str('How the data is used; its required keys depend on it. Defaults to Opaque.', { default: 'Opaque' }),
  }),
});

const objectReference = object({
  kind: str(),
  namespace: str(),
  name: str(),
  uid: str(),
  apiVersion: str(),
  resourceVersion: str(),
  fieldPath: str('A field of the object, e.g. spec.containers{name}.'),
});

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
    metadata: objectMeta,
    secrets: mergeList(objectReference, 'name', 'Secrets pods of this account may use (legacy token secrets).'),
    imagePullSecrets: atomicList(object({ name: str() }), 'Secrets used to pull images of pods running as this account.'),
    automountServiceAccountToken: bool('Whether pods mount an API token by default.'),
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
    metadata: objectMeta,
    involvedObject: objectReference,
    reason: str('Short CamelCase cause of the event.'),
    message: str('Human-readable description.'),
    source: object({ component: str(), host: str() }),
    firstTimestamp: time(),
    lastTimestamp: time(),
    count: int32('How many times it happened.'),
    type: str('Normal or Warning.'),
    eventTime: time(),
    series: object({ count: int32(), lastObservedTime: time() }),
    action: str(),
    related: objectReference,
    reportingComponent: str(),
    reportingInstance: str(),
  }),
});
