import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig } from './kubeconfig';

let dir: string;
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-client-kubeconfig-'));
  mkdirSync(join(dir, 'pki'));
  write('pki/ca.crt', 'CA FILE');
  write('pki/client.crt', 'CERT FILE');
  write('pki/client.key', 'KEY FILE');
  write('pki/token', '  file-token\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = (cluster: string, user: string, extra = '') =>
  `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster: ${cluster}\nusers:\n- name: u\n  user: ${user}\ncontexts:\n- {name: c, context: {cluster: k, user: u}}\ncurrent-context: c\n${extra}`;

const text = (b: Buffer | undefined) => b?.toString('utf8');

test.each([
  [
    'inline *-data and a token',
    doc(`{server: "https://10.0.0.1:6443", certificate-authority-data: ${b64('CA')}}`, `{client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}, token: t0k}`),
    { server: 'https://10.0.0.1:6443', ca: 'CA', cert: 'CERT', key: 'KEY', token: 't0k', insecureSkipTLSVerify: false },
  ],
  [
    'file paths relative to the kubeconfig, a token file (trimmed)',
    doc('{server: "https://h:1", certificate-authority: pki/ca.crt}', '{client-certificate: pki/client.crt, client-key: pki/client.key, tokenFile: pki/token}'),
    { server: 'https://h:1', ca: 'CA FILE', cert: 'CERT FILE', key: 'KEY FILE', token: 'file-token' },
  ],
  [
    'absolute file paths',
    () => doc(`{server: "https://h:1", certificate-authority: ${join(dir, 'pki/ca.crt')}}`, `{client-certificate: ${join(dir, 'pki/client.crt')}, client-key: ${join(dir, 'pki/client.key')}}`),
    { server: 'https://h:1', ca: 'CA FILE', cert: 'CERT FILE', key: 'KEY FILE', token: undefined },
  ],
  [
    'inline data wins over a file; the token over a token file',
    doc(`{server: "https://h:1", certificate-authority-data: ${b64('CA')}, certificate-authority: pki/missing}`, '{token: inline, tokenFile: pki/token}'),
    { ca: 'CA', token: 'inline' },
  ],
  [
    'insecure-skip-tls-verify and a trailing slash on the server',
    doc('{server: "https://h:1///", insecure-skip-tls-verify: true}', '{}'),
    { server: 'https://h:1', insecureSkipTLSVerify: true, ca: undefined, cert: undefined, key: undefined, token: undefined },
  ],
  [
    'current-context picks its cluster and user among several',
    'clusters:\n- {name: a, cluster: {server: "https://a"}}\n- {name: b, cluster: {server: "https://b"}}\nusers:\n- {name: x, user: {token: tx}}\n- {name: y, user: {token: ty}}\ncontexts:\n- {name: one, context: {cluster: a, user: x}}\n- {name: two, context: {cluster: b, user: y}}\ncurrent-context: two\n',
    { server: 'https://b', token: 'ty' },
  ],
  [
    'no current-context: the first context',
    'clusters:\n- {name: a, cluster: {server: "https://a"}}\nusers:\n- {name: x, user: {token: tx}}\ncontexts:\n- {name: one, context: {cluster: a, user: x}}\n',
    { server: 'https://a', token: 'tx' },
  ],
  [
    'a context without a user: no credentials',
    'clusters:\n- {name: a, cluster: {server: "https://a"}}\ncontexts:\n- {name: one, context: {cluster: a}}\ncurrent-context: one\n',
    { server: 'https://a', token: undefined, cert: undefined },
  ],
  [
    // Outside the fast path's shapes (kubeconfig-yaml.ts): the yaml library reads it as before.
    'YAML with an anchor, a block scalar and inline comments',
    'clusters:\n- name: a # the only one\n  cluster: &c\n    server: "https://\\x61"\ncontexts:\n- {name: one, context: {cluster: a, user: x}}\nusers:\n- name: x\n  user:\n    token: >-\n      folded\n      token\ncurrent-context: one\n',
    { server: 'https://a', token: 'folded token' },
  ],
])('%s', (_name, content, want) => {
  const cfg = loadKubeconfig(write('config', typeof content === 'function' ? content() : content));
  const got: Record<string, unknown> = { server: cfg.server, ca: text(cfg.ca), cert: text(cfg.cert), key: text(cfg.key), token: cfg.token, insecureSkipTLSVerify: cfg.insecureSkipTLSVerify };
  expect(got).toMatchObject(want);
});

test.each([
  ['a missing file', () => join(dir, 'missing.yaml'), () => `invalid clconfig: stat ${join(dir, 'missing.yaml')}: no such file or directory`],
  ['not YAML', () => write('bad.yaml', 'clusters: [\n'), () => new RegExp(`^invalid clconfig: ${join(dir, 'bad.yaml')}: `)],
  ['a cluster without a server', () => write('n.yaml', 'clusters:\n- {name: k, cluster: {}}\ncontexts:\n- {name: c, context: {cluster: k}}\ncurrent-context: c\n'), () => 'invalid configuration: no server found for cluster "k"'],
  ['an empty file', () => write('empty.yaml', ''), () => 'invalid configuration: no server found for cluster ""'],
  ['a certificate file that does not exist', () => write('nofile.yaml', doc('{server: "https://h", certificate-authority: pki/nope.crt}', '{}')), () => /ENOENT: no such file or directory.*pki\/nope\.crt/],
])('%s is an error', (_name, path, message) => {
  const p = path();
  expect(() => loadKubeconfig(p)).toThrow(message());
});
