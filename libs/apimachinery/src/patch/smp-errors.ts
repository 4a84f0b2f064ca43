// The errors of k8s.io/apimachinery pkg/util/mergepatch and strategicpatch (v0.33), each with the code
// interpretStrategicMergePatchError (kube-apiserver patch.go) gives it: the format errors are 400, lists of
// lists 422, and everything else is a plain Go error, hence 500.
import { PatchError, patchErrors } from './errors';
import { goFormat, goFormatS, goTypeName } from './go-values';

export const badJsonDoc = (): PatchError => patchErrors.badRequest('invalid JSON document');
export const badPrimitiveListFormat = (): PatchError => patchErrors.badRequest('invalid patch format of primitive list');
export const badRetainKeysFormat = (): PatchError => patchErrors.badRequest('invalid patch format of retainKeys');
export const badSetElementOrderFormat = (): PatchError => patchErrors.badRequest('invalid patch format of setElementOrder list');
export const noListOfLists = (): PatchError => patchErrors.unprocessable('lists of lists are not supported');

const EXPECTED = { map: 'map[string]interface {}', slice: '[]interface {}' } as const;

/** mergepatch.ErrBadArgType: a value that should have been a map or a list. */
export function badArgType(expected: keyof typeof EXPECTED, actual: unknown): PatchError {
  return patchErrors.plain(`expected a ${EXPECTED[expected]}, but received a ${goTypeName(actual)}`);
}

export function noMergeKey(item: unknown, mergeKey: string): PatchError {
  return patchErrors.plain(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
}

export function badPatchType(directive: unknown, item: unknown): PatchError {
  return patchErrors.plain(`unknown patch type: ${goFormatS(directive)} in map: ${goFormat(item)}`);
}

export function notAMap(index: number): PatchError {
  return patchErrors.plain(`value for key ${index} is not a map`);
}

export const plain = patchErrors.plain;
