// RFC 7386 JSON merge patch as kube-apiserver 1.33 applies it: jsonpatch.MergePatch from
// gopkg.in/evanphx/json-patch.v4 v4.12.0, after patch.go's strict decode under fieldValidation Warn/Strict.
//
// That implementation differs from the RFC's pseudo-code in where it strips nulls from a value it copies in
// whole (a member the target lacks, or a target member that is not an object):
// - it strips them recursively, also from objects nested in arrays ({"a": [{"b": null}]} adds a: [{}]);
// - a patch array replacing an existing *object* member is taken as is, nulls and all.
// Everything else is the RFC: null deletes, objects merge recursively, any other value replaces.
import { patchErrors } from './errors';
import type { FieldValidation } from './field-validation';
import { jsonKindWord } from './go-values';
import { cloneJson, deleteKey, getKey, isJsonObject, setKey, type JsonObject } from './json-value';

export interface MergePatchOptions {
  /** Under Warn (the default) and Strict, a patch that is neither an object nor null is a 400 up front. */
  fieldValidation?: FieldValidation;
}

export function applyMergePatch(doc: unknown, patch: unknown, options: MergePatchOptions = {}): unknown {
  const target = cloneJson(doc);
  const ownPatch = cloneJson(patch);
  if ((options.fieldValidation ?? 'Warn') !== 'Ignore' && ownPatch !== null && !isJsonObject(ownPatch)) {
    throw patchErrors.badRequest(`error decoding patch: json: cannot unmarshal ${jsonKindWord(ownPatch)} into Go value of type map[string]interface {}`);
  }
  // ErrBadJSONDoc is not one patch.go maps to a Status, so it surfaces as a plain 500.
  if (target === null || target === undefined) throw patchErrors.plain('Invalid JSON Document');
  if (ownPatch === null || ownPatch === undefined) throw patchErrors.badRequest('Invalid JSON Patch');
  if (isJsonObject(target) && isJsonObject(ownPatch)) {
    mergeObjects(target, ownPatch);
    return target;
  }
  // A document or patch that is not an object: the patch (object or array, nulls stripped) is the result.
  if (isJsonObject(ownPatch) || Array.isArray(ownPatch)) {
    pruneNulls(ownPatch);
    return ownPatch;
  }
  throw patchErrors.badRequest('Invalid JSON Patch');
}

function mergeObjects(target: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      deleteKey(target, key);
      continue;
    }
    const current = getKey(target, key);
    if (current === undefined || current === null) {
      pruneNulls(value);
      setKey(target, key, value);
    } else {
      setKey(target, key, mergeValue(current, value));
    }
  }
}

function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isJsonObject(current)) {
    pruneNulls(patch);
    return patch;
  }
  if (!isJsonObject(patch)) return patch;
  mergeObjects(current, patch);
  return current;
}

/** Drops null members of objects, at any depth (through arrays too); null array elements stay. */
function pruneNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null) pruneNulls(item);
  } else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) deleteKey(value, key);
      else pruneNulls(item);
    }
  }
}
