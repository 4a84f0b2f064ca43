import {
  escapeFieldValue,
  FieldRequirement,
  parseFieldSelector,
  SelectorError,
  unescapeFieldValue,
} from './field-selector';

const eq = (field: string, value: string): FieldRequirement => ({ field, operator: '=', value });
const ne = (field: string, value: string): FieldRequirement => ({ field, operator: '!=', value });

function thrownBy(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorError);
    return e as Error;
  }
  throw new Error('nothing thrown');
}

describe('parseFieldSelector: requirements', () => {
  test.each<[string, FieldRequirement[]]>([
    ['', []],
    ['x=a,y=b,z=c', [eq('x', 'a'), eq('y', 'b'), eq('z', 'c')]],
    ['x!=a,y=b', [ne('x', 'a'), eq('y', 'b')]],
    ['a==b', [eq('a', 'b')]],
    // Terms are sorted by their text.
    ['x=a,a=x', [eq('a', 'x'), eq('x', 'a')]],
    ['c!=cvalue,b==bvalue,a=avalue', [eq('a', 'avalue'), eq('b', 'bvalue'), ne('c', 'cvalue')]],
    // Empty terms vanish, and so does a term with neither field nor value.
    ['a=b,,c=d', [eq('a', 'b'), eq('c', 'd')]],
    [',', []],
    ['a=a,', [eq('a', 'a')]],
    ['=', []],
    ['!=', []],
    ['=,a=b', [eq('a', 'b')]],
    ['=v', [eq('', 'v')]],
    ['f=', [eq('f', '')]],
    // Nothing is trimmed.
    ['a = b', [eq('a ', ' b')]],
    // Escapes in values.
    ['x=a||y\\=b', [eq('x', 'a||y=b')]],
    ['x=a\\=\\=b', [eq('x', 'a==b')]],
    // (The raw term text is sorted: "k2=..." before "k=..." as '2' < '='.)
    ['k=\\,,k2=v2', [eq('k2', 'v2'), eq('k', ',')]],
    ['k=\\\\,k2=v2', [eq('k2', 'v2'), eq('k', '\\')]],
    ['k=\\\\\\,,k2=v2', [eq('k2', 'v2'), eq('k', '\\,')]],
    // The first operator from the left splits the term; fields are not unescaped.
    ['a=!b', [eq('a', '!b')]],
    ['a!b=c', [eq('a!b', 'c')]],
    ['a\\,b=c', [eq('a\\,b', 'c')]],
    ['spec.nodeName=,status.phase!=Running', [eq('spec.nodeName', ''), ne('status.phase', 'Running')]],
    // Sorting is by UTF-8 bytes: 목 (U+BAA9) before 함 (U+D568).
    ['함=수,목=록', [eq('목', '록'), eq('함', '수')]],
  ])('%j', (text, requirements) => {
    const sel = parseFieldSelector(text);
    expect(sel.requirements).toEqual(requirements);
    expect(sel.empty).toBe(requirements.length === 0);
  });
});

describe('parseFieldSelector: errors carry upstream text', () => {
  test.each<[string, string]>([
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['a!=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    // Terms are checked in sorted order: "b" comes before "c)" and "x in (a".
    ['x in (a,b,c)', "invalid selector: 'x in (a,b,c)'; can't understand 'b'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['z=\\q,a', "invalid selector: 'z=\\q,a'; can't understand 'a'"],
    ['k=\\a\\b', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b,c=\\x', 'invalid field selector: invalid escape sequence: \\x'],
  ])('%j', (text, message) => {
    expect(thrownBy(() => parseFieldSelector(text)).message).toBe(message);
  });
});

describe('parseFieldSelector: toString', () => {
  test.each<[string, string]>([
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=a||y\\=b', 'x=a||y\\=b'],
    ['x=a\\=\\=b', 'x=a\\=\\=b'],
    ['a==b', 'a=b'],
    ['x=a,a=x', 'a=x,x=a'],
    ['a=b,,=,c=d', 'a=b,c=d'],
  ])('%j -> %j', (text, printed) => {
    expect(parseFieldSelector(text).toString()).toBe(printed);
  });
});

describe('FieldSelector.matches', () => {
  const fields = { foo: 'bar', baz: 'blah', complex: '=value\\,\\', notin: 'in' } as Record<string, string>;
  const lookup = (f: string): string | undefined => fields[f];
  test.each<[string, boolean]>([
    ['', true],
    ['foo=bar', true],
    ['foo==bar', true],
    ['baz=blah', true],
    ['foo=bar,baz=blah', true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', true],
    ['notin=in', true],
    ['foo=blah', false],
    ['baz=bar', false],
    ['foo=bar,foobar=bar,baz=blah', false],
    ['foo!=bar', false],
    ['foo!=blah', true],
    // A field the object does not have reads as "".
    ['foobar=', true],
    ['foobar!=', false],
    ['foobar!=x', true],
  ])('%j -> %j', (text, expected) => {
    expect(parseFieldSelector(text).matches(lookup)).toBe(expected);
  });

  test.each<[string, Record<string, string>, boolean]>([
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
  ])('%j on %j -> %j', (text, set, expected) => {
    expect(parseFieldSelector(text).matches((f) => set[f])).toBe(expected);
  });
});

describe('escapeFieldValue / unescapeFieldValue', () => {
  test.each<[string, string]>([
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ])('%j <-> %j', (plain, escaped) => {
    expect(escapeFieldValue(plain)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(plain);
  });

  test.each<[string, string]>([
    ['\\', 'invalid field selector: invalid escape sequence: \\'],
    ['\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['a,b', 'invalid field selector: unescaped character in value: 44'],
    ['a=b', 'invalid field selector: unescaped character in value: 61'],
  ])('unescape %j fails: %s', (text, message) => {
    expect(thrownBy(() => unescapeFieldValue(text)).message).toBe(message);
  });
});
