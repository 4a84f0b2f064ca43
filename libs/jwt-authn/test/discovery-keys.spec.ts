// Discovery, health and the JWKS cache (jwt-authn.md §5, D9, D34-D36) against a scripted TLS issuer.
import type { JWTAuthenticator as JWTConfig } from '@cl/config';
import { JwtAuthenticator } from '../src';
import { FakeIssuer, makeKey, signJwt, type TestKey } from './fake-issuer';
import { servingTls, type ServingTls } from './tls';

jest.setTimeout(60_000);

let tls: ServingTls;
let issuer: FakeIssuer;
let K1: TestKey, K2: TestKey;
const open: JwtAuthenticator[] = [];

beforeAll(async () => {
  tls = servingTls();
  issuer = new FakeIssuer(tls);
  await issuer.start();
  [K1, K2] = [makeKey('k1', 'rsa'), makeKey('k2', 'P-256')];
});
afterEach(() => {
  for (const a of open.splice(0)) a.close();
  issuer.routes.clear();
  issuer.hits.clear();
});
afterAll(async () => {
  await issuer.stop();
  tls.cleanup();
});

function authenticator(over: Partial<JWTConfig['issuer']> = {}, logs: string[] = []): JwtAuthenticator {
  const a = new JwtAuthenticator(
    { issuer: { url: issuer.url, audiences: ['my-client'], certificateAuthority: tls.ca, ...over }, claimMappings: { username: { claim: 'sub', prefix: '' } } },
    { log: (m) => logs.push(m), discoveryRetryMs: 50 },
  );
  open.push(a);
  return a;
}

const token = (key: TestKey, sub = 'jane') =>
  signJwt({ iss: issuer.url, aud: 'my-client', sub, exp: Math.floor(Date.now() / 1000) + 600 }, key, key.publicJwk.kty === 'EC' ? 'ES256' : 'RS256');

test('before discovery succeeds tokens fail with "not initialized" and health says why; then it recovers', async () => {
  const logs: string[] = [];
  const a = authenticator({}, logs);
  await a.firstAttempt();
  expect(() => a.healthCheck()).toThrow(`oidc: authenticator for issuer "${issuer.url}" is not healthy: 404 Not Found: 404 page not found`);
  await expect(a.authenticateToken(token(K1))).rejects.toThrow('oidc: authenticator not initialized');
  expect(logs[0]).toBe('oidc authenticator: initializing plugin: 404 Not Found: 404 page not found');
  issuer.discovery();
  issuer.keys([K1]);
  for (let i = 0; i < 200 && !isHealthy(a); i++) await new Promise((r) => setTimeout(r, 20));
  expect((await a.authenticateToken(token(K1)))?.user.username).toBe('jane');
});

function isHealthy(a: JwtAuthenticator): boolean {
  try {
    a.healthCheck();
    return true;
  } catch {
    return false;
  }
}

test.each([
  ['a trailing slash', (u: string) => `${u}/`],
  ['another host', () => 'https://elsewhere.example'],
])('the discovered issuer must equal the URL exactly (%s)', async (_n, docIssuer) => {
  issuer.discovery(docIssuer(issuer.url));
  const a = authenticator();
  await a.firstAttempt();
  expect(() => a.healthCheck()).toThrow(
    `oidc: issuer did not match the issuer returned by provider, expected "${issuer.url}" got "${docIssuer(issuer.url)}"`,
  );
});

test('an untrusted issuer certificate fails discovery', async () => {
  issuer.discovery();
  const a = new JwtAuthenticator({ issuer: { url: issuer.url, audiences: ['x'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }, { log: () => undefined });
  open.push(a);
  await a.firstAttempt();
  expect(() => a.healthCheck()).toThrow(new RegExp(`is not healthy: Get "${issuer.url}/.well-known/openid-configuration": .*certificate`));
});

test('keys are fetched lazily, once, and an unknown kid refetches when the JWKS is not cacheable', async () => {
  issuer.discovery();
  issuer.keys([K1]);
  const a = authenticator();
  await a.firstAttempt();
  expect(issuer.count('/.testing/keys')).toBe(0);
  // Concurrent first use: one fetch between them.
  const results = await Promise.all(Array.from({ length: 10 }, () => a.authenticateToken(token(K1))));
  expect(results.every((r) => r?.user.username === 'jane')).toBe(true);
  expect(issuer.count('/.testing/keys')).toBe(1);
  issuer.keys([K1, K2]); // rotation: a new key appears
  expect((await a.authenticateToken(token(K2, 'bob')))?.user.username).toBe('bob');
  expect(issuer.count('/.testing/keys')).toBe(2);
});

test('with Cache-Control max-age an unknown kid is not refetched', async () => {
  issuer.discovery();
  issuer.keys([K1], { 'cache-control': 'max-age=3600' });
  const a = authenticator();
  await a.firstAttempt();
  expect((await a.authenticateToken(token(K1)))?.user.username).toBe('jane');
  issuer.keys([K1, K2]);
  await expect(a.authenticateToken(token(K2))).rejects.toThrow('oidc: verify token: failed to verify signature: failed to verify id token signature');
  expect(issuer.count('/.testing/keys')).toBe(1);
});

test('a failed JWKS fetch keeps the old keys', async () => {
  issuer.discovery();
  issuer.keys([K1]);
  const a = authenticator();
  await a.firstAttempt();
  expect((await a.authenticateToken(token(K1)))?.user.username).toBe('jane');
  issuer.routes.set('/.testing/keys', { status: 500, body: 'boom' });
  await expect(a.authenticateToken(token(K2))).rejects.toThrow('oidc: verify token: failed to verify signature: fetching keys oidc: get keys failed: 500 Internal Server Error boom');
  expect((await a.authenticateToken(token(K1, 'still')))?.user.username).toBe('still');
});

test('a JWKS with an unknown key type is refused whole', async () => {
  issuer.discovery();
  issuer.routes.set('/.testing/keys', { body: JSON.stringify({ keys: [K1.publicJwk, { kty: 'XYZ', kid: 'odd' }] }) });
  const a = authenticator();
  await a.firstAttempt();
  await expect(a.authenticateToken(token(K1))).rejects.toThrow("failed to verify signature: fetching keys oidc: failed to decode keys: go-jose/go-jose: unknown json web key type 'XYZ'");
});
