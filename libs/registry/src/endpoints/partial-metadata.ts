// Metadata-only answers (upstream's asPartialObjectMetadata / asPartialObjectMetadataList): an object as
// meta.k8s.io PartialObjectMetadata (kind, apiVersion, the whole metadata), a list as PartialObjectMetadataList
// whose items carry their own kind and apiVersion. The wrong one for the answer (a list asked for as one object,
// an object as a list) is a 406, as upstream decides it after the read.
import { apiVersionOf, type KindDefinition } from '@cl/api';
import { ApiError, statusFailure, type KubeObject } from '@cl/apimachinery';

export type MetaVersion = 'v1' | 'v1beta1';

const cached = { v1: new WeakMap<object, string>(), v1beta1: new WeakMap<object, string>() };

/** An object as PartialObjectMetadata JSON; the same bytes for every request until the object changes, so kept per object. */
export function partialObjectJson(o: KubeObject, version: MetaVersion = 'v1'): string {
  let s = cached[version].get(o);
  if (s === undefined) {
    s = JSON.stringify(partialObject(o, version));
    cached[version].set(o, s);
  }
  return s;
}

export function partialObject(o: KubeObject, version: MetaVersion = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: o.metadata };
}

/** A list's items as PartialObjectMetadataList JSON text. */
export function partialListJson(items: readonly KubeObject[], metadata: { resourceVersion?: string; continue?: string }, version: MetaVersion): string {
  return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(metadata)},"items":[${items.map((o) => partialObjectJson(o, version)).join(',')}]}\n`;
}

/** The Go type upstream names in its 406 (the internal type: `*core.ConfigMap`, `*apps.DeploymentList`). */
function goType(apiVersion: string, kind: string): string {
  return `*${apiVersion.includes('/') ? apiVersion.split('/')[0].split('.')[0] : 'core'}.${kind}`;
}

/** An object asked for as PartialObjectMetadataList. */
export function notAList(o: KubeObject): ApiError {
  return new ApiError(statusFailure(406, 'NotAcceptable', `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(o.apiVersion ?? '', o.kind ?? '')})`));
}

/** A list asked for as PartialObjectMetadata. */
export function notAnObject(def: KindDefinition): ApiError {
  return new ApiError(statusFailure(406, 'NotAcceptable', `you requested PartialObjectMetadata, but the requested object is a list (${goType(apiVersionOf(def), def.listKind)})`));
}
