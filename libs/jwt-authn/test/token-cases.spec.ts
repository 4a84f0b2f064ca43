// The per-token cases of jwt-authn.md §10.1/§10.2 (upstream oidc_test.go TestToken), against a scripted
// issuer over real TLS: real discovery, real JWKS fetches, real distributed-claim endpoints.
import type { JWTAuthenticator as JWTConfig } from '@cl/config';
import { register } from 'prom-client';
import { JwtAuthenticator, sha256Label, type JwtAuthenticatorOptions } from '../src';
import { compile } from './cel';
import { FakeIssuer, makeKey, signJwt, type TestKey } from './fake-issuer';
import { servingTls, type ServingTls } from './tls';

process.env.TZ = 'UTC';
jest.setTimeout(60_000);

const NOW = 1257894000;
const VALID = 1257897600;
const EXPIRED = 1257890400;
const EXPIRED_TEXT = '2009-11-10 22:00:00 +0000 UTC';

let tls: ServingTls;
let issuer: FakeIssuer;
let URL: string;
let K1: TestKey, K2: TestKey, EC1: TestKey, EC2: TestKey;

beforeAll(async () => {
  tls = servingTls();
  issuer = new FakeIssuer(tls);
  await issuer.start();
  URL = issuer.url;
  [K1, K2, EC1, EC2] = [makeKey('rsa_1', 'rsa'), makeKey('rsa_2', 'rsa'), makeKey('ecdsa_1', 'P-521'), makeKey('ecdsa_2', 'P-521')];
});
afterAll(async () => {
  await issuer.stop();
  tls.cleanup();
});

type Mapping = { claim?: string; prefix?: string; expression?: string };
const u = (claim: string, prefix: string): Mapping => ({ claim, prefix });
const E = (expression: string): Mapping => ({ expression });

interface Case {
  name: string;
  cfg?: (c: JWTConfig) => void;
  claims?: Record<string, unknown>;
  /** The exact payload text. */
  text?: string;
  /** Replace base claims entirely. */
  rawClaims?: Record<string, unknown>;
  omit?: string[];
  sign?: { key?: TestKey; alg?: string };
  keys?: () => TestKey[];
  algs?: string[];
  /** Distributed endpoint claims served at /groups (token groups_token) or /rabbits. */
  endpoint?: { path: string; claims: Record<string, unknown> };
  want: { user?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; err?: string; skip?: true; init?: string };
}

function config(c: Case): JWTConfig {
  const cfg: JWTConfig = { issuer: { url: URL, audiences: ['my-client'], certificateAuthority: tls.ca }, claimMappings: { username: u('username', '') } };
  c.cfg?.(cfg);
  return cfg;
}

const distributed = (path = 'groups', claim = 'groups') => ({
  _claim_names: { [claim]: 'src1' },
  _claim_sources: { src1: { endpoint: `${URL}/${path}`, access_token: `${path}_token` } },
});

// Built lazily because URL is only known once the server runs.
const cases = (): Case[] => [
  { name: '1 token', claims: { username: 'jane' }, want: { user: { username: 'jane' } } },
  { name: '2 no-username', cfg: (c) => (c.claimMappings.username = u('username', 'prefix:')), want: { err: 'oidc: parse username claims "username": claim not present' } },
  { name: '3 email', cfg: (c) => (c.claimMappings.username = u('email', '')), claims: { email: 'jane@example.com', email_verified: true }, want: { user: { username: 'jane@example.com' } } },
  { name: '4 email-not-verified', cfg: (c) => (c.claimMappings.username = u('email', '')), claims: { email: 'jane@example.com', email_verified: false }, want: { err: 'oidc: email not verified' } },
  { name: '5 no-email-verified-claim', cfg: (c) => (c.claimMappings.username = u('email', '')), claims: { email: 'jane@example.com' }, want: { user: { username: 'jane@example.com' } } },
  { name: '6 invalid-email-verified-claim', cfg: (c) => (c.claimMappings.username = u('email', '')), claims: { email: 'jane@example.com', email_verified: 'false' }, want: { err: "oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool" } },
  { name: '7 groups', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', groups: ['team1', 'team2'] }, want: { user: { username: 'jane', groups: ['team1', 'team2'] } } },
  { name: '8 groups-distributed', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: { groups: ['team1', 'team2'] } }, want: { user: { username: 'jane', groups: ['team1', 'team2'] } } },
  { name: '10 groups-distributed-malformed-claim-names', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed(), _claim_names: { groups: 'nonexistent-claim-source' } }, want: { err: 'oidc: verify token: oidc: source does not exist' } },
  { name: '11 groups-distributed-malformed-names-and-sources', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', _claim_names: { groups: 'src1' } }, want: { err: 'oidc: verify token: oidc: source does not exist' } },
  { name: '12 groups-distributed-malformed-distributed-claim', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: {} }, want: { err: `oidc: could not expand distributed claims: jwt returned by distributed claim endpoint "${URL}/groups" did not contain claim: groups` } },
  { name: '13 groups-distributed-unusual-name', cfg: (c) => (c.claimMappings.groups = u('rabbits', '')), claims: { username: 'jane', ...distributed('rabbits', 'rabbits') }, endpoint: { path: 'rabbits', claims: { rabbits: ['team1', 'team2'] } }, want: { user: { username: 'jane', groups: ['team1', 'team2'] } } },
  { name: '14 groups-distributed-wrong-audience', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: { groups: ['team1'], aud: 'your-client' } }, want: { err: 'oidc: could not expand distributed claims: verify distributed claim token: oidc: expected audience "my-client" got ["your-client"]' } },
  { name: '15 groups-distributed-expired-token', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: { groups: ['team1'], exp: EXPIRED } }, want: { err: `oidc: could not expand distributed claims: verify distributed claim token: oidc: token is expired (Token Expiry: ${EXPIRED_TEXT})` } },
  { name: '16 groups-distributed-normal-claim-wins', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', groups: 'team1', ...distributed() }, endpoint: { path: 'groups', claims: { groups: ['team2'] } }, want: { user: { username: 'jane', groups: ['team1'] } } },
  { name: '17 group-string-claim', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', groups: 'team1' }, want: { user: { username: 'jane', groups: ['team1'] } } },
  { name: '18 group-string-claim-distributed', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: { groups: 'team1' } }, want: { user: { username: 'jane', groups: ['team1'] } } },
  { name: '19 group-string-claim-aggregated-not-supported', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', _claim_names: { groups: 'src1' }, _claim_sources: { src1: { JWT: 'some.jwt.token' } } }, want: { user: { username: 'jane' } } },
  { name: '20 no-groups-claim', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane' }, want: { user: { username: 'jane' } } },
  { name: '21 invalid-groups-claim', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', groups: 42 }, want: { err: 'oidc: parse groups claim "groups": json: cannot unmarshal number into Go value of type string' } },
  { name: '22 required-claim', cfg: (c) => (c.claimValidationRules = [{ claim: 'hd', requiredValue: 'example.com' }, { claim: 'sub', requiredValue: 'test' }]), claims: { username: 'jane', hd: 'example.com', sub: 'test' }, want: { user: { username: 'jane' } } },
  { name: '23 no-required-claim', cfg: (c) => (c.claimValidationRules = [{ claim: 'hd', requiredValue: 'example.com' }]), claims: { username: 'jane' }, want: { err: 'oidc: required claim hd not present in ID token' } },
  { name: '24 invalid-required-claim', cfg: (c) => (c.claimValidationRules = [{ claim: 'hd', requiredValue: 'example.com' }]), claims: { username: 'jane', hd: 'example.org' }, want: { err: 'oidc: required claim hd value does not match. Got = example.org, want = example.com' } },
  { name: '25 invalid-signature', cfg: (c) => (c.claimMappings.username = u('username', 'prefix:')), claims: { username: 'jane' }, keys: () => [K2], want: { err: 'oidc: verify token: failed to verify signature: failed to verify id token signature' } },
  { name: '26 expired', claims: { username: 'jane', exp: EXPIRED }, want: { err: `oidc: verify token: oidc: token is expired (Token Expiry: ${EXPIRED_TEXT})` } },
  { name: '27 invalid-aud', claims: { username: 'jane', aud: 'not-my-client' }, want: { err: 'oidc: verify token: oidc: expected audience "my-client" got ["not-my-client"]' } },
  { name: '28 multiple-audiences', claims: { username: 'jane', aud: ['not-my-client', 'my-client'], azp: 'not-my-client' }, want: { user: { username: 'jane' } } },
  { name: '29 multiple-audiences in authentication config', cfg: (c) => Object.assign(c.issuer, { audiences: ['random-client', 'my-client'], audienceMatchPolicy: 'MatchAny' }), claims: { username: 'jane', aud: ['not-my-client', 'my-client'] }, want: { user: { username: 'jane' } } },
  { name: '30 multiple audiences, multiple matches', cfg: (c) => Object.assign(c.issuer, { audiences: ['random-client', 'my-client', 'other-client'], audienceMatchPolicy: 'MatchAny' }), claims: { username: 'jane', aud: ['not-my-client', 'my-client', 'other-client'] }, want: { user: { username: 'jane' } } },
  { name: '31 multiple audiences, no match', cfg: (c) => Object.assign(c.issuer, { audiences: ['random-client', 'my-client'], audienceMatchPolicy: 'MatchAny' }), claims: { username: 'jane', aud: ['not-my-client'] }, want: { err: 'oidc: verify token: oidc: expected audience in ["my-client" "random-client"] got ["not-my-client"]' } },
  { name: '32 nuanced audience validation using claim validation rules', cfg: (c) => { Object.assign(c.issuer, { audiences: ['bar', 'foo', 'baz'], audienceMatchPolicy: 'MatchAny' }); c.claimValidationRules = [{ expression: 'sets.equivalent(claims.aud, ["bar", "foo", "baz"])', message: 'audience must exactly contain [bar, foo, baz]' }]; }, claims: { username: 'jane', aud: ['foo', 'bar', 'baz'] }, want: { user: { username: 'jane' } } },
  { name: '33 audience validation using claim validation rules fails', cfg: (c) => { Object.assign(c.issuer, { audiences: ['bar', 'foo', 'baz'], audienceMatchPolicy: 'MatchAny' }); c.claimValidationRules = [{ expression: 'sets.equivalent(claims.aud, ["bar", "foo", "baz"])', message: 'audience must exactly contain [bar, foo, baz]' }]; }, claims: { username: 'jane', aud: ['foo', 'baz'] }, want: { err: `oidc: error evaluating claim validation expression: validation expression 'sets.equivalent(claims.aud, ["bar", "foo", "baz"])' failed: audience must exactly contain [bar, foo, baz]` } },
  { name: '34 invalid-issuer', claims: { username: 'jane', iss: 'https://example.com' }, want: { skip: true } },
  { name: '35 username-prefix', cfg: (c) => (c.claimMappings.username = u('username', 'oidc:')), claims: { username: 'jane' }, want: { user: { username: 'oidc:jane' } } },
  { name: '36 groups-prefix', cfg: (c) => { c.claimMappings.username = u('username', 'oidc:'); c.claimMappings.groups = u('groups', 'groups:'); }, claims: { username: 'jane', groups: ['team1', 'team2'] }, want: { user: { username: 'oidc:jane', groups: ['groups:team1', 'groups:team2'] } } },
  { name: '37 groups-prefix-distributed', cfg: (c) => { c.claimMappings.username = u('username', 'oidc:'); c.claimMappings.groups = u('groups', 'groups:'); }, claims: { username: 'jane', ...distributed() }, endpoint: { path: 'groups', claims: { groups: ['team1', 'team2'] } }, want: { user: { username: 'oidc:jane', groups: ['groups:team1', 'groups:team2'] } } },
  { name: '38 invalid-signing-alg', algs: ['RS256'], sign: { alg: 'PS256' }, claims: { username: 'jane' }, want: { err: 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256"] got "PS256"' } },
  { name: '39 ps256', algs: ['PS256'], sign: { alg: 'PS256' }, claims: { username: 'jane' }, want: { user: { username: 'jane' } } },
  { name: '40 es512', algs: ['ES512'], sign: { alg: 'ES512', key: EC2 }, keys: () => [EC1, EC2], claims: { username: 'jane' }, want: { user: { username: 'jane' } } },
  { name: '43 invalid-sig-alg', algs: ['HS256'], want: { init: 'oidc: unsupported signing alg: "HS256"' } },
  { name: '48 good token with bad client id', claims: { username: 'jane', aud: 'my-wrong-client' }, want: { err: 'oidc: verify token: oidc: expected audience "my-client" got ["my-wrong-client"]' } },
  { name: '49 user validation rule fails for user.username', cfg: (c) => { c.claimMappings.username = u('username', 'system:'); c.userValidationRules = [{ expression: "!user.username.startsWith('system:')", message: 'username cannot used reserved system: prefix' }]; }, claims: { username: 'jane' }, want: { err: "oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('system:')' failed: username cannot used reserved system: prefix" } },
  { name: '50 user validation rule fails for user.groups', cfg: (c) => { c.claimMappings = { username: E('claims.username'), groups: u('groups', 'system:') }; c.userValidationRules = [{ expression: "user.groups.all(group, !group.startsWith('system:'))", message: 'groups cannot used reserved system: prefix' }]; }, claims: { username: 'jane', groups: ['team1', 'team2'] }, want: { err: "oidc: error evaluating user info validation rule: validation expression 'user.groups.all(group, !group.startsWith('system:'))' failed: groups cannot used reserved system: prefix" } },
  { name: '51 claim validation rule with expression fails', cfg: (c) => (c.claimValidationRules = [{ expression: 'claims.hd == "example.com"', message: 'hd claim must be example.com' }]), claims: { username: 'jane' }, want: { err: `oidc: error evaluating claim validation expression: expression 'claims.hd == "example.com"' resulted in error: no such key: hd` } },
  { name: '52 claim validation rule with expression', cfg: (c) => (c.claimValidationRules = [{ expression: 'claims.hd == "example.com"', message: 'hd claim must be example.com' }]), claims: { username: 'jane', hd: 'example.com' }, want: { user: { username: 'jane' } } },
  { name: '53 claim validation rule with nested claims', cfg: (c) => (c.claimValidationRules = [{ expression: 'claims.foo.bar == "baz"' }]), claims: { username: 'jane', foo: { bar: 'baz' } }, want: { user: { username: 'jane' } } },
  { name: '54 mix of expression and claim', cfg: (c) => (c.claimValidationRules = [{ expression: 'claims.foo.bar == "baz"' }, { claim: 'hd', requiredValue: 'example.com' }]), claims: { username: 'jane', hd: 'example.com', foo: { bar: 'baz' } }, want: { user: { username: 'jane' } } },
  { name: '55 username expression', cfg: (c) => (c.claimMappings.username = E('claims.username')), claims: { username: 'jane' }, want: { user: { username: 'jane' } } },
  { name: '56 username expression nested claim', cfg: (c) => (c.claimMappings.username = E('claims.foo.username')), claims: { foo: { username: 'jane' } }, want: { user: { username: 'jane' } } },
  { name: '57 groups expression', cfg: (c) => (c.claimMappings = { username: E('claims.username'), groups: E('claims.groups') }), claims: { username: 'jane', groups: ['team1', 'team2'] }, want: { user: { username: 'jane', groups: ['team1', 'team2'] } } },
  { name: '58 groups expression with split and map', cfg: (c) => (c.claimMappings = { username: u('username', 'oidc:'), groups: E('(claims.roles.split(",") + claims.other_roles.split(",")).map(role, "groups:" + role)') }), claims: { username: 'jane', roles: 'foo,bar', other_roles: 'baz,qux' }, want: { user: { username: 'oidc:jane', groups: ['groups:foo', 'groups:bar', 'groups:baz', 'groups:qux'] } } },
  { name: '59 uid expression', cfg: (c) => (c.claimMappings = { username: E('claims.username'), groups: E('claims.groups'), uid: E('claims.uid') }), claims: { username: 'jane', groups: ['team1', 'team2'], uid: '1234' }, want: { user: { username: 'jane', groups: ['team1', 'team2'], uid: '1234' } } },
  { name: '60 uid claim', cfg: (c) => (c.claimMappings = { username: E('claims.username'), groups: E('claims.groups'), uid: { claim: 'uid' } }), claims: { username: 'jane', groups: ['team1', 'team2'], uid: '1234' }, want: { user: { username: 'jane', groups: ['team1', 'team2'], uid: '1234' } } },
  { name: '61 extra expressions', cfg: (c) => (c.claimMappings = { username: E('claims.username'), extra: [{ key: 'example.org/foo', valueExpression: 'claims.foo' }, { key: 'example.org/bar', valueExpression: 'claims.bar' }] }), claims: { username: 'jane', foo: 'bar', bar: ['baz', 'qux'] }, want: { user: { username: 'jane', extra: { 'example.org/foo': ['bar'], 'example.org/bar': ['baz', 'qux'] } } } },
  { name: '62 extra derived from claim value', cfg: (c) => (c.claimMappings = { username: E('claims.username'), extra: [
    { key: 'example.org/admin', valueExpression: '(has(claims.is_admin) && claims.is_admin) ? "true":""' },
    { key: 'example.org/admin_1', valueExpression: 'claims.?is_admin.orValue(false) == true ? "true":""' },
    { key: 'example.org/non_existent', valueExpression: 'claims.?non_existent.orValue("default") == "default" ? "true":""' },
  ] }), claims: { username: 'jane', is_admin: true }, want: { user: { username: 'jane', extra: { 'example.org/admin': ['true'], 'example.org/admin_1': ['true'], 'example.org/non_existent': ['true'] } } } },
  { name: '66 extra empty string omitted', cfg: (c) => (c.claimMappings = { username: E('claims.username'), extra: [{ key: 'example.org/foo', valueExpression: 'claims.foo' }, { key: 'example.org/bar', valueExpression: 'claims.bar' }] }), claims: { username: 'jane', foo: '', bar: ['baz', 'qux'] }, want: { user: { username: 'jane', extra: { 'example.org/bar': ['baz', 'qux'] } } } },
  { name: '68 groups expression returns null', cfg: (c) => (c.claimMappings = { username: E('claims.username'), groups: E('claims.groups') }), claims: { username: 'jane', groups: null }, want: { user: { username: 'jane' } } },
  { name: '70 empty username via claim', cfg: (c) => (c.claimMappings = { username: u('username', ''), groups: E('claims.groups') }), claims: { username: '', groups: null }, want: { user: { username: '' } } },
  { name: '71 minimum valid payload', cfg: (c) => (c.claimMappings.username = E('claims.user')), rawClaims: { aud: 'my-client', user: 'jane', exp: VALID }, want: { user: { username: 'jane' } } },
  { name: '72 discovery-url', cfg: (c) => Object.assign(c.issuer, { url: 'https://auth.example.com', discoveryURL: `${URL}/c/d/bar/.well-known/openid-configuration` }), claims: { username: 'jane', iss: 'https://auth.example.com' }, want: { user: { username: 'jane' } } },
  { name: '76 discovery url and issuer url with trailing slash', cfg: (c) => Object.assign(c.issuer, { url: 'https://auth.example.com/a/b/foo/', discoveryURL: `${URL}/c/d/bar2/.well-known/openid-configuration` }), claims: { username: 'jane', iss: 'https://auth.example.com/a/b/foo/' }, want: { user: { username: 'jane' } } },
  { name: '77 credential id from jti', cfg: (c) => (c.claimMappings.username = E('claims.username')), claims: { username: 'jane', jti: '1234' }, want: { user: { username: 'jane', extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1234'] } } } },
  { name: '79 non-string jti ignored', claims: { username: 'jane', jti: 1234 }, want: { user: { username: 'jane' } } },
  { name: 'D1 nbf beyond leeway', claims: { username: 'jane', nbf: NOW + 61 }, want: { err: `oidc: verify token: oidc: current time 2009-11-10 23:00:00 +0000 UTC before the nbf (not before) time: 2009-11-10 23:01:01 +0000 UTC` } },
  { name: 'D2 nbf within leeway', claims: { username: 'jane', nbf: NOW + 60 }, want: { user: { username: 'jane' } } },
  { name: 'D3 exp == now', claims: { username: 'jane', exp: NOW }, want: { user: { username: 'jane' } } },
  { name: 'D4 no exp', claims: { username: 'jane' }, omit: ['exp'], want: { err: 'oidc: verify token: oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)' } },
  { name: 'D5 no aud', claims: { username: 'jane' }, omit: ['aud'], want: { err: 'oidc: verify token: oidc: expected audience "my-client" got []' } },
  { name: 'D6 iat in the future as a string', claims: { username: 'jane', iat: String(NOW + 99999) }, want: { user: { username: 'jane' } } },
  { name: 'D10 HS256', sign: { alg: 'HS256' }, claims: { username: 'jane' }, want: { err: 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["ES256" "ES384" "ES512" "PS256" "PS384" "PS512" "RS256" "RS384" "RS512"] got "HS256"' } },
  { name: 'D11 expired and bad signature', claims: { username: 'jane', exp: EXPIRED }, keys: () => [K2], want: { err: `oidc: verify token: oidc: token is expired (Token Expiry: ${EXPIRED_TEXT})` } },
  { name: 'D12 username expression not a string', cfg: (c) => (c.claimMappings.username = E('claims.age')), claims: { age: 5 }, want: { err: 'oidc: error evaluating username claim expression: username claim expression must return a string' } },
  { name: 'D13 empty username via expression', cfg: (c) => (c.claimMappings.username = E('claims.username')), claims: { username: '' }, want: { err: 'oidc: empty username via CEL expression is not allowed' } },
  { name: 'D14 username expression missing key', cfg: (c) => (c.claimMappings.username = E('claims.missing')), want: { err: "oidc: error evaluating username claim expression: expression 'claims.missing' resulted in error: no such key: missing" } },
  { name: 'D15 groups expression of a number', cfg: (c) => (c.claimMappings = { username: u('username', ''), groups: E('claims.n') }), claims: { username: 'jane', n: 1 }, want: { err: 'oidc: error evaluating group claim expression: expression must return a string or a list of strings' } },
  { name: 'D16 empty groups dropped from expression', cfg: (c) => (c.claimMappings = { username: u('username', ''), groups: E('["a","","b"]') }), claims: { username: 'jane' }, want: { user: { username: 'jane', groups: ['a', 'b'] } } },
  { name: 'D17 empty groups kept from claim', cfg: (c) => (c.claimMappings = { username: u('username', ''), groups: u('groups', 'p:') }), claims: { username: 'jane', groups: ['', 'a'] }, want: { user: { username: 'jane', groups: ['p:', 'p:a'] } } },
  { name: 'D18 uid expression not a string', cfg: (c) => (c.claimMappings = { username: u('username', ''), uid: E('claims.n') }), claims: { username: 'jane', n: 1 }, want: { err: 'oidc: error evaluating uid claim expression: uid claim expression must return a string' } },
  { name: 'D19 extra expression error has no prefix', cfg: (c) => (c.claimMappings = { username: u('username', ''), extra: [{ key: 'example.org/x', valueExpression: 'claims.missing' }] }), claims: { username: 'jane' }, want: { err: "expression 'claims.missing' resulted in error: no such key: missing" } },
  { name: 'D20 extra expression of a number', cfg: (c) => (c.claimMappings = { username: u('username', ''), extra: [{ key: 'example.org/x', valueExpression: '1' }] }), claims: { username: 'jane' }, want: { err: 'oidc: error evaluating extra claim expression: 1: expression must return a string or a list of strings' } },
  { name: 'D21 claim rule false without message', cfg: (c) => (c.claimValidationRules = [{ expression: 'claims.username == "bob"' }]), claims: { username: 'jane' }, want: { err: `oidc: error evaluating claim validation expression: validation expression 'claims.username == "bob"' failed: ` } },
  { name: 'D22 required claim of a number', cfg: (c) => (c.claimValidationRules = [{ claim: 'hd', requiredValue: 'example.com' }]), claims: { username: 'jane', hd: 5 }, want: { err: 'oidc: parse claim hd: json: cannot unmarshal number into Go value of type string' } },
  { name: 'D23 required claim without value accepts null', cfg: (c) => (c.claimValidationRules = [{ claim: 'hd' }]), claims: { username: 'jane', hd: null }, want: { user: { username: 'jane' } } },
  { name: 'D27 claim names without sources', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', _claim_names: {} }, want: { err: 'oidc: could not expand distributed claims: oidc: no claim sources' } },
  { name: 'D28 distributed endpoint 404', cfg: (c) => (c.claimMappings.groups = u('groups', '')), claims: { username: 'jane', ...distributed('missing') }, want: { err: 'oidc: could not expand distributed claims: while getting distributed claim "groups": error while getting distributed claim JWT: 404 Not Found' } },
  { name: 'int vs double claims in CEL', cfg: (c) => (c.claimValidationRules = [{ expression: 'type(claims.i) == int && type(claims.d) == double && type(claims.f) == double && claims.big == 9007199254740993' }]), text: `{"iss":"${URL}","aud":"my-client","exp":${VALID},"username":"jane","i":1,"d":1.0,"f":1e3,"big":9007199254740993}`, want: { user: { username: 'jane' } } },
];

async function metricCount(result: string, issuerURL: string): Promise<number> {
  const m = await register.getSingleMetric('apiserver_authentication_jwt_authenticator_latency_seconds')!.get();
  return m.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels.result === result && v.labels.jwt_issuer_hash === sha256Label(issuerURL))?.value ?? 0;
}

test.each(cases().map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  // `cases()` is evaluated before beforeAll; rebuild the row now that URL and keys exist.
  const row = cases().find((x) => x.name === c.name)!;
  const cfg = config(row);
  issuer.discovery();
  issuer.discovery(cfg.issuer.url, new globalThis.URL(cfg.issuer.discoveryURL ?? `${URL}/x`).pathname);
  issuer.discovery();
  issuer.keys(row.keys ? row.keys() : [K1, K2, EC1, EC2]);
  const signKey = row.sign?.key ?? K1;
  const alg = row.sign?.alg ?? 'RS256';
  if (row.endpoint) {
    const claims = { iss: URL, aud: 'my-client', exp: VALID, ...row.endpoint.claims };
    issuer.routes.set(`/${row.endpoint.path}`, { body: signJwt(claims, K1), auth: `Bearer ${row.endpoint.path}_token`, headers: { 'content-type': 'application/jwt' } });
  }
  const opts: JwtAuthenticatorOptions = { compile, now: () => NOW * 1000, log: () => undefined, supportedSigningAlgs: row.algs };
  if (row.want.init) {
    expect(() => new JwtAuthenticator(cfg, opts)).toThrow(row.want.init);
    return;
  }
  const a = new JwtAuthenticator(cfg, opts);
  try {
    await a.firstAttempt();
    a.healthCheck();
    const claims: Record<string, unknown> = row.rawClaims ? { iss: cfg.issuer.url, ...row.rawClaims } : { iss: cfg.issuer.url, aud: 'my-client', exp: VALID, ...row.claims };
    for (const k of row.omit ?? []) delete claims[k];
    const token = row.text ? signJwt(row.text, signKey, alg) : alg === 'HS256' ? `${Buffer.from(JSON.stringify({ alg, kid: K1.kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln` : signJwt(claims, signKey, alg);
    const before = { success: await metricCount('success', cfg.issuer.url), failure: await metricCount('failure', cfg.issuer.url) };
    if (row.want.skip) {
      expect(await a.authenticateToken(token)).toBeNull();
      expect(await metricCount('success', cfg.issuer.url)).toBe(before.success);
      expect(await metricCount('failure', cfg.issuer.url)).toBe(before.failure);
    } else if (row.want.err !== undefined) {
      await expect(a.authenticateToken(token)).rejects.toThrow(new Error(row.want.err));
      expect(await metricCount('failure', cfg.issuer.url)).toBe(before.failure + 1);
    } else {
      const w = row.want.user!;
      expect(await a.authenticateToken(token)).toEqual({ user: { username: w.username, uid: w.uid ?? '', groups: w.groups ?? [], extra: w.extra ?? {} } });
      expect(await metricCount('success', cfg.issuer.url)).toBe(before.success + 1);
    }
  } finally {
    a.close();
  }
});
