// ObjectMeta validation as the API server applies it to every object (k8s.io/apimachinery/pkg/api/validation,
// objectmeta.go, and the label checks of pkg/apis/meta/v1/validation, Kubernetes 1.33). Errors come out in
// upstream's order; map entries (labels, annotations) are visited in sorted key order where Go's order is random.
import { FieldError, FieldPath, GoLiteral, fieldErrors, formatBadValue } from '../field';
import type { ObjectMeta, OwnerReference } from '../meta';
import { GO_NIL_POINTER, goOwnerReference, goOwnerReferences, goTimeString, sameTime } from './go-format';
import {
  NameValidator,
  compareUtf8,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  utf8Length,
  validateNamespaceName,
} from './validation';

export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Keys plus values of all annotations, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

export interface ObjectMetaValidationOptions {
  /** The kind lives in a namespace (namespace required) rather than at cluster scope (namespace forbidden). */
  namespaced: boolean;
  /** How this kind's names are checked; upstream kinds mostly use DNS subdomains, the default. */
  nameValidator?: NameValidator;
  /** Where metadata sits in the object; `metadata` unless given. */
  path?: FieldPath;
}

const METADATA = FieldPath.root('metadata');

function sortedKeys(map: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(map ?? {}).sort(compareUtf8);
}

export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

/** Label keys are qualified names, values label values; every error is reported at the labels field itself. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of sortedKeys(labels)) {
    const value = labels![key];
    errs.push(...validateLabelName(key, path));
    errs.push(...isValidLabelValue(value).map((msg) => fieldErrors.invalid(path, value, msg)));
  }
  return errs;
}

/** Annotation keys are qualified names in any letter case; all of them together must fit in 256 KiB. */
export function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of sortedKeys(annotations)) {
    errs.push(...isQualifiedName(key.toLowerCase()).map((msg) => fieldErrors.invalid(path, key, msg)));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

function annotationsSize(annotations: Readonly<Record<string, string>> | undefined): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += utf8Length(k) + utf8Length(v);
  return total;
}

/**
 * Kubernetes 1.32+ words "too long" as `may not be more than N bytes`; `fieldErrors.tooLong` keeps the older
 * `must have at most N bytes`, so this module builds its own.
 */
function tooLong(path: FieldPath, max: number): FieldError {
  return new FieldError('Too long', String(path), '', `may not be more than ${max} bytes`);
}

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** schema.FromAPIVersionAndKind: an apiVersion with more than one '/' yields no group or version at all. */
function groupVersionKind(apiVersion: string, kind: string): GroupVersionKind {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0], version: parts[1], kind };
  return { group: '', version: '', kind };
}

/** Events are never owners: the garbage collector would delete objects when their events expire. */
function isBannedOwner(gvk: GroupVersionKind): boolean {
  return gvk.group === '' && gvk.version === 'v1' && gvk.kind === 'Event';
}

// Upstream reports each reference's fields under the list's path, without an index; we keep that.
function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const gvk = groupVersionKind(apiVersion, ref.kind ?? '');
  if (gvk.version === '') errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (gvk.kind === '') errs.push(fieldErrors.invalid(path.child('kind'), gvk.kind, 'kind must not be empty'));
  if (!ref.name) errs.push(fieldErrors.invalid(path.child('name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(fieldErrors.invalid(path.child('uid'), ref.uid ?? '', 'uid must not be empty'));
  if (isBannedOwner(gvk)) {
    const gvkText = `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
    errs.push(fieldErrors.invalid(path, new GoLiteral(goOwnerReference(ref)), `${gvkText} is disallowed from being an owner`));
  }
  return errs;
}

/** Each reference needs apiVersion, kind, name and uid, and at most one may be the controller. */
export function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller !== true) continue;
    const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
    if (firstController === '') {
      firstController = current;
      continue;
    }
    const detail = `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`;
    errs.push(fieldErrors.invalid(path, new GoLiteral(goOwnerReferences(refs!)), detail));
  }
  return errs;
}

export function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

/** Finalizers are qualified names; orphaning and foreground deletion contradict each other. */
export function validateFinalizers(finalizers: readonly string[] | undefined, path: FieldPath): FieldError[] {
  const list = finalizers ?? [];
  const errs = list.flatMap((f) => validateFinalizerName(f, path));
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    const detail = `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`;
    errs.push(fieldErrors.invalid(path, [...list], detail));
  }
  return errs;
}

function validateNames(meta: ObjectMeta, nameFn: NameValidator, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    errs.push(...nameFn(generateName, true).map((msg) => fieldErrors.invalid(path.child('generateName'), generateName, msg)));
  }
  // Name generation has run before validation, so an empty name means the client gave neither.
  const name = meta.name ?? '';
  if (name === '') errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  else errs.push(...nameFn(name, false).map((msg) => fieldErrors.invalid(path.child('name'), name, msg)));
  return errs;
}

function validateNamespace(namespace: string, namespaced: boolean, path: FieldPath): FieldError[] {
  const nsPath = path.child('namespace');
  if (!namespaced) return namespace === '' ? [] : [fieldErrors.forbidden(nsPath, 'not allowed on this type')];
  if (namespace === '') return [fieldErrors.required(nsPath)];
  return validateNamespaceName(namespace, false).map((msg) => fieldErrors.invalid(nsPath, namespace, msg));
}

/** The metadata checks every create goes through (upstream's ValidateObjectMeta), managedFields aside. */
export function validateObjectMeta(meta: ObjectMeta, options: ObjectMetaValidationOptions): FieldError[] {
  const path = options.path ?? METADATA;
  const generation = meta.generation ?? 0;
  return [
    ...validateNames(meta, options.nameValidator ?? nameIsDNSSubdomain, path),
    ...validateNamespace(meta.namespace ?? '', options.namespaced, path),
    ...(generation < 0 ? [fieldErrors.invalid(path.child('generation'), generation, IS_NEGATIVE_ERROR_MSG)] : []),
    ...validateLabels(meta.labels, path.child('labels')),
    ...validateAnnotations(meta.annotations, path.child('annotations')),
    ...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')),
    ...validateFinalizers(meta.finalizers, path.child('finalizers')),
  ];
}

/** Once deletion has begun, finalizers may only be removed: a new one could hold the object forever. */
function validateNoNewFinalizers(next: readonly string[], prev: readonly string[], path: FieldPath): FieldError[] {
  const old = new Set(prev);
  const extra = [...new Set(next)].filter((f) => !old.has(f)).sort(compareUtf8);
  if (extra.length === 0) return [];
  const detail = `no new finalizers can be added if the object is being deleted, found new finalizers ${formatBadValue(extra)}`;
  return [fieldErrors.forbidden(path, detail)];
}

function immutable(changed: boolean, newValue: unknown, path: FieldPath): FieldError[] {
  return changed ? [fieldErrors.invalid(path, newValue, FIELD_IMMUTABLE_ERROR_MSG)] : [];
}

const isUnset = (v: unknown): v is null | undefined => v === null || v === undefined;

/** A *metav1.Time: nil differs from any time, two times compare as instants. */
function timePointerChanged(next: string | null | undefined, prev: string | null | undefined): boolean {
  if (isUnset(next) || isUnset(prev)) return isUnset(next) !== isUnset(prev);
  return !sameTime(next, prev);
}

function validateImmutableFields(next: ObjectMeta, prev: ObjectMeta, path: FieldPath): FieldError[] {
  const grace = next.deletionGracePeriodSeconds;
  return [
    ...immutable((next.name ?? '') !== (prev.name ?? ''), next.name ?? '', path.child('name')),
    ...immutable((next.namespace ?? '') !== (prev.namespace ?? ''), next.namespace ?? '', path.child('namespace')),
    ...immutable((next.uid ?? '') !== (prev.uid ?? ''), next.uid ?? '', path.child('uid')),
    ...immutable(
      !sameTime(next.creationTimestamp, prev.creationTimestamp),
      goTimeString(next.creationTimestamp),
      path.child('creationTimestamp'),
    ),
    ...immutable(
      timePointerChanged(next.deletionTimestamp, prev.deletionTimestamp),
      isUnset(next.deletionTimestamp) ? GO_NIL_POINTER : goTimeString(next.deletionTimestamp),
      path.child('deletionTimestamp'),
    ),
    ...immutable(
      (grace ?? null) !== (prev.deletionGracePeriodSeconds ?? null),
      isUnset(grace) ? GO_NIL_POINTER : grace,
      path.child('deletionGracePeriodSeconds'),
    ),
  ];
}

/**
 * The metadata checks every update goes through (upstream's ValidateObjectMetaUpdate), managedFields aside:
 * identity fields are immutable, resourceVersion is required, generation never goes down, and the new labels,
 * annotations and owner references must be valid.
 */
export function validateObjectMetaUpdate(next: ObjectMeta, prev: ObjectMeta, path: FieldPath = METADATA): FieldError[] {
  const errs: FieldError[] = [];
  if (!isUnset(prev.deletionTimestamp)) {
    errs.push(...validateNoNewFinalizers(next.finalizers ?? [], prev.finalizers ?? [], path.child('finalizers')));
  }
  const rv = next.resourceVersion ?? '';
  if (rv === '') errs.push(fieldErrors.invalid(path.child('resourceVersion'), rv, 'must be specified for an update'));
  const generation = next.generation ?? 0;
  if (generation < (prev.generation ?? 0)) {
    errs.push(fieldErrors.invalid(path.child('generation'), generation, 'must not be decremented'));
  }
  errs.push(...validateImmutableFields(next, prev, path));
  errs.push(...validateLabels(next.labels, path.child('labels')));
  errs.push(...validateAnnotations(next.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(next.ownerReferences, path.child('ownerReferences')));
  return errs;
}
