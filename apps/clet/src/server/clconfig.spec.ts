// --clconfig: the kubeconfig the node agent uses to reach the API server (TokenReview, SubjectAccessReview).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClconfig } from './clconfig';

const dir = mkdtempSync(join(tmpdir(), 'clet-clconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('current context picks cluster and user; relative files resolve next to the kubeconfig', () => {
  write('ca.pem', 'CA');
  write('token', 'secret-token\n');
  const p = write(
    'a.yaml',
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- {name: other, cluster: {server: "https://other:1"}}',
      '- {name: main, cluster: {server: "https://127.0.0.1:6443/", certificate-authority: ca.pem}}',
      'users:',
      '- {name: u, user: {tokenFile: token}}',
      'contexts:',
      '- {name: c, context: {cluster: main, user: u}}',
      'current-context: c',
    ].join('\n'),
  );
  expect(loadClconfig(p)).toEqual({ server: 'https://127.0.0.1:6443', ca: Buffer.from('CA'), insecureSkipTLSVerify: false, token: 'secret-token' });
});

test('inline data and insecure-skip-tls-verify', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const p = write(
    'b.yaml',
    `clusters:\n- {name: k, cluster: {server: "https://h", insecure-skip-tls-verify: true}}\nusers:\n- {name: u, user: {client-certificate-data: ${b64('C')}, client-key-data: ${b64('K')}}}\ncontexts:\n- {name: c, context: {cluster: k, user: u}}\ncurrent-context: c\n`,
  );
  expect(loadClconfig(p)).toMatchObject({ server: 'https://h', insecureSkipTLSVerify: true, cert: Buffer.from('C'), key: Buffer.from('K') });
});

test.each([
  ['a missing file', join(dir, 'missing.yaml'), `invalid clconfig: stat ${join(dir, 'missing.yaml')}: no such file or directory`],
  ['no server', 'noserver', 'invalid configuration: no server found for cluster "k"'],
  ['not YAML', 'bad', 'invalid clconfig:'],
])('%s is an error', (_name, file, message) => {
  const p = file === 'noserver'
    ? write('n.yaml', 'clusters:\n- {name: k, cluster: {}}\ncontexts:\n- {name: c, context: {cluster: k}}\ncurrent-context: c\n')
    : file === 'bad'
      ? write('bad.yaml', 'clusters: [\n')
      : file;
  expect(() => loadClconfig(p)).toThrow(message);
});
