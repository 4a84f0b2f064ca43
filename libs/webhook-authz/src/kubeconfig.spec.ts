import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWebhookKubeconfig } from './kubeconfig';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kc-'));
  writeFileSync(join(dir, 'ca.pem'), 'CA');
  writeFileSync(join(dir, 'token'), 'from-file\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  const f = join(dir, `kc-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, text);
  return f;
}

const withContext = (cluster: string, user = '{}') =>
  `clusters:\n- name: c\n  cluster: ${cluster}\nusers:\n- name: u\n  user: ${user}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`;

describe('webhook kubeconfig', () => {
  test('server path cleaned, query dropped, relative files resolved against the file, token file read', () => {
    const c = loadWebhookKubeconfig(write(withContext('{server: "https://h:8443/a/b/?x=1#f", certificate-authority: ca.pem}', '{tokenFile: token}')));
    expect(c.url.href).toBe('https://h:8443/a/b');
    expect(c.ca?.toString()).toBe('CA');
    expect(c.token).toBe('from-file');
  });

  test('no path becomes /', () => {
    expect(loadWebhookKubeconfig(write(withContext('{server: "https://127.0.0.1:1"}'))).url.pathname).toBe('/');
  });

  test.each([
    ['named cluster without a context', 'clusters:\n- name: c\n  cluster: {server: "https://h"}\n', 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable'],
    ['missing current context', 'current-context: nope\n', 'invalid configuration: context was not found for specified context: nope'],
    ['cluster without server', withContext('{insecure-skip-tls-verify: true}'), 'invalid configuration: no server found for cluster "c"'],
    ['unreadable CA', withContext('{server: "https://h", certificate-authority: /nope/ca.pem}'), 'unable to read certificate-authority /nope/ca.pem for c due to open /nope/ca.pem: no such file or directory'],
    ['certificate without key', withContext('{server: "https://h"}', '{client-certificate-data: QQ==}'), 'client-key-data or client-key must be specified for u to use the clientCert authentication method.'],
    ['token and basic auth', withContext('{server: "https://h"}', '{token: t, username: a, password: b}'), 'more than one authentication method found for u; found [token basicAuth], only one is allowed'],
    ['several problems at once', withContext('{certificate-authority: /nope/ca.pem}'), '[no server found for cluster "c", unable to read certificate-authority /nope/ca.pem'],
  ])('%s', (_n, text, message) => {
    expect(() => loadWebhookKubeconfig(write(text))).toThrow(message);
  });
});
