// Credential provider plugins: upstream's matchImages globs, the image the plugin is asked about, the cache
// keys and their lifetimes, the keyring's choice of credentials, and the config file's validation messages.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheKeyFor, cacheLookupKeys, credentialsFor, keyringKey, loadCredentialProviderPlugins, PluginProvider, repositoryOf, urlsMatch, type CredentialProvider, type RegistryAuth } from './index';

test.each<[string, string, boolean]>([
  // upstream's URLsMatch table cases
  ['*.kubernetes.io', 'prefix.kubernetes.io', true],
  ['prefix.*.io', 'prefix.kubernetes.io', true],
  ['prefix.kubernetes.*', 'prefix.kubernetes.io', true],
  ['*-good.kubernetes.io', 'prefix-good.kubernetes.io', true],
  ['*.kubernetes.io', 'kubernetes.io', false],
  ['*.io', 'kubernetes.io', true],
  ['*.io', 'prefix.kubernetes.io', false],
  ['*', 'kubernetes.io', false],
  ['*.*', 'kubernetes.io', true],
  ['*.*.*', 'prefix.kubernetes.io', true],
  ['*.*.*', 'kubernetes.io', false],
  ['kubernetes.io', 'kubernetes.io', true],
  // as url.Parse reads it, `?` starts a query: the host is `k`
  ['k?bernetes.io', 'kubernetes.io', false],
  ['k[a-v]bernetes.io', 'kubernetes.io', true],
  ['k[^u]bernetes.io', 'kubernetes.io', false],
  ['gcr.io', 'gcr.io/project/image', true],
  ['gcr.io/project', 'gcr.io/project/image', true],
  ['gcr.io/project', 'gcr.io/other/image', false],
  ['gcr.io/project/image', 'gcr.io/project', false],
  // the port must be the same on both sides
  ['registry.io:8080', 'registry.io:8080/path', true],
  ['registry.io:8080', 'registry.io/path', false],
  ['registry.io', 'registry.io:8080/path', false],
  ['127.0.0.1:*', '127.0.0.1:5000/app', false],
  ['*.*.*.*:5000', '127.0.0.1:5000/app', true],
  // a malformed glob matches nothing
  ['k[u.io', 'ku.io', false],
])('matchImages %s against %s: %s', (glob, target, want) => {
  expect(urlsMatch(glob, target)).toBe(want);
});

test.each([
  ['nginx', 'docker.io/library/nginx'],
  ['nginx:1.27', 'docker.io/library/nginx'],
  ['user/app:v1', 'docker.io/user/app'],
  ['registry.example.com/team/app:v1', 'registry.example.com/team/app'],
  ['127.0.0.1:5000/app@sha256:abcd', '127.0.0.1:5000/app'],
  ['localhost/app', 'localhost/app'],
])('the plugin is asked about %s as %s', (image, want) => {
  expect(repositoryOf(image)).toBe(want);
});

test.each([
  ['Image', 'registry.io/team/app', 'registry.io/team/app'],
  ['Registry', 'registry.io/team/app', 'registry.io'],
  ['Global', 'registry.io/team/app', 'global'],
  ['', 'registry.io/team/app', null],
  ['Other', 'registry.io/team/app', null],
])('cacheKeyType %p for %s caches under %p', (type, image, want) => {
  expect(cacheKeyFor(type, image)).toBe(want);
});

test('a cached answer is looked up by image, then registry, then global', () => {
  expect(cacheLookupKeys('registry.io:5000/team/app')).toEqual(['registry.io:5000/team/app', 'registry.io:5000', 'global']);
});

test.each([
  ['registry.io', 'registry.io'],
  ['https://registry.io', 'registry.io'],
  ['http://registry.io/v2/', 'registry.io'],
  ['https://index.docker.io/v1/', 'index.docker.io'],
  ['registry.io/team', 'registry.io/team'],
  ['*.registry.io/v1/team', '*.registry.io/team'],
])('the auth key %s is keyed %s', (location, want) => {
  expect(keyringKey(location)).toBe(want);
});

test('the keyring gives the matching credentials, most specific key first, Docker Hub falling back to its index', () => {
  const auths: RegistryAuth[] = [
    { 'registry.io': { username: 'host', password: 'p1' }, 'registry.io/team': { username: 'team', password: 'p2' } },
    { 'other.io': { username: 'other', password: 'p3' }, 'https://index.docker.io/v1/': { username: 'hub', password: 'p4' } },
  ];
  expect(credentialsFor(auths, 'registry.io/team/app').map((a) => a.username)).toEqual(['team', 'host']);
  expect(credentialsFor(auths, 'registry.io/solo/app').map((a) => a.username)).toEqual(['host']);
  expect(credentialsFor(auths, 'docker.io/library/nginx').map((a) => a.username)).toEqual(['hub']);
  expect(credentialsFor(auths, 'nowhere.io/app')).toEqual([]);
});

describe('plugins', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-credprov-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A plugin that appends each request (and its env/args) to `calls` and answers `response`. */
  function plugin(name: string, response: object): string {
    const bin = path.join(dir, name);
    fs.writeFileSync(bin, [
      '#!/bin/sh',
      `read -r req`,
      `echo "$req $GREETING $*" >> ${path.join(dir, 'calls')}`,
      `cat <<'JSON'`,
      JSON.stringify(response),
      'JSON',
    ].join('\n'), { mode: 0o755 });
    return bin;
  }
  const calls = () => (fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n') : []);
  const provider = (over: Partial<CredentialProvider> = {}): CredentialProvider => ({
    name: 'p', matchImages: ['*.registry.io'], defaultCacheDurationMs: 60_000, apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    args: ['--flag'], env: [{ name: 'GREETING', value: 'hello' }], ...over,
  });
  const response = (over: object = {}) => ({
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderResponse', cacheKeyType: 'Registry',
    auth: { '*.registry.io': { username: 'u', password: 'pw' } }, ...over,
  });

  test('the plugin gets the request on stdin with its args and env, and its answer is cached for the registry', async () => {
    let now = 1_000_000;
    const p = new PluginProvider(provider(), plugin('p', response({ cacheDuration: '10s' })), () => undefined, () => now);
    expect(await p.provide('a.registry.io/team/app')).toEqual({ '*.registry.io': { username: 'u', password: 'pw' } });
    expect(calls()).toEqual(['{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"a.registry.io/team/app"} hello --flag']);
    await p.provide('a.registry.io/team/other');
    expect(calls()).toHaveLength(1);
    now += 10_001;
    await p.provide('a.registry.io/team/other');
    expect(calls()).toHaveLength(2);
    // another registry is another key
    await p.provide('b.registry.io/app');
    expect(calls()).toHaveLength(3);
  });

  test('an image the provider does not match never runs it', async () => {
    const p = new PluginProvider(provider(), plugin('p', response()), () => undefined);
    expect(await p.provide('docker.io/library/nginx')).toEqual({});
    expect(calls()).toEqual([]);
  });

  test.each([
    ['cacheDuration 0: never cached', { cacheDuration: '0s' }, 60_000, 2],
    ['no cacheDuration: the default applies', {}, 60_000, 1],
    ['no cacheDuration and a default of 0: never cached', {}, 0, 2],
  ])('%s', async (_name, over, defaultMs, runs) => {
    const p = new PluginProvider(provider({ defaultCacheDurationMs: defaultMs }), plugin('p', response({ cacheKeyType: 'Image', ...over })), () => undefined);
    await p.provide('a.registry.io/app');
    await p.provide('a.registry.io/app');
    expect(calls()).toHaveLength(runs);
  });

  test.each([
    ['a wrong kind', { kind: 'Other' }, 'kind was "Other", expected CredentialProviderResponse'],
    ['another apiVersion', { apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' },
      'apiVersion from credential plugin response did not match expected apiVersion:credentialprovider.kubelet.k8s.io/v1, actual apiVersion:credentialprovider.kubelet.k8s.io/v1beta1'],
    ['no cacheKeyType', { cacheKeyType: '' }, 'credential provider plugin did not return a valid cacheKeyType: ""'],
  ])('a response with %s gives no credentials and is logged', async (_name, over, err) => {
    const logged: unknown[] = [];
    const p = new PluginProvider(provider(), plugin('p', response(over)), (e) => logged.push(e), () => 0);
    expect(await p.provide('a.registry.io/app')).toEqual({});
    expect(logged).toEqual([expect.objectContaining({ msg: 'Failed getting credential from external registry credential provider', err })]);
  });

  const write = (text: string) => {
    const f = path.join(dir, 'config.yaml');
    fs.writeFileSync(f, text);
    return f;
  };
  const good = (name = 'p') => `- name: ${name}\n  matchImages: ["*.registry.io"]\n  defaultCacheDuration: 1m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n`;

  test.each(['kubelet.config.k8s.io/v1', 'kubelet.config.k8s.io/v1beta1', 'kubelet.config.k8s.io/v1alpha1'])('a %s config loads', (v) => {
    plugin('p', response());
    const f = write(`apiVersion: ${v}\nkind: CredentialProviderConfig\nproviders:\n${good()}`);
    expect(loadCredentialProviderPlugins(f, dir).binaries.get('p')).toBe(path.join(dir, 'p'));
  });

  test.each<[string, (f: (t: string) => string) => string, string, string]>([
    ['no config path', () => '', '.', 'credential provider config path is empty'],
    ['a missing file', () => '/nonexistent/cp.yaml', '.', 'unable to read external registry credential provider configuration from "/nonexistent/cp.yaml": '],
    ['the wrong kind', (w) => w('apiVersion: kubelet.config.k8s.io/v1\nkind: CletConfiguration\n'), '', '(wrong Kind)'],
    ['the wrong group', (w) => w('apiVersion: other.io/v1\nkind: CredentialProviderConfig\n'), '', 'unexpected Group: other.io'],
    ['no providers', (w) => w('apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders: []\n'), '',
      'failed to validate credential provider config: providers: Required value: at least 1 item in plugins is required'],
    ['every provider error at once', (w) => w([
      'apiVersion: kubelet.config.k8s.io/v1', 'kind: CredentialProviderConfig', 'providers:',
      '- name: a/b', '  matchImages: ["bad host"]', '  defaultCacheDuration: -1s', '  apiVersion: v9',
      '- name: c', '  matchImages: []', '  apiVersion: ""', '  tokenAttributes: {}',
      '- name: c', '  matchImages: ["ok.io"]', '  defaultCacheDuration: 0s', '  apiVersion: credentialprovider.kubelet.k8s.io/v1'].join('\n')), '',
      'failed to validate credential provider config: [' + [
        'providers.name: Invalid value: "a/b": provider name cannot contain \'/\'',
        'providers.apiVersion: Unsupported value: "v9": supported values: "credentialprovider.kubelet.k8s.io/v1", "credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1"',
        'providers.matchImages: Invalid value: "bad host": match image is invalid: parse "dummy://bad host": invalid character " " in host name',
        'providers.defaultCacheDuration: Invalid value: -1s: must be greater than or equal to 0',
        'providers.apiVersion: Required value',
        'providers.matchImages: Required value: at least 1 item in matchImages is required',
        'providers.defaultCacheDuration: Required value',
        'providers.tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
        'providers.name: Duplicate value: "c"',
      ].join(', ') + ']'],
    ['a missing binary', (w) => w(`apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n${good('absent')}`), 'DIR',
      'plugin binary executable DIR/absent did not exist'],
  ])('refused: %s', (_name, file, binDir, message) => {
    const bin = binDir === 'DIR' ? dir : binDir;
    expect(() => loadCredentialProviderPlugins(file(write), bin)).toThrow(message.replace('DIR', dir));
  });
});
