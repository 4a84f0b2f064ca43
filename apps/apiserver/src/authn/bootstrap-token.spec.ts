// Bootstrap token decisions, as upstream's authenticator tests: the token form, then the Secret's checks in order.
import { BootstrapTokenAuthenticator, bootstrapDecision, parseBootstrapToken, type BootstrapSecret } from './bootstrap-token';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const NOW = Date.parse('2026-01-01T00:00:00Z');
const secret = (data: Record<string, string>, over: Partial<BootstrapSecret> = {}): BootstrapSecret => ({
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...data }).map(([k, v]) => [k, b64(v)])),
  ...over,
});
const token = { id: 'abcdef', secret: '0123456789abcdef' };

test.each([
  ['abcdef.0123456789abcdef', { id: 'abcdef', secret: '0123456789abcdef' }],
  ['ABCDEF.0123456789abcdef', null],
  ['abcde.0123456789abcdef', null],
  ['abcdef.0123456789abcde', null],
  ['abcdef:0123456789abcdef', null],
  ['eyJhbGciOiJSUzI1NiJ9.e30.sig', null],
])('token form %s', (t, want) => {
  expect(parseBootstrapToken(t)).toEqual(want);
});

test.each<[string, BootstrapSecret | null, string | { username: string; groups: string[] }]>([
  ['valid', secret({}), { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] }],
  ['extra groups', secret({ 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token, system:bootstrappers:x' }),
    { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:bootstrappers:x'] }],
  ['future expiration', secret({ expiration: '2026-01-02T00:00:00Z' }), { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] }],
  ['no secret', null, 'No secret of name bootstrap-token-abcdef to match bootstrap bearer token'],
  ['being deleted', secret({}, { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }), 'Secret bootstrap-token-abcdef is being deleted'],
  ['wrong type', secret({}, { type: 'Opaque' }), 'Bootstrap secret bootstrap-token-abcdef has invalid type "Opaque", expected bootstrap.kubernetes.io/token'],
  ['wrong secret', secret({ 'token-secret': '0123456789abcdeX' }), 'Bootstrap secret bootstrap-token-abcdef token secret does not match bearer token'],
  ['wrong id', secret({ 'token-id': 'zzzzzz' }), 'Bootstrap secret bootstrap-token-abcdef has invalid token-id "zzzzzz"'],
  ['expired', secret({ expiration: '2025-12-31T23:59:59Z' }), 'Bootstrap secret bootstrap-token-abcdef has expired'],
  ['not for authentication', secret({ 'usage-bootstrap-authentication': 'false' }), 'Bootstrap secret bootstrap-token-abcdef not marked usage-bootstrap-authentication=true.'],
  ['bad extra group', secret({ 'auth-extra-groups': 'system:masters' }), 'Bootstrap secret bootstrap-token-abcdef has invalid auth-extra-groups: group "system:masters" does not match the pattern system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]'],
])('%s', (_name, s, want) => {
  const d = bootstrapDecision(token, s, NOW);
  if (typeof want === 'string') expect(d).toEqual({ refused: want });
  else expect(d).toEqual({ user: want });
});

test('the authenticator: not mine for other tokens or before the store is attached; a user otherwise', async () => {
  const refused: string[] = [];
  const a = new BootstrapTokenAuthenticator((l) => refused.push(l), () => NOW);
  expect(await a.authenticateToken('abcdef.0123456789abcdef')).toBeNull();
  a.attach(async (name) => (name === 'bootstrap-token-abcdef' ? secret({}) : null));
  expect(await a.authenticateToken('not-a-bootstrap-token')).toBeNull();
  expect(await a.authenticateToken('abcdef.0123456789abcdef')).toEqual({ user: { username: 'system:bootstrap:abcdef', uid: '', groups: ['system:bootstrappers'], extra: {} } });
  expect(await a.authenticateToken('qwerty.0123456789abcdef')).toBeNull();
  expect(refused).toEqual(['No secret of name bootstrap-token-qwerty to match bootstrap bearer token']);
});
