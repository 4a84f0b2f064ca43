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
export const time = (description?: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, 'x-cl-proto-type': 'time' });
/** metav1.MicroTime: RFC 3339 with microseconds (Lease renewTime, events.k8s.io eventTime). */
export const microTime = (description?: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, 'x-cl-proto-type': 'microtime' });
/** A resource quantity ("100m", "1Gi"), written as a string or a number. */
export const quantity = (description?: string) => Type.Union([Type.String(), Type.Number()], { description, 'x-kubernetes-int-or-string': true, 'x-cl-proto-type': 'quantity' });
export const intOrString = (description?: string) => Type.Union([Type.Integer(), Type.String()], { description, 'x-kubernetes-int-or-string': true, 'x-cl-proto-type': 'intorstring' });
export const stringMap = (description?: string) => Type.Record(Type.String(), Type.String(), { description });
export const bytesMap = (description?: string) => Type.Record(Type.String(), Type.String({ format: 'byte' }), { description });
/** Any JSON value kept as it is (RawExtension, free-form fields). */
export const anyJson = (description?: string) => Type.Unknown({ description, 'x-kubernetes-preserve-unknown-fields': true, 'x-cl-proto-type': 'raw' });

/**
 * The field's number in Kubernetes' protobuf encoding (k8s.io/api generated.proto), so the same schema decodes
 * the protobuf bodies typed clients send (`kubectl create configmap`, kubelets).
 */
export function pb<T extends TSchema>(field: number, schema: T): T {
  return { ...schema, 'x-cl-proto': field } as T;
}

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

/**
 * A field Go declares as a struct by value, not a pointer: upstream's objects always carry it (`{}` at least), so
 * field management takes it as present wherever its parent is, and it never owns itself (no `.` in FieldsV1).
 * Internal: upstream publishes no such extension (its OpenAPI says `default: {}`), so it is not published.
 */
export function valueStruct<T extends TSchema>(schema: T): T {
  return { ...schema, 'x-cl-value-struct': true } as T;
}

/**
 * A field Go always writes, null when unset: a slice, map or pointer without omitempty (PodSpec.containers), or a
 * metav1.Time. Like valueStruct, it tells field management the field is there before it is set (internal, not
 * published).
 */
export function nullWhenUnset<T extends TSchema>(schema: T): T {
  return { ...schema, 'x-cl-null-when-unset': true } as T;
}

/** `+structType=atomic` / `+mapType=atomic`: owned and replaced whole by server-side apply, as one leaf. */
export function atomic<T extends TSchema>(schema: T): T {
  return { ...schema, 'x-kubernetes-map-type': 'atomic' } as T;
}

/** Marks fields that must be present (after defaults). */
export function required<T extends TSchema>(schema: T): T {
  return { ...schema, 'x-cl-required': true } as T;
}

export const ownerReference = object({
  apiVersion: pb(5, required(str('API version of the referent.'))),
  kind: pb(1, required(str('Kind of the referent.'))),
  name: pb(3, required(str('Name of the referent.'))),
  uid: pb(4, required(str('UID of the referent.'))),
  controller: pb(6, bool('If true, this reference points to the managing controller.')),
  blockOwnerDeletion: pb(7, bool('If true, the owner cannot be deleted from the store before this reference is removed (foreground deletion).')),
});

// ObjectMeta is embedded by value wherever it is used (every kind, PodTemplateSpec, PersistentVolumeClaimTemplate).
export const objectMeta = valueStruct(object(
  {
    name: pb(1, str('Name, unique within a namespace; required when creating unless generateName is set.')),
    generateName: pb(2, str('A prefix the server completes with a random suffix when name is empty.')),
    namespace: pb(3, str('The namespace the object lives in; empty for cluster-scoped kinds.')),
    selfLink: pb(4, str('Not set by this server (deprecated upstream).')),
    uid: pb(5, str('Unique in time and space; set by the server on create.')),
    resourceVersion: pb(6, str('Opaque version of the object, the store revision of its last write; a stale one on update conflicts.')),
    generation: pb(7, int64('Sequence number of changes to the desired state.')),
    creationTimestamp: pb(8, nullWhenUnset(time('When the object was created; set by the server.'))),
    deletionTimestamp: pb(9, time('When the object will be deleted; set by the server on a graceful or finalized deletion.')),
    deletionGracePeriodSeconds: pb(10, int64('Seconds allowed for graceful termination before the object is removed.')),
    labels: pb(11, stringMap('Map of string keys and values used to organize and select objects.')),
    annotations: pb(12, stringMap('Map of string keys and values for tools and extensions.')),
    ownerReferences: pb(13, mergeList(ownerReference, 'uid', 'Objects this object depends on; the garbage collector deletes it when they are gone.')),
    finalizers: pb(14, setList(Type.String(), 'Conditions that must be cleared before the object is removed.')),
    // No field number: a protobuf body's entries are skipped (the field manager then keeps the live ones).
    managedFields: atomicList(anyJson(), 'Which manager owns which fields (server-side apply), kept by the server; sent back on update only to change them.'),
  },
  { description: 'Standard object metadata.' },
));

/** metav1.LabelSelector: matchLabels and matchExpressions, ANDed. */
export const labelSelector = object(
  {
    matchLabels: pb(1, stringMap('Labels that must all be present with these values.')),
    matchExpressions: pb(
      2,
      atomicList(object({ key: pb(1, required(str())), operator: pb(2, required(str('In, NotIn, Exists or DoesNotExist.'))), values: pb(3, atomicList(Type.String())) }), 'Requirements on labels.'),
    ),
  },
  // Atomic, as upstream's +structType=atomic: a selector is owned and replaced whole by server-side apply.
  { description: 'A label query over a set of objects; an empty selector matches everything.', 'x-kubernetes-map-type': 'atomic' },
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
