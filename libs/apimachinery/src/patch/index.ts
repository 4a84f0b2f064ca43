// Kubernetes PATCH algorithms, applied to plain JSON values as kube-apiserver 1.33 applies them.
// All functions are pure: they return new values and never modify their arguments. Failures throw
// PatchError with the HTTP code kube-apiserver answers with (see errors.ts).
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS, DEFAULT_MAX_COPY_BYTES } from './json-patch';
export type { JsonPatchOptions } from './json-patch';
export { applyMergePatch } from './merge-patch';
export type { MergePatchOptions } from './merge-patch';
export { applyStrategicMergePatch } from './strategic-merge-patch';
export type { ListPatchStrategy, StrategyLookup } from './strategic-merge-patch';
export { PatchError } from './errors';
export type { PatchErrorCode, PatchErrorReason } from './errors';
export type { FieldValidation } from './field-validation';
