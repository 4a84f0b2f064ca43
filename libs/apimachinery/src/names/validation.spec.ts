import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maskTrailingDash,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from './validation';

// Upstream's messages, written out in full so a change in wording fails here.
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const a = (n: number) => 'a'.repeat(n);

describe('isDNS1123Label', () => {
  test.each(['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', a(63)])(
    '%j is valid',
    (v) => expect(isDNS1123Label(v)).toEqual([]),
  );

  test.each<[string, string[]]>([
    ['', [LABEL_MSG]],
    ['A', [LABEL_MSG]],
    ['aBc', [LABEL_MSG]],
    ['-', [LABEL_MSG]],
    ['a-', [LABEL_MSG]],
    ['-a', [LABEL_MSG]],
    ['a_b', [LABEL_MSG]],
    ['a b', [LABEL_MSG]],
    ['.', [LABEL_MSG]],
    ['a.', [LABEL_MSG]],
    // A valid subdomain fails as a label only because of its dots, and is told so.
    ['a.b', ['must not contain dots']],
    ['1.2', ['must not contain dots']],
    [a(64), ['must be no more than 63 characters']],
    [a(62) + '.b', ['must be no more than 63 characters', 'must not contain dots']],
    ['A'.repeat(64), ['must be no more than 63 characters', LABEL_MSG]],
  ])('%j -> %j', (v, errs) => expect(isDNS1123Label(v)).toEqual(errs));
});

describe('isDNS1123Subdomain', () => {
  test.each([
    'a', 'a--1--2--b', '0', '1-a', 'a.a', 'a-1.a', 'a.1', '0.a', '1--a--b--2', '0.1', '1--a--b--2.1',
    'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5', '11.22.33.44.55', a(253),
  ])('%j is valid', (v) => expect(isDNS1123Subdomain(v)).toEqual([]));

  test.each<[string, string[]]>([
    ['', [SUBDOMAIN_MSG]],
    ['A', [SUBDOMAIN_MSG]],
    ['a-', [SUBDOMAIN_MSG]],
    ['.a', [SUBDOMAIN_MSG]],
    ['a..b', [SUBDOMAIN_MSG]],
    ['ab.A', [SUBDOMAIN_MSG]],
    ['a@b', [SUBDOMAIN_MSG]],
    ['a_b', [SUBDOMAIN_MSG]],
    ['a:b', [SUBDOMAIN_MSG]],
    // A trailing newline is not forgiven by the anchors.
    ['a\n', [SUBDOMAIN_MSG]],
    [a(254), ['must be no more than 253 characters']],
    ['A'.repeat(254), ['must be no more than 253 characters', SUBDOMAIN_MSG]],
  ])('%j -> %j', (v, errs) => expect(isDNS1123Subdomain(v)).toEqual(errs));
});

describe('isDNS1035Label', () => {
  test.each(['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a(63)])('%j is valid', (v) =>
    expect(isDNS1035Label(v)).toEqual([]),
  );

  test.each<[string, string[]]>([
    ['0', [DNS1035_MSG]],
    ['1a', [DNS1035_MSG]],
    ['', [DNS1035_MSG]],
    ['aBc', [DNS1035_MSG]],
    ['a-', [DNS1035_MSG]],
    ['a.b', [DNS1035_MSG]],
    [a(64), ['must be no more than 63 characters']],
    ['1' + a(63), ['must be no more than 63 characters', DNS1035_MSG]],
  ])('%j -> %j', (v, errs) => expect(isDNS1035Label(v)).toEqual(errs));
});

describe('isQualifiedName', () => {
  test.each([
    'simple', 'now-with-dashes', '1-starts-with-num', '1234', 'simple/simple', 'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes', 'now.with.dots/simple', 'now-with.dashes-and.dots/simple', '1-num.2-num/3-num',
    '1234/5678', '1.2.3.4/5678', 'Uppercase_Is_OK_123', 'example.com/Uppercase_Is_OK_123', 'requests.storage-foo',
    a(63), a(253) + '/' + 'b'.repeat(63),
  ])('%j is valid', (v) => expect(isQualifiedName(v)).toEqual([]));

  test.each<[string, string[]]>([
    ['nospecialchars%^=@', [NAME_PART_MSG]],
    ['cantendwithadash-', [NAME_PART_MSG]],
    ['-cantstartwithadash-', [NAME_PART_MSG]],
    ['only/one/slash', [QUALIFIED_NAME_MSG]],
    ['Example.com/abc', [`prefix part ${SUBDOMAIN_MSG}`]],
    ['example_com/abc', [`prefix part ${SUBDOMAIN_MSG}`]],
    ['example.com/', ['name part must be non-empty', NAME_PART_MSG]],
    ['/simple', ['prefix part must be non-empty']],
    ['/', ['prefix part must be non-empty', 'name part must be non-empty', NAME_PART_MSG]],
    ['', ['name part must be non-empty', NAME_PART_MSG]],
    [a(64), ['name part must be no more than 63 characters']],
    [a(254) + '/abc', ['prefix part must be no more than 253 characters']],
    ['A_/' + '-'.repeat(64), [`prefix part ${SUBDOMAIN_MSG}`, 'name part must be no more than 63 characters', NAME_PART_MSG]],
  ])('%j -> %j', (v, errs) => expect(isQualifiedName(v)).toEqual(errs));
});

describe('isValidLabelValue', () => {
  test.each(['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', a(63), '', 'A_b.C'])(
    '%j is valid',
    (v) => expect(isValidLabelValue(v)).toEqual([]),
  );

  test.each<[string, string[]]>([
    ['nospecialchars%^=@', [LABEL_VALUE_MSG]],
    ['Tama-nui-te-rā.is.Māori.sun', [LABEL_VALUE_MSG]],
    ['\\backslashes\\are\\bad', [LABEL_VALUE_MSG]],
    ['-starts-with-dash', [LABEL_VALUE_MSG]],
    ['ends-with-dash-', [LABEL_VALUE_MSG]],
    ['.starts.with.dot', [LABEL_VALUE_MSG]],
    ['ends.with.dot.', [LABEL_VALUE_MSG]],
    [a(64), ['must be no more than 63 characters']],
    ['-' + a(63), ['must be no more than 63 characters', LABEL_VALUE_MSG]],
    // Lengths are UTF-8 bytes, as upstream measures them: 32 characters, 64 bytes.
    ['ā'.repeat(32), ['must be no more than 63 characters', LABEL_VALUE_MSG]],
  ])('%j -> %j', (v, errs) => expect(isValidLabelValue(v)).toEqual(errs));
});

describe('isConfigMapKey', () => {
  test.each(['a', 'good', 'good-good', 'still.good', 'this.is.also.good', '.so.is.this', 'THIS_IS_GOOD', 'so_is_this_17', a(253)])(
    '%j is valid',
    (v) => expect(isConfigMapKey(v)).toEqual([]),
  );

  test.each<[string, string[]]>([
    ['.', ["must not be '.'"]],
    ['..', ["must not be '..'"]],
    ['..bad', ["must not start with '..'"]],
    ['b*d', [CONFIG_KEY_MSG]],
    ['bad!&bad', [CONFIG_KEY_MSG]],
    ['', [CONFIG_KEY_MSG]],
    [a(254), ['must be no more than 253 characters']],
    ['..' + '*'.repeat(252), ['must be no more than 253 characters', CONFIG_KEY_MSG, "must not start with '..'"]],
  ])('%j -> %j', (v, errs) => expect(isConfigMapKey(v)).toEqual(errs));
});

describe('name validators for metadata.name and metadata.generateName', () => {
  test.each<[string, string]>([
    ['foo-', 'foa'],
    ['a-', 'a'],
    ['-', '-'],
    ['foo', 'foo'],
    ['', ''],
  ])('maskTrailingDash(%j) -> %j', (name, masked) => expect(maskTrailingDash(name)).toBe(masked));

  test.each<[string, boolean, string[]]>([
    ['foo-', true, []],
    ['foo-', false, [SUBDOMAIN_MSG]],
    ['-', true, [SUBDOMAIN_MSG]],
    ['a.b-', true, []],
    // Masking drops the character before the dash too, so it is never looked at.
    ['ab_-', true, []],
    ['Foo-', true, [SUBDOMAIN_MSG]],
  ])('nameIsDNSSubdomain(%j, prefix=%j) -> %j', (name, prefix, errs) => expect(nameIsDNSSubdomain(name, prefix)).toEqual(errs));

  test.each<[string, boolean, string[]]>([
    ['web-', true, []],
    ['web-', false, [LABEL_MSG]],
    ['a.b-', true, ['must not contain dots']],
    ['a.b', false, ['must not contain dots']],
  ])('nameIsDNSLabel(%j, prefix=%j) -> %j', (name, prefix, errs) => expect(nameIsDNSLabel(name, prefix)).toEqual(errs));

  test.each<[string, boolean, string[]]>([
    ['svc-', true, []],
    ['1svc', false, [DNS1035_MSG]],
    ['svc', false, []],
  ])('nameIsDNS1035Label(%j, prefix=%j) -> %j', (name, prefix, errs) => expect(nameIsDNS1035Label(name, prefix)).toEqual(errs));
});
