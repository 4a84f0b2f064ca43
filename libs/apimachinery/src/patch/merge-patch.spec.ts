import { applyMergePatch, PatchError } from './index';
import type { PatchErrorCode } from './index';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function thrown(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a PatchError');
}

describe('RFC 7386 appendix A examples', () => {
  test.each<[number, unknown, unknown, unknown]>([
    [1, { a: 'b' }, { a: 'c' }, { a: 'c' }],
    [2, { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [3, { a: 'b' }, { a: null }, {}],
    [4, { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [5, { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [6, { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [7, { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [8, { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [13, { e: null }, { a: 1 }, { e: null, a: 1 }],
    [14, [1, 2], { a: 'b', c: null }, { a: 'b' }],
    [15, {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('example %i', (_n, doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  // Examples 9 and 10 (an array patch) hold only when kube-apiserver skips its strict decode.
  test.each<[number, unknown, unknown, unknown]>([
    [9, ['a', 'b'], ['c', 'd'], ['c', 'd']],
    [10, { a: 'b' }, ['c'], ['c']],
  ])('example %i with fieldValidation=Ignore', (_n, doc, patch, expected) => {
    expect(applyMergePatch(doc, patch, { fieldValidation: 'Ignore' })).toEqual(expected);
  });

  // Examples 11 and 12 (a null or scalar patch) are refused by kube-apiserver rather than replacing the object.
  test.each<[string, unknown, 'Warn' | 'Ignore', PatchErrorCode, string]>([
    ['example 9 (array patch)', ['c', 'd'], 'Warn', 400, 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['example 11 (null patch)', null, 'Warn', 400, 'Invalid JSON Patch'],
    ['example 12 (string patch)', 'bar', 'Warn', 400, 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['example 12 (string patch), fieldValidation=Ignore', 'bar', 'Ignore', 400, 'Invalid JSON Patch'],
  ])('%s is a 400', (_name, patch, fieldValidation, code, message) => {
    const err = thrown(() => applyMergePatch({ a: 'foo' }, patch, { fieldValidation }));
    expect([err.code, err.reason, err.message]).toEqual([code, 'BadRequest', message]);
  });
});

describe('evanphx/json-patch v4.12.0 specifics', () => {
  test.each<[string, unknown, unknown, unknown]>([
    ['nulls are stripped from objects inside a new array value', { a: 1 }, { b: [{ x: null, y: 1 }, null] }, { a: 1, b: [{ y: 1 }, null] }],
    ['an array replacing an existing object keeps its nulls', { a: { x: 1 } }, { a: [{ y: null }] }, { a: [{ y: null }] }],
    ['an object replacing a scalar is stripped of nulls', { a: 1 }, { a: { b: null, c: { d: null } } }, { a: { c: {} } }],
    ['deep merge keeps untouched siblings', { m: { a: 1, b: { c: 2, d: 3 } } }, { m: { b: { c: 9 } } }, { m: { a: 1, b: { c: 9, d: 3 } } }],
    ['a null member of the document is replaced whole', { a: null }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    ['deleting an absent member is not an error', { a: 1 }, { z: null }, { a: 1 }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  test('a null document is a plain error: 500', () => {
    const err = thrown(() => applyMergePatch(null, { a: 1 }));
    expect([err.code, err.reason, err.message]).toEqual([500, '', 'Invalid JSON Document']);
  });
});

describe('purity', () => {
  test('neither input is modified, and the result shares nothing with the patch', () => {
    const doc = deepFreeze({ a: { b: 1, c: 2 }, d: [1] });
    const patch = deepFreeze({ a: { b: null, n: { x: 1 } }, d: [2] });
    const result = applyMergePatch(doc, patch) as { a: { c: number; n: { x: number } }; d: number[] };
    expect(result).toEqual({ a: { c: 2, n: { x: 1 } }, d: [2] });
    result.a.n.x = 5;
    expect(patch).toEqual({ a: { b: null, n: { x: 1 } }, d: [2] });
  });
});
