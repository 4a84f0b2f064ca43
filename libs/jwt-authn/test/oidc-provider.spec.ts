// End to end against a real OpenID provider (npm oidc-provider) over TLS on loopback: discovery, real ID
// tokens, claim mappings and rules from a real config file, key rotation, and the provider going away.
import { loadAuthenticationConfiguration } from '@cl/config';
import { createJwtVerifier, TokenRejectedError, type JwtVerifier } from '../src';
import { makeKey, signJwt } from './fake-issuer';
import { OidcProviderProcess, providerKey } from './provider';
import { servingTls, type ServingTls } from './tls';

jest.setTimeout(120_000);

let tls: ServingTls;
let provider: OidcProviderProcess;
let verifier: JwtVerifier;
const k1 = providerKey('k1');
const k2 = providerKey('k2');

const configYaml = (url: string, ca: string, audience = 'my-client') => `
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${url}
    audiences: [${audience}]
    certificateAuthority: |
${ca.trim().split('\n').map((l) => '      ' + l).join('\n')}
  claimMappings:
    username:
      claim: sub
      prefix: "oidc:"
    groups:
      expression: 'claims.?groups.orValue([])'
    extra:
    - key: example.org/team
      valueExpression: 'claims.?team.orValue("")'
  claimValidationRules:
  - expression: 'claims.?blocked.orValue(false) == false'
    message: blocked users may not sign in
  userValidationRules:
  - expression: "user.groups.all(g, !g.startsWith('system:'))"
    message: groups may not use the system prefix
`;

beforeAll(async () => {
  tls = servingTls();
  provider = new OidcProviderProcess(tls);
  await provider.start([k1]);
  verifier = createJwtVerifier(loadAuthenticationConfiguration(configYaml(provider.url, tls.ca)), { log: () => undefined });
  await verifier.ready(30_000);
});

afterAll(async () => {
  verifier?.close();
  await provider.stop();
  tls.cleanup();
});

const rejection = (p: Promise<unknown>) => p.then(() => 'accepted', (e: Error) => (e instanceof TokenRejectedError ? e.message : `unexpected ${e.message}`));

test('a real ID token maps to a user', async () => {
  const token = await provider.mint({ sub: 'jane', groups: ['dev', 'ops'], team: 'blue' });
  expect(await verifier.verify(token)).toEqual({
    username: 'oidc:jane',
    uid: '',
    groups: ['dev', 'ops', 'system:authenticated'],
    extra: { 'example.org/team': ['blue'] },
  });
});

test.each([
  ['claim validation rule', { sub: 'eve', blocked: true }, "oidc: error evaluating claim validation expression: validation expression 'claims.?blocked.orValue(false) == false' failed: blocked users may not sign in"],
  ['user validation rule', { sub: 'eve', groups: ['system:masters'] }, "oidc: error evaluating user info validation rule: validation expression 'user.groups.all(g, !g.startsWith('system:'))' failed: groups may not use the system prefix"],
])('a token failing the %s is refused', async (_n, claims, want) => {
  expect(await rejection(verifier.verify(await provider.mint(claims)))).toBe(want);
});

test('a real token checked two hours later is expired (exp has no leeway)', async () => {
  const later = createJwtVerifier(loadAuthenticationConfiguration(configYaml(provider.url, tls.ca)), { log: () => undefined, now: () => Date.now() + 2 * 3600_000 });
  try {
    await later.ready(30_000);
    expect(await rejection(later.verify(await provider.mint({ sub: 'jane' })))).toMatch(/^oidc: verify token: oidc: token is expired \(Token Expiry: /);
  } finally {
    later.close();
  }
});

test('a real token for another audience is refused', async () => {
  const other = createJwtVerifier(loadAuthenticationConfiguration(configYaml(provider.url, tls.ca, 'other-client')), { log: () => undefined });
  try {
    await other.ready(30_000);
    expect(await rejection(other.verify(await provider.mint({ sub: 'jane' })))).toBe('oidc: verify token: oidc: expected audience "other-client" got ["my-client"]');
  } finally {
    other.close();
  }
});

test('a real token with a changed payload fails the signature check', async () => {
  const [h, p, s] = (await provider.mint({ sub: 'jane' })).split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${s}`;
  expect(await rejection(verifier.verify(forged))).toBe('oidc: verify token: failed to verify signature: failed to verify id token signature');
});

test('key rotation at the provider, then the provider stopped', async () => {
  const beforeRotation = await provider.mint({ sub: 'before' });
  await provider.stop();
  await provider.start([k2, k1], provider.port); // signs with k2 now, still publishes k1
  const afterRotation = await provider.mint({ sub: 'after' });
  expect(JSON.parse(Buffer.from(afterRotation.split('.')[0], 'base64url').toString()).kid).toBe('k2');
  expect((await verifier.verify(afterRotation)).username).toBe('oidc:after'); // unknown kid: JWKS refetched
  const unused = await provider.mint({ sub: 'unused' });
  await provider.stop();

  // Provider gone: keys already fetched keep working, for old and new tokens alike.
  expect((await verifier.verify(beforeRotation)).username).toBe('oidc:before');
  expect((await verifier.verify(unused)).username).toBe('oidc:unused');
  // A kid the cache has never seen cannot be fetched: a clean refusal, and the verifier keeps serving.
  const k3 = makeKey('k3', 'rsa');
  const stranger = signJwt({ iss: provider.url, aud: 'my-client', sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 }, k3);
  expect(await rejection(verifier.verify(stranger))).toMatch(/^oidc: verify token: failed to verify signature: fetching keys oidc: get keys failed Get "https:\/\/127\.0\.0\.1:\d+\/jwks": connect ECONNREFUSED/);
  expect((await verifier.verify(unused)).username).toBe('oidc:unused');
});
