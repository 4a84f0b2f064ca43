// Builders for Kubernetes-shaped schemas over TypeBox. A kind is declared once with these; its TypeScript type
// (Static<>), strict decoding, defaults, the patch strategy of each list and the OpenAPI documents all read the
// same schema. Objects are closed (additionalProperties: false) so an unknown field is detectable, as Go's
// strict decoder does; list and map annotations use the OpenAPI extension names kube-apiserver publishes.
import { Type, type TSchema, type TObject, type TProperties, type ObjectOptions, type SchemaOptions } from '@sinclair/typebox';

/**
 * A closed object. Every field is optional in the TypeScript type (an API client may leave any field out);
 * `required()` marks what validation and the OpenAPI documents call required.
 */
export function object<P extends TProperties>(properties: P, options: ObjectOptions = {}) {
  return Type.Partial(Type.Object(properties), { additionalProperties: false, ...options });
}

export const str = (description?: string, options: SchemaOptions = {}) => Type.String({ description, ...options });
export const int32 = (description?: string) => Type.Integer({ format: 'int32', description });
export const int64 = (description?: string) => Type.Integer({ format: 'int64', description });
export const bool = (description?: string) => Type.Boolean({ description });
/** RFC 3339 time to the second, UTC (metav1.Time); null when unset. */
export const time = (description?: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
/** metav1.MicroTime: RFC 3339 with microseconds (Lease renewTime, events.k8s.io eventTime). */
export const microTime = (description?: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
/** A resource quantity ("100m", "1Gi"), written as a string or a number. */
export const quantity = (description?: string) => Type.Union([Type.String(), Type.Number()], { description, 'x-kubernetes-int-or-string': true });
export const intOrString = (description?: string) => Type.Union([Type.Integer(), Type.String()], { description, 'x-kubernetes-int-or-string': true });
export const stringMap = (description?: string) => Type.Record(Type.String(), Type.String(), { description });
export const bytesMap = (description?: string) => Type.Record(Type.String(), Type.String({ format: 'byte' }), { description });
/** Any JSON value kept as it is (RawExtension, free-form fields). */
export const anyJson = (description?: string) => Type.Unknown({ description, 'x-kubernetes-preserve-unknown-fields': true });

/** A list merged by a key in strategic merge patch (`patchStrategy:"merge" patchMergeKey:"<key>"`). */
export function mergeList<T extends TSchema>(item: T, key: string, description?: string) {
  return Type.Array(item, {
    description,
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': key,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key],
  });
}

/** A list of primitives merged as a set (finalizers). */
export function setList<T extends TSchema>(item: T, description?: string) {
  return Type.Array(item, { description, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' });
}

/** A list replaced whole by a patch. */
export function atomicList<T extends TSchema>(item: T, description?: string) {
  return Type.Array(item, { description, 'x-kubernetes-list-type': 'atomic' });
}

/** Marks fields that must be present (after defaults). */
export function required<T extends TSchema>(schema: T): T {
  return { ...schema, 'x-cl-required': true } as T;
}

export const ownerReference = object({
  apiVersion: required(str('API version of the referent.')),
  kind: required(str('Kind of the referent.')),
  name: required(str('Name of the referent.')),
  uid: required(str('UID of the referent.')),
  controller: bool('If true, this reference points to the managing controller.'),
  blockOwnerDeletion: bool('If true, the owner cannot be deleted from the store before this reference is removed (foreground deletion).'),
});

export const objectMeta = object(
  {
    name: str('Name, unique within a namespace; required when creating unless generateName is set.'),
    generateName: str('A prefix the server completes with a random suffix when name is empty.'),
    namespace: str('The namespace the object lives in; empty for cluster-scoped kinds.'),
    selfLink: str('Not set by this server (deprecated upstream).'),
    uid: str('Unique in time and space; set by the server on create.'),
    resourceVersion: str('Opaque version of the object, the store revision of its last write; a stale one on update conflicts.'),
    generation: int64('Sequence number of changes to the desired state.'),
    creationTimestamp: time('When the object was created; set by the server.'),
    deletionTimestamp: time('When the object will be deleted; set by the server on a graceful or finalized deletion.'),
    deletionGracePeriodSeconds: int64('Seconds allowed for graceful termination before the object is removed.'),
    labels: stringMap('Map of string keys and values used to organize and select objects.'),
    annotations: stringMap('Map of string keys and values for tools and extensions.'),
    ownerReferences: mergeList(ownerReference, 'uid', 'Objects this object depends on; the garbage collector deletes it when they are gone.'),
    finalizers: setList(Type.String(), 'Conditions that must be cleared before the object is removed.'),
    managedFields: atomicList(anyJson(), 'Field ownership of server-side apply; accepted and not kept by this server.'),
  },
  { description: 'Standard object metadata.' },
);

export const listMeta = object({
  selfLink: str(),
  resourceVersion: str('The store revision the list was read at.'),
  continue: str('Token for the next page of a chunked list.'),
  remainingItemCount: int64('Items left after this page, when known.'),
});

/** apiVersion and kind, present on every top-level object. */
export function typeMeta() {
  return {
    apiVersion: str('Versioned schema of this representation of an object.'),
    kind: str('The REST resource this object represents.'),
  };
}

export type { TObject, TSchema };
