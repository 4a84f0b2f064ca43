import { applyJsonPatch, PatchError } from './index';
import type { PatchErrorCode } from './index';

type Doc = unknown;
type Ops = unknown;

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

describe('RFC 6902 appendix A examples', () => {
  test.each<[string, Doc, Ops, Doc]>([
    ['A.1 adding an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 adding an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 removing an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 removing an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replacing a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 moving a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    ['A.7 moving an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    [
      'A.8 testing a value: success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    ['A.10 adding a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.11 ignoring unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 adding an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  test.each<[string, Doc, Ops, string]>([
    ['A.9 testing a value: error', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 'testing value /baz failed: test failed'],
    ['A.12 adding to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], 'add operation does not apply: doc is missing path: "/baz/bat": missing value'],
    ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], 'testing value /~01 failed: test failed'],
  ])('%s', (_name, doc, patch, message) => {
    const err = thrown(() => applyJsonPatch(doc, patch));
    expect([err.code, err.message]).toEqual([422, message]);
  });
});

describe('behaviour of evanphx/json-patch v4.12.0 as kube-apiserver uses it', () => {
  test.each<[string, Doc, Ops, Doc]>([
    ['replace of an absent object member adds it', { a: {} }, [{ op: 'replace', path: '/a/b', value: 1 }], { a: { b: 1 } }],
    ['copy from an absent object member copies null', { a: {} }, [{ op: 'copy', from: '/a/x', path: '/a/b' }], { a: { b: null } }],
    ['test of null passes on an absent member', { a: 1 }, [{ op: 'test', path: '/b', value: null }], { a: 1 }],
    ['test compares objects structurally, ignoring key order', { a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }], { a: { x: 1, y: [1, { z: 2 }] } }],
    ['add without value adds null', { a: 1 }, [{ op: 'add', path: '/b' }], { a: 1, b: null }],
    ['add replaces an existing member', { a: 1 }, [{ op: 'add', path: '/a', value: 2 }], { a: 2 }],
    ['add at the array length appends', { a: [1, 2] }, [{ op: 'add', path: '/a/2', value: 3 }], { a: [1, 2, 3] }],
    ['a negative index counts from the end (add -1 appends)', { a: [1, 2] }, [{ op: 'add', path: '/a/-1', value: 3 }], { a: [1, 2, 3] }],
    ['remove -1 removes the last element', { a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }], { a: [1, 2] }],
    ['indices parse as Go Atoi: +1 and 01 are 1', { a: [1, 2, 3] }, [{ op: 'replace', path: '/a/+1', value: 'x' }, { op: 'remove', path: '/a/01' }], { a: [1, 3] }],
    ['~1 and ~0 unescape to / and ~', { a: 1 }, [{ op: 'add', path: '/b~1c', value: 2 }, { op: 'add', path: '/d~0e', value: 3 }], { a: 1, 'b/c': 2, 'd~e': 3 }],
    ['the first pointer segment is not read ("x/a" is "/a")', { a: 1 }, [{ op: 'replace', path: 'x/a', value: 2 }], { a: 2 }],
    ['replace at "" with an object replaces the document', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
    ['replace at "" with a scalar is silently ignored', { a: 1 }, [{ op: 'replace', path: '', value: 5 }], { a: 1 }],
    ['move inside an array', { a: [1, 2, 3] }, [{ op: 'move', from: '/a/0', path: '/a/-' }], { a: [2, 3, 1] }],
    [
      'copy takes a deep copy',
      { a: { x: 1 } },
      [
        { op: 'copy', from: '/a', path: '/b' },
        { op: 'add', path: '/b/y', value: 2 },
      ],
      { a: { x: 1 }, b: { x: 1, y: 2 } },
    ],
    ['a null patch changes nothing', { a: 1 }, null, { a: 1 }],
    ['an array document', [1, 2], [{ op: 'add', path: '/0', value: 0 }], [0, 1, 2]],
  ])('%s', (_name, doc, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });
});

describe('failures carry kube-apiserver codes and evanphx messages', () => {
  test.each<[string, Doc, Ops, PatchErrorCode, string]>([
    ['remove of a missing member', { a: 1 }, [{ op: 'remove', path: '/x' }], 422, "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value"],
    ['remove under a missing parent', { a: 1 }, [{ op: 'remove', path: '/x/y' }], 422, 'remove operation does not apply: doc is missing path: "/x/y": missing value'],
    ['add beyond the array length', { a: [1] }, [{ op: 'add', path: '/a/5', value: 1 }], 422, "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index referenced"],
    ['remove beyond the array length', { a: [1] }, [{ op: 'remove', path: '/a/1' }], 422, "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced"],
    ['replace beyond the array length', { a: [1] }, [{ op: 'replace', path: '/a/3', value: 1 }], 422, 'replace operation does not apply: doc is missing key: /a/3: missing value'],
    ['replace under a missing parent', { a: 1 }, [{ op: 'replace', path: '/x/y', value: 1 }], 422, 'replace operation does not apply: doc is missing path: /x/y: missing value'],
    ['an index that is not a number', { a: [1] }, [{ op: 'add', path: '/a/x', value: 1 }], 422, `error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    ['add at the whole document', { a: 1 }, [{ op: 'add', path: '', value: {} }], 422, 'add operation does not apply: doc is missing path: "": missing value'],
    ['move from a missing member', { a: 1 }, [{ op: 'move', from: '/x', path: '/y' }], 422, "error in move for path: 'x': Unable to remove nonexistent key: x: missing value"],
    ['move into its own child', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/c' }], 422, 'move operation does not apply: doc is missing destination path: /a/c: missing value'],
    ['copy to a missing parent', { a: 1 }, [{ op: 'copy', from: '/a', path: '/x/y' }], 422, 'copy operation does not apply: doc is missing destination path: /x/y: missing value'],
    ['test of an array element out of range', { a: [1] }, [{ op: 'test', path: '/a/4', value: 1 }], 422, "error in test for path: '/a/4': Unable to access invalid index: 4: invalid index referenced"],
    ['a later failure discards earlier operations', { a: 1 }, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 }], 422, 'testing value /a failed: test failed'],
    ['an unknown op', { a: 1 }, [{ op: 'frob', path: '/a' }], 422, 'Unexpected kind: frob'],
    ['an op without "op"', { a: 1 }, [{ path: '/a' }], 422, 'Unexpected kind: unknown'],
    ['a patch that is an object', { a: 1 }, { op: 'add' }, 400, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['an operation that is a string', { a: 1 }, ['add'], 400, 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp'],
    ['a path that is not a string', { a: 1 }, [{ op: 'add', path: 5, value: 1 }], 400, 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string'],
  ])('%s', (_name, doc, patch, code, message) => {
    const err = thrown(() => applyJsonPatch(doc, patch));
    expect([err.code, err.message]).toEqual([code, message]);
  });

  test.each<[string, Ops, PatchErrorCode, string]>([
    ['a patch that is an object', { op: 'add' }, 400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['a path that is not a string reaches the applier', [{ op: 'add', path: 5, value: 1 }], 422, 'add operation failed to decode path: missing value'],
    ['a replace without path', [{ op: 'replace', value: 1 }], 422, 'replace operation failed to decode path: operation missing path field: missing value'],
    ['a move without from', [{ op: 'move', path: '/b' }], 422, 'move operation failed to decode from: operation, missing from field: missing value'],
  ])('with fieldValidation=Ignore: %s', (_name, patch, code, message) => {
    const err = thrown(() => applyJsonPatch({ a: 1 }, patch, { fieldValidation: 'Ignore' }));
    expect([err.code, err.message]).toEqual([code, message]);
  });

  test('more than 10000 operations is 413', () => {
    const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    const err = thrown(() => applyJsonPatch({ a: 1 }, patch));
    expect([err.code, err.reason, err.statusMessage]).toEqual([413, 'RequestEntityTooLarge', 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001']);
  });

  test('10000 operations are allowed', () => {
    const patch = Array.from({ length: 10000 }, () => ({ op: 'test', path: '/a', value: 1 }));
    expect(applyJsonPatch({ a: 1 }, patch)).toEqual({ a: 1 });
  });

  test('copies are charged against the copy budget (compact JSON bytes, Go escaping)', () => {
    const patch = [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'copy', from: '/a', path: '/c' },
    ];
    // {"x":"<"} marshals as {"x":"\u003c"}: 14 bytes per copy.
    expect(applyJsonPatch({ a: { x: '<' } }, patch, { maxCopyBytes: 28 })).toEqual({ a: { x: '<' }, b: { x: '<' }, c: { x: '<' } });
    const err = thrown(() => applyJsonPatch({ a: { x: '<' } }, patch, { maxCopyBytes: 27 }));
    expect([err.code, err.message]).toEqual([422, 'Unable to complete the copy, the accumulated size increase of copy is 28, exceeding the limit 27']);
  });

  test('a 422 answers with the generic Invalid status message, as NewGenericServerResponse does', () => {
    const err = thrown(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '/x' }]));
    expect([err.reason, err.statusMessage]).toEqual(['Invalid', 'the server rejected our request due to an error in our request']);
  });

  test('a test without value against an absent member panics upstream: 500', () => {
    const err = thrown(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/b' }]));
    expect([err.code, err.panicked, err.statusMessage]).toEqual([500, true, 'This request caused apiserver to panic. Look in the logs for details.']);
  });
});

describe('purity', () => {
  test('neither the document nor the patch is modified, and the result shares nothing with them', () => {
    const doc = deepFreeze({ a: { b: [1, 2] }, c: 'x' });
    const patch = deepFreeze([
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'add', path: '/v', value: { deep: [1] } },
      { op: 'remove', path: '/c' },
      { op: 'move', from: '/a/b/0', path: '/m' },
    ]);
    const result = applyJsonPatch(doc, patch) as { a: { b: number[] }; v: { deep: number[] } };
    expect(result).toEqual({ a: { b: [2, 3] }, v: { deep: [1] }, m: 1 });
    result.v.deep.push(2);
    expect(patch[1]).toEqual({ op: 'add', path: '/v', value: { deep: [1] } });
    expect(doc).toEqual({ a: { b: [1, 2] }, c: 'x' });
  });

  test('a "__proto__" member is data, not a prototype', () => {
    const result = applyJsonPatch({}, JSON.parse('[{"op":"add","path":"/__proto__","value":{"polluted":true}}]')) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});
