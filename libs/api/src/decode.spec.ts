import { DecodeError, configMap, decode, duplicateFields, parseFieldValidation, roleBinding, secret, type FieldValidation } from './index';

const cm = (extra: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"${extra}}`;

describe('decode', () => {
  const cases: Array<[string, string, FieldValidation, { error?: string; warnings?: string[]; object?: unknown }]> = [
    ['a valid object', cm('},"data":{"a":"1"}'), 'Strict', { warnings: [], object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } }],
    ['an unknown field, Strict', cm('},"spec":{}'), 'Strict', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"' }],
    ['unknown fields at depth, Strict, every one', cm(',"nme":"x","labels":{"a":"b"}},"dta":{}'), 'Strict', {
      error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.nme", unknown field "dta"',
    }],
    ['an unknown field, Warn: dropped with a warning', cm('},"spec":{"x":1}'), 'Warn', { warnings: ['unknown field "spec"'], object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    ['an unknown field, Ignore: dropped silently', cm('},"spec":1'), 'Ignore', { warnings: [], object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    ['a duplicate field, Strict', '{"metadata":{"name":"a","name":"b"}}', 'Strict', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"' }],
    ['a duplicate field, Warn', '{"data":{"k":"1"},"data":{"k":"2"}}', 'Warn', { warnings: ['duplicate field "data"'], object: { data: { k: '2' } } }],
    ['a wrong type, in any mode', cm('},"data":{"a":1}'), 'Ignore', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data.a of type string' }],
    ['a string for a bool', cm('},"immutable":"yes"'), 'Warn', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool' }],
    ['null for a map leaves it unset', cm('},"data":null'), 'Strict', { warnings: [], object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: null } }],
    ['not JSON', '{"metadata":', 'Strict', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: Unexpected end of JSON input' }],
    ['not an object', '[1]', 'Strict', { error: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go value of type ConfigMap' }],
  ];
  test.each(cases)('%s', (_name, body, mode, want) => {
    if (want.error) {
      expect(() => decode(configMap, body, mode)).toThrow(DecodeError);
      expect(() => decode(configMap, body, mode)).toThrow(want.error);
      return;
    }
    const got = decode(configMap, body, mode);
    expect(got.warnings).toEqual(want.warnings);
    expect(got.object).toEqual(want.object);
  });

  test('unknown fields inside list items carry the index', () => {
    expect(() => decode(roleBinding, '{"roleRef":{"apiGroup":"x","kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"a"},{"kind":"User","name":"b","nmspace":"x"}]}', 'Strict')).toThrow(
      'strict decoding error: unknown field "subjects[1].nmspace"',
    );
  });

  test('field defaults are applied: a Secret without a type is Opaque', () => {
    expect(decode(secret, '{"metadata":{"name":"s"}}').object.type).toBe('Opaque');
    expect(decode(secret, '{"metadata":{"name":"s"},"type":"kubernetes.io/tls"}').object.type).toBe('kubernetes.io/tls');
  });
});

test.each([
  ['', 'Warn'],
  [null, 'Warn'],
  ['Strict', 'Strict'],
  ['Ignore', 'Ignore'],
])('fieldValidation %p means %s', (value, mode) => expect(parseFieldValidation(value)).toBe(mode));

test('an unknown fieldValidation value is refused', () => {
  expect(() => parseFieldValidation('Loose')).toThrow('fieldValidation parameter unsupported: Loose');
});

test.each([
  ['{"a":1,"b":{"c":[{"d":1,"d":2}]},"a":3}', ['b.c[0].d', 'a']],
  ['{"a\\"b":1,"a\\u0022b":2}', ['a"b']],
  ['{"x":[],"y":{},"z":"}{,"}', []],
])('duplicate fields of %s', (text, want) => expect(duplicateFields(text)).toEqual(want));

describe('nesting depth', () => {
  const nested = (n: number) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${'['.repeat(n)}1${']'.repeat(n)}}`;

  test('past 1,000 levels a body is refused as upstream refuses it, before anything walks it', () => {
    expect(() => decode(configMap, nested(1_000))).toThrow('ConfigMap in version "v1" cannot be handled as a ConfigMap: exceeded max depth');
    expect(() => decode(configMap, nested(1_000_000))).toThrow(/exceeded max depth/);
  });

  test('1,000 levels (the object itself is the first) are decoded (here: the wrong type for data) and a duplicate deep inside is still found', () => {
    expect(() => decode(configMap, nested(999))).toThrow(/cannot unmarshal array into Go struct field/);
    const deep = `{"metadata":{"name":"x","name":"y"},"binaryData":{"a":"${'x'.repeat(4)}"},"x":${'['.repeat(900)}{"k":1,"k":2}${']'.repeat(900)}}`;
    expect(decode(configMap, deep, 'Warn').warnings).toEqual(expect.arrayContaining(['duplicate field "metadata.name"', `duplicate field "x${'[0]'.repeat(900)}.k"`]));
  });
});
