import { parse } from 'yaml';
import { parseSimpleYaml } from './kubeconfig-yaml';

const lines = (...l: string[]) => l.join('\n') + '\n';
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

// Documents the fast path reads: its result must be exactly the library's.
test.each([
  ['what bench/clet-start and the e2e harness write', lines('apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', '    server: https://127.0.0.1:6443', `    certificate-authority-data: ${CA}`, 'users:', '- name: u', '  user: {token: bench}', 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x')],
  ['kubectl config view style, sequences indented under their key', lines('apiVersion: v1', 'clusters:', '  - cluster:', '      certificate-authority: /etc/cl/pki/ca.crt', '      server: https://10.0.0.1:6443', '    name: k', 'contexts:', '  - context:', '      cluster: k', '      user: node', '    name: default', 'current-context: default', 'kind: Config', 'preferences: {}', 'users:', '  - name: node', '    user:', '      client-certificate: pki/client.crt', '      client-key: pki/client.key')],
  ['flow mappings nested in a sequence item, quoted scalars', lines('clusters:', '- {name: a, cluster: {server: "https://a:1///", insecure-skip-tls-verify: true}}', "- {name: 'b''s', cluster: {server: 'https://b'}}", 'users: []', 'contexts:', '- {name: one, context: {cluster: a, user: x}}')],
  ['booleans, null and integers as the core schema reads them', lines('a: true', 'b: False', 'c: TRUE', 'd: null', 'e: Null', 'f:', 'g: 0', 'h: 6443', 'i: yes', 'j: off', 'k: [1, true, x, "y"]')],
  ['whole-line comments, blank lines, trailing spaces', lines('# generated', '', 'kind: Config   ', '  # indented comment', 'current-context: x')],
  ['plain scalars with colons, slashes, spaces and base64', lines('server: https://h:6443/path', 'name: my cluster', 'token: abc.def-ghi_jkl', 'data: AbC+/dEf==', 'path: /var/lib/clet/pki/clet-client-current.pem')],
  ['a sequence item that is empty', lines('a:', '-', '- x')],
  ['mappings in mappings, keys with dots', lines('preferences:', '  colors: true', 'extensions:', '- name: client.authentication.k8s.io/exec', '  extension:', '    a: b')],
])('%s: the fast path gives what the yaml library gives', (_name, text) => {
  const fast = parseSimpleYaml(text);
  expect(fast).toBeDefined();
  expect(fast!.value).toStrictEqual(parse(text));
});

// Documents outside the fast path's shapes: left to the library (which may read them or refuse them).
test.each([
  ['an anchor and an alias', lines('a: &x foo', 'b: *x')],
  ['a tag', lines('a: !!str 1')],
  ['a block scalar', lines('a: |', '  line')],
  ['a folded multi-line plain scalar', lines('a: one', '  two')],
  ['a double-quoted scalar with an escape', lines('a: "x\\ny"')],
  ['an inline comment', lines('a: b # note')],
  ['a float, octal, hex and a leading zero', lines('a: 1.5')],
  ['octal', lines('a: 0o17')],
  ['leading zero', lines('a: 0123')],
  ['a duplicate key (the library refuses it)', lines('a: 1', 'a: 2')],
  ['a tab', 'a:\tb\n'],
  ['CRLF line ends', 'a: b\r\nc: d\r\n'],
  ['a document marker', lines('---', 'a: b')],
  ['a quoted key', lines('"a": b')],
  ['a flow mapping over two lines', lines('a: {b: c,', '  d: e}')],
  ['a trailing comma in flow', lines('a: {b: c, }')],
  ['a plain scalar with a colon in flow', lines('a: {server: https://h:1}')],
  ['a key that is a number', lines('1: a')],
  ['a key that is a boolean', lines('true: a')],
  ['a scalar document', 'just text\n'],
  ['an empty document', ''],
  ['a value starting with an indicator', lines('a: @x')],
  ['a negative number', lines('a: -1')],
  ['non-ASCII', lines('a: é')],
  ['a nested compact sequence', lines('- - y')],
  ['a deeper line after a scalar', lines('a: b', '    c: d')],
])('%s: left to the library', (_name, text) => {
  expect(parseSimpleYaml(text)).toBeUndefined();
});
