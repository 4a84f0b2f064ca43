import {
  decodeAuthenticationConfiguration,
  decodeAuthorizationConfiguration,
  decodeEgressSelectorConfiguration,
  decodeTracingConfiguration,
  loadAuthenticationConfigurationFile,
  loadConfig,
} from '../src';
import { loadErrors, TempDir } from './helpers';

const tmp = new TempDir();
afterAll(() => tmp.remove());

const AUTHN = 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n';
const AUTHZ = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n';
const EGRESS = 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\n';

const err = (f: () => unknown) => loadErrors(f);

describe('strict decoding', () => {
  test.each([
    ['unknown top-level field (YAML)', () => decodeAuthenticationConfiguration(`${AUTHN}jwt1: []\n`), ['strict decoding error: unknown field "jwt1"']],
    [
      'unknown nested field with index (YAML)',
      () => decodeEgressSelectorConfiguration(`${EGRESS}egressSelections:\n- name: cluster\n  foo: 1\n  connection: {proxyProtocol: Direct}\n`),
      ['strict decoding error: unknown field "egressSelections[0].foo"'],
    ],
    [
      'field names are case-sensitive',
      () => decodeAuthenticationConfiguration(`${AUTHN}jwt:\n- issuer:\n    URL: https://x\n`),
      ['strict decoding error: unknown field "jwt[0].issuer.URL"'],
    ],
    [
      'duplicate field (JSON), reported on the second occurrence',
      () =>
        decodeAuthorizationConfiguration(
          '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[{"type":"RBAC","name":"a","name":"b"}]}',
        ),
      ['strict decoding error: duplicate field "authorizers[0].name"'],
    ],
    [
      'unknown and duplicate JSON fields in document order',
      () => decodeAuthenticationConfiguration('{"kind":"AuthenticationConfiguration","apiVersion":"apiserver.config.k8s.io/v1beta1","zz":1,"jwt":[],"jwt":[],"aa":2}'),
      ['strict decoding error: unknown field "zz", duplicate field "jwt", unknown field "aa"'],
    ],
    [
      'YAML unknown fields come out in sorted key order',
      () => decodeAuthenticationConfiguration(`${AUTHN}zz: 1\naa: 2\n`),
      ['strict decoding error: unknown field "aa", unknown field "zz"'],
    ],
    [
      'YAML duplicate keys first, with the line of the value, then unknown fields',
      () => decodeTracingConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: a:1\nendpoint: b:1\nfoo: 1\n'),
      ['unable to decode tracing configuration data: strict decoding error: yaml: unmarshal errors:\n  line 4: key "endpoint" already set in map, unknown field "foo"'],
    ],
    [
      'YAML duplicate with a block mapping value: the line of its first key',
      () => decodeAuthenticationConfiguration(`${AUTHN}anonymous:\n  enabled: true\nanonymous:\n\n  enabled: false\n`),
      ['strict decoding error: yaml: unmarshal errors:\n  line 7: key "anonymous" already set in map'],
    ],
    [
      'type mismatch',
      () => decodeAuthenticationConfiguration(`${AUTHN}jwt:\n- issuer:\n    audiences: abc\n`),
      ['json: cannot unmarshal string into Go struct field Issuer.jwt.issuer.audiences of type []string'],
    ],
    [
      'int32 out of range',
      () => decodeTracingConfiguration('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 3000000000\n'),
      [
        'unable to decode tracing configuration data: json: cannot unmarshal number 3000000000 into Go struct field TracingConfiguration.samplingRatePerMillion of type int32',
      ],
    ],
    [
      'bad duration',
      () => decodeAuthorizationConfiguration(`${AUTHZ}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: abc\n`),
      ['time: invalid duration "abc"'],
    ],
    [
      'duration without unit',
      () => decodeAuthorizationConfiguration(`${AUTHZ}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: "5"\n`),
      ['time: missing unit in duration "5"'],
    ],
    ['null duration', () => decodeAuthorizationConfiguration(`${AUTHZ}authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: null\n`), ['time: invalid duration ""']],
    ['missing kind quotes the file', () => decodeAuthenticationConfiguration('{"jwt":[]}'), [`Object 'Kind' is missing in '{"jwt":[]}'`]],
    [
      'missing apiVersion',
      () => decodeAuthenticationConfiguration('kind: AuthenticationConfiguration\n'),
      [`Object 'apiVersion' is missing in 'kind: AuthenticationConfiguration\n'`],
    ],
    ['empty authentication file', () => decodeAuthenticationConfiguration(''), ['empty config data']],
    ['empty egress file', () => decodeEgressSelectorConfiguration(''), [`Object 'Kind' is missing in ''`]],
    [
      'authentication has no v1',
      () => decodeAuthenticationConfiguration('apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n'),
      ['no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/apis/apiserver/install/install.go"'],
    ],
    [
      'egress is not in the config group',
      () => decodeEgressSelectorConfiguration('apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: EgressSelectorConfiguration\n'),
      ['no kind "EgressSelectorConfiguration" is registered for version "apiserver.config.k8s.io/v1alpha1" in scheme "k8s.io/apiserver/pkg/apis/apiserver/install/install.go"'],
    ],
    ['authentication loader given another kind', () => decodeAuthenticationConfiguration(AUTHZ), ['expected AuthenticationConfiguration, got *apiserver.AuthorizationConfiguration']],
    ['authorization loader given another kind', () => decodeAuthorizationConfiguration(AUTHN), ['expected AuthorizationConfiguration, got *apiserver.AuthenticationConfiguration']],
    ['egress loader given another kind', () => decodeEgressSelectorConfiguration(AUTHZ), ['unexpected config type: apiserver.config.k8s.io/v1, Kind=AuthorizationConfiguration']],
    ['YAML syntax error', () => decodeAuthenticationConfiguration(`${AUTHN}jwt: [\n`), ['error converting YAML to JSON: yaml: line 4: Flow sequence in block collection must be sufficiently indented and end with a ]']],
    ['JSON syntax error', () => decodeAuthenticationConfiguration('{"kind": }'), ["couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value"]],
  ])('%s', (_n, f, expected) => {
    expect(err(f)).toEqual(expected);
  });

  test('YAML 1.1 scalars: yes/on are booleans', () => {
    const c = decodeAuthenticationConfiguration(`${AUTHN}anonymous:\n  enabled: yes\n`);
    expect(c.anonymous).toEqual({ enabled: true, conditions: [] });
    expect(err(() => decodeAuthenticationConfiguration(`${AUTHN}jwt:\n- issuer:\n    url: on\n`))).toEqual([
      'json: cannot unmarshal bool into Go struct field Issuer.jwt.issuer.url of type string',
    ]);
  });

  test('prefix: absent or null is unset, "" is set', () => {
    const c = decodeAuthenticationConfiguration(
      `${AUTHN}jwt:\n- issuer: {url: "https://a", audiences: [a]}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n    groups: {claim: g, prefix: null}\n`,
    );
    expect(c.jwt![0]!.claimMappings.username.prefix).toBe('');
    expect(c.jwt![0]!.claimMappings.groups!.prefix).toBeUndefined();
    expect(c.jwt![0]!.issuer.discoveryURL).toBe('');
  });

  test('loadConfig detects the kind', () => {
    expect(loadConfig(`${EGRESS}egressSelections: []\n`).kind).toBe('EgressSelectorConfiguration');
    expect(err(() => loadConfig('apiVersion: v1\nkind: Pod\n'))).toEqual([
      'unsupported kind "Pod": expected one of AuthenticationConfiguration, AuthorizationConfiguration, EgressSelectorConfiguration, TracingConfiguration, AdmissionConfiguration',
    ]);
  });

  test('a missing file', () => {
    expect(err(() => loadAuthenticationConfigurationFile('/nonexistent/authn.yaml'))).toEqual(['open /nonexistent/authn.yaml: no such file or directory']);
  });

  test('the upstream example file loads unchanged', () => {
    const path = tmp.write(`apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://example.com
    discoveryURL: https://discovery.example.com/.well-known/openid-configuration
    audiences:
    - my-app
    - my-other-app
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - expression: 'claims.hd == "example.com"'
    message: the hd claim must be set to example.com
  - claim: admin
    requiredValue: "true"
  claimMappings:
    username:
      expression: 'claims.username + ":external-user"'
    groups:
      expression: 'claims.roles.split(",")'
    uid:
      expression: 'claims.sub'
    extra:
    - key: 'example.com/tenant'
      valueExpression: 'claims.tenant'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: 'username cannot used reserved system: prefix'
  - expression: "user.groups.all(group, !group.startsWith('system:'))"
    message: 'groups cannot used reserved system: prefix'
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
  - path: /healthz
`);
    const c = loadAuthenticationConfigurationFile(path);
    expect(c.jwt![0]!.claimMappings.groups!.compiled!.evaluate({ claims: { roles: 'a,b' } })).toEqual(['a', 'b']);
    expect(c.anonymous!.conditions!.map((x) => x.path)).toEqual(['/livez', '/readyz', '/healthz']);
  });
});
