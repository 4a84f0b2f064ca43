import { labelSelectorFromMeta, parseLabelSelector, Requirement, SelectorError } from './label-selector';
import type { MetaLabelSelector } from './label-selector';

// Upstream's messages, written out in full so a change in wording fails here.
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const req = (key: string, operator: Requirement['operator'], values: string[] = []): Requirement => ({ key, operator, values });

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorError);
    return (e as Error).message;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

describe('parseLabelSelector: requirements', () => {
  test.each<[string, Requirement[]]>([
    ['', []],
    ['   ', []],
    ['\rx', [req('x', 'exists')]],
    ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
    [
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])],
    ],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock'])]],
    ['foo  in\t (abc)', [req('foo', 'in', ['abc'])]],
    ['x notin\n (abc)', [req('x', 'notin', ['abc'])]],
    ['x  notin\t\t\t(abc,def)', [req('x', 'notin', ['abc', 'def'])]],
    ['x in (abc,)', [req('x', 'in', ['', 'abc'])]],
    ['x in ()', [req('x', 'in', [''])]],
    ['x notin ( )', [req('x', 'notin', [''])]],
    ['x notin (, a)', [req('x', 'notin', ['', 'a'])]],
    ['x in (a,,,b)', [req('x', 'in', ['', 'a', 'b'])]],
    // Values come out sorted and without duplicates.
    ['x in (b,a,b)', [req('x', 'in', ['a', 'b'])]],
    [
      'x notin (abc,,def),bar,z in (),w',
      [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', ['', 'abc', 'def']), req('z', 'in', [''])],
    ],
    ['x,y in (a)', [req('x', 'exists'), req('y', 'in', ['a'])]],
    ['x=a', [req('x', '=', ['a'])]],
    ['x==a', [req('x', '==', ['a'])]],
    ['x>1', [req('x', 'gt', ['1'])]],
    ['x<7', [req('x', 'lt', ['7'])]],
    ['x=', [req('x', '=', [''])]],
    ['x!= ,y', [req('x', '!=', ['']), req('y', 'exists')]],
    ['!x', [req('x', '!')]],
    ['! x', [req('x', '!')]],
    ['x=a,y!=b,z in (h,i,j)', [req('x', '=', ['a']), req('y', '!=', ['b']), req('z', 'in', ['h', 'i', 'j'])]],
    ['a ', [req('a', 'exists')]],
    // `in` and `notin` are words wherever an operator cannot stand.
    ['a in (x,y,notin, z,in)', [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])]],
    ['in=notin', [req('in', '=', ['notin'])]],
    ['notin', [req('notin', 'exists')]],
    // Sorted by key; requirements on the same key keep their order.
    ['b=1,a=2,a!=3', [req('a', '=', ['2']), req('a', '!=', ['3']), req('b', '=', ['1'])]],
    ['x>9223372036854775807', [req('x', 'gt', ['9223372036854775807'])]],
  ])('%j', (text, requirements) => {
    const sel = parseLabelSelector(text);
    expect(sel.requirements).toEqual(requirements);
    expect(sel.empty).toBe(requirements.length === 0);
  });
});

describe('parseLabelSelector: errors carry upstream text', () => {
  test.each<[string, string]>([
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE_MSG}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'x>9223372036854775808',
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    // A negative number is an integer but not a label value.
    ['x>-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${LABEL_VALUE_MSG}`],
    // Several problems with one requirement are reported together, in brackets.
    [
      'x>1a-',
      `unable to parse requirement: [values[0]: Invalid value: "1a-": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "1a-": ${LABEL_VALUE_MSG}]`,
    ],
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    // Upstream's message has no colon here.
    ['x in', "unable to parse requirement: found '' expected: '('"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a)(b)', "found '(', expected: ',' or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    // The longest operator wins: `===` is `==` then `=`, `>=` is `>` then `=`.
    ['x===a', "unable to parse requirement: found '=', expected: identifier"],
    ['x>=1', "unable to parse requirement: found '=', expected: identifier"],
    // Keys are checked before the requirement is built, under Go's nil path.
    ['a/b/c', `unable to parse requirement: <nil>: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`],
    ['Foo_/x=y', `unable to parse requirement: <nil>: Invalid value: "Foo_/x": prefix part ${SUBDOMAIN_MSG}`],
    ['/-a', `unable to parse requirement: <nil>: Invalid value: "/-a": prefix part must be non-empty; ${NAME_PART_MSG}`],
    ['a'.repeat(64), `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 characters`],
    // Like upstream's byte reader, a NUL ends a word.
    ['x\0y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
  ])('%j', (text, message) => {
    expect(parseError(text)).toBe(message);
  });
});

describe('parseLabelSelector: toString is canonical', () => {
  test.each<[string, string]>([
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x in (def,abc),y notin (jkl),z', 'x in (abc,def),y notin (jkl),z'],
    ['x notin (abc,def),y!=jkl,!z', 'x notin (abc,def),y!=jkl,!z'],
    ['x notin (abc),y in (jkl,mno),z notin ()', 'x notin (abc),y in (jkl,mno),z notin ()'],
    ['x=abc,y==jkl,z!=a,z', 'x=abc,y==jkl,z!=a,z'],
    ['z, y ,x', 'x,y,z'],
    ['x=a,a=x', 'a=x,x=a'],
    ['', ''],
  ])('%j -> %j', (text, printed) => {
    expect(parseLabelSelector(text).toString()).toBe(printed);
  });
});

describe('LabelSelector.matches', () => {
  const fooBaz = { foo: 'bar', baz: 'blah' };
  test.each<[string, Record<string, string> | null | undefined, boolean]>([
    ['', { x: 'y' }, true],
    ['', null, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', fooBaz, true],
    ['baz=blah', fooBaz, true],
    ['foo=bar,baz=blah', fooBaz, true],
    ['foo=blah', fooBaz, false],
    ['baz=bar', fooBaz, false],
    ['foo=bar,foobar=bar,baz=blah', fooBaz, false],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['x in ()', { x: '' }, true],
    ['z>1', { z: 'v2' }, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x!=a', null, true],
    ['x', undefined, false],
    // Integers compare as int64, beyond a double's precision; a label that is not an int64 never matches.
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['x<9223372036854775807', { x: '9223372036854775806' }, true],
    ['x>1', { x: '9223372036854775808' }, false],
    ['x<10', { x: '-3' }, true],
    ['x<10', { x: '3.5' }, false],
    // Only own keys count.
    ['constructor', {}, false],
    ['!toString', {}, true],
  ])('%j on %j -> %j', (text, labels, expected) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(expected);
  });
});

describe('labelSelectorFromMeta', () => {
  test.each<[string, MetaLabelSelector | null | undefined, string, boolean]>([
    ['empty selects everything', {}, '', true],
    ['empty lists select everything', { matchLabels: {}, matchExpressions: [] }, '', true],
    ['matchLabels', { matchLabels: { tier: 'fe', app: 'web' } }, 'app=web,tier=fe', false],
    ['In keeps its values, prints them sorted', { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }, 'env in (dev,prod)', false],
    ['NotIn', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, 'env notin (prod)', false],
    ['Exists', { matchExpressions: [{ key: 'env', operator: 'Exists' }] }, 'env', false],
    ['DoesNotExist', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist', values: [] }] }, '!env', false],
    ['both, sorted by key', { matchLabels: { b: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }, 'a,b=1', false],
  ])('%s', (_name, sel, printed, empty) => {
    const s = labelSelectorFromMeta(sel);
    expect(s.toString()).toBe(printed);
    expect(s.empty).toBe(empty);
  });

  test.each<[MetaLabelSelector, Record<string, string>, boolean]>([
    [{ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web', tier: 'fe', x: 'y' }, true],
    [{ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web' }, false],
    [{ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }, { env: 'dev' }, true],
    [{ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] }, { env: 'qa' }, false],
    [{ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, { env: '' }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'Exists' }] }, { app: 'web' }, false],
    [{}, {}, true],
  ])('%j matches %j -> %j', (sel, labels, expected) => {
    expect(labelSelectorFromMeta(sel).matches(labels)).toBe(expected);
  });

  test.each([null, undefined])('a %s selector selects nothing', (sel) => {
    const s = labelSelectorFromMeta(sel);
    expect(s.matches({})).toBe(false);
    expect(s.matches({ a: 'b' })).toBe(false);
    expect(s.empty).toBe(false);
    expect(s.toString()).toBe('');
    expect(s.requirements).toEqual([]);
  });

  test.each<[MetaLabelSelector, string]>([
    [{ matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'x', operator: 'in', values: ['1'] }] }, '"in" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'x', operator: 'In' }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'x', operator: 'NotIn', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a'] }] }, 'values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist'],
    [
      { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['-'] }] },
      `[values: Invalid value: []string{"-"}: values set must be empty for exists and does not exist, values[0][k]: Invalid value: "-": ${LABEL_VALUE_MSG}]`,
    ],
    [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['ok', 'bad value'] }] }, `values[1][k]: Invalid value: "bad value": ${LABEL_VALUE_MSG}`],
    [{ matchLabels: { 'a b': 'x' } }, `key: Invalid value: "a b": ${NAME_PART_MSG}`],
    [{ matchLabels: { app: '-x' } }, `values[0][app]: Invalid value: "-x": ${LABEL_VALUE_MSG}`],
  ])('%j fails: %s', (sel, message) => {
    let thrown: unknown;
    try {
      labelSelectorFromMeta(sel);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SelectorError);
    expect((thrown as Error).message).toBe(message);
  });
});

test('a selector cannot be changed through its requirements', () => {
  const sel = parseLabelSelector('x in (a,b)');
  expect(() => (sel.requirements[0].values as string[]).push('c')).toThrow(TypeError);
  expect(sel.matches({ x: 'c' })).toBe(false);
});
