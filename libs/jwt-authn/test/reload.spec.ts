// The --authentication-config file reload: a valid change swaps the authenticators once they are healthy,
// anything else is logged and the old ones stay; upstream's reload metrics count each outcome.
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuthenticationConfiguration } from '@cl/config';
import { register } from 'prom-client';
import { ReloadingJwtAuthenticator, sha256Label } from '../src';
import { FakeIssuer, makeKey, signJwt, type TestKey } from './fake-issuer';
import { servingTls, type ServingTls } from './tls';

jest.setTimeout(60_000);

let tls: ServingTls;
let issuer: FakeIssuer;
let key: TestKey;
let dir: string;
let reloader: ReloadingJwtAuthenticator;
const logs: string[] = [];

const file = () => join(dir, 'authn.yaml');
const yaml = (prefix: string, anonymous = '') => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    audiences: [my-client]
    certificateAuthority: |
${tls.ca.trim().split('\n').map((l) => '      ' + l).join('\n')}
  claimMappings:
    username:
      expression: '"${prefix}" + claims.sub'
${anonymous}`;

// Writes atomically (temp + rename), as config management tools do.
function write(text: string): void {
  writeFileSync(file() + '.tmp', text);
  renameSync(file() + '.tmp', file());
}

async function reloads(status: string): Promise<number> {
  const m = await register.getSingleMetric('apiserver_authentication_config_controller_automatic_reloads_total')!.get();
  return m.values.find((v) => v.labels.status === status && v.labels.apiserver_id_hash === sha256Label('test-apiserver'))?.value ?? 0;
}

const token = () => signJwt({ iss: issuer.url, aud: 'my-client', sub: 'jane', exp: Math.floor(Date.now() / 1000) + 600 }, key);
const username = async () => (await reloader.authenticateToken(token()))?.user.username;

beforeAll(async () => {
  tls = servingTls();
  issuer = new FakeIssuer(tls);
  await issuer.start();
  key = makeKey('k', 'rsa');
  issuer.discovery();
  issuer.keys([key]);
  dir = mkdtempSync(join(tmpdir(), 'cl-authn-reload-'));
  const initial = yaml('one:');
  write(initial);
  reloader = new ReloadingJwtAuthenticator({
    file: file(),
    initialContent: initial,
    initialConfig: loadAuthenticationConfiguration(initial),
    load: (t) => loadAuthenticationConfiguration(t),
    apiServerId: 'test-apiserver',
    log: (m) => logs.push(m),
    healthPollMs: 20,
    updateTimeoutMs: 500,
    retireAfterMs: 10,
  });
  reloader.start();
  await reloader.active.waitUntilHealthy(10_000, 20);
});

afterAll(async () => {
  reloader.close();
  await issuer.stop();
  tls.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the initial file is in force', async () => {
  expect(await username()).toBe('one:jane');
});

test('a valid new file replaces the authenticators', async () => {
  const ok = await reloads('success');
  write(yaml('two:'));
  await reloader.trigger();
  expect(await username()).toBe('two:jane');
  expect(await reloads('success')).toBe(ok + 1);
  expect(logs).toContain('reloaded authentication config');
});

test.each([
  ['undecodable', 'kind: [', /^failed to load authentication config: /],
  ['invalid', () => yaml('three:').replace('audiences: [my-client]', 'audiences: []'), /^failed to load authentication config: .*jwt\[0\]\.issuer\.audiences: Required value: at least one jwt\[0\]\.issuer\.audiences is required/],
  ['changing anonymous', () => yaml('four:', 'anonymous:\n  enabled: true\n'), /anonymous: Forbidden: changed from initial configuration file/],
])('an %s file is logged and the old authenticators stay', async (_n, text, logged) => {
  const failures = await reloads('failure');
  const before = await username();
  write(typeof text === 'function' ? text() : text);
  await reloader.trigger();
  expect(await username()).toBe(before);
  expect(await reloads('failure')).toBe(failures + 1);
  expect(logs[logs.length - 1]).toMatch(logged);
  // The same bad content is not re-reported.
  await reloader.trigger();
  expect(await reloads('failure')).toBe(failures + 1);
});

test('a file whose issuer cannot be discovered is not swapped in', async () => {
  const failures = await reloads('failure');
  write(yaml('five:').replace(`url: ${issuer.url}`, `url: ${issuer.url}/nowhere`));
  await reloader.trigger();
  expect(await username()).not.toBe('five:jane');
  expect(await reloads('failure')).toBe(failures + 1);
  expect(logs[logs.length - 1]).toMatch(/^failed to update authentication config: \[oidc: authenticator for issuer ".*\/nowhere" is not healthy: 404 Not Found: 404 page not found, context deadline exceeded\]$/);
});
