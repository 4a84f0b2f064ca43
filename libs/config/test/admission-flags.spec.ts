import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  admissionPluginConfiguration,
  loadAdmissionConfigurationFile,
  validateApiserverConfigFlags,
  type ApiserverConfigFlags,
} from '../src';
import { loadErrors, TempDir } from './helpers';

const tmp = new TempDir();
mkdirSync(join(tmp.dir, 'plugins'));
const pluginFile = tmp.write('apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n', 'plugins/eventratelimit.yaml');
const ADMISSION = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n';
afterAll(() => tmp.remove());

describe('AdmissionConfiguration loading', () => {
  test('relative paths resolve against the config folder; the embedded object wins over path', () => {
    const path = tmp.write(
      `${ADMISSION}plugins:\n- name: EventRateLimit\n  path: plugins/eventratelimit.yaml\n- name: PodSecurity\n  path: ignored.yaml\n  configuration:\n    kind: PodSecurityConfiguration\n    apiVersion: pod-security.admission.config.k8s.io/v1\n- name: NoConfig\n`,
      'admission.yaml',
    );
    const c = loadAdmissionConfigurationFile(path);
    expect(c.plugins[0]!.path).toBe(pluginFile);
    expect(admissionPluginConfiguration(c, 'EventRateLimit')).toBe('apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n');
    // YAML: compact JSON with sorted keys
    expect(admissionPluginConfiguration(c, 'PodSecurity')).toBe('{"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration"}');
    expect(admissionPluginConfiguration(c, 'NoConfig')).toBeNull();
    expect(admissionPluginConfiguration(c, 'Unlisted')).toBeNull();
  });

  test('JSON keeps the embedded bytes as written; the first entry of a name wins', () => {
    const path = tmp.write(
      '{"apiVersion":"apiserver.k8s.io/v1alpha1","kind":"AdmissionConfiguration","plugins":[{"name":"P","configuration":{"z": 1, "a": [true]}},{"name":"P","path":"/nonexistent"}]}',
      'admission.json',
    );
    expect(admissionPluginConfiguration(loadAdmissionConfigurationFile(path), 'P')).toBe('{"z": 1, "a": [true]}');
  });

  test.each([
    [
      'a missing plugin configuration file',
      `${ADMISSION}plugins:\n- name: EventRateLimit\n  path: plugins/missing.yaml\n`,
      [`plugins[0].path: Invalid value: "${join(tmp.dir, 'plugins/missing.yaml')}": couldn't open admission plugin configuration: open ${join(tmp.dir, 'plugins/missing.yaml')}: no such file or directory`],
    ],
    ['unknown fields of the kind', `${ADMISSION}plugins:\n- name: A\n  foo: 1\n`, ['strict decoding error: unknown field "plugins[0].foo"']],
    ['embedded configuration is not checked', `${ADMISSION}plugins:\n- name: A\n  configuration: {anything: [1, 2]}\n`, []],
    ['duplicate field', '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"a","name":"b"}]}', ['strict decoding error: duplicate field "plugins[0].name"']],
    ['no v1beta1', 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AdmissionConfiguration\n', ['no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/server/options/admission.go"']],
    ['another kind', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n', ['unexpected type: *apiserver.AuthorizationConfiguration']],
    ['missing kind', '{"plugins":[]}', [`Object 'Kind' is missing in '{"plugins":[]}'`]],
  ])('%s', (_n, text, expected) => {
    expect(loadErrors(() => loadAdmissionConfigurationFile(tmp.write(text, `admission-${Math.random()}.yaml`)))).toEqual(expected);
  });

  test('legacy files with imagePolicy configure the enabled ImagePolicyWebhook plugin', () => {
    const path = tmp.write('imagePolicy:\n  kubeConfigFile: /x\n', 'legacy.yaml');
    expect(loadAdmissionConfigurationFile(path, { pluginNames: ['ImagePolicyWebhook', 'NamespaceLifecycle'] }).plugins).toEqual([
      { name: 'ImagePolicyWebhook', path },
    ]);
  });

  test('a missing admission file', () => {
    expect(loadErrors(() => loadAdmissionConfigurationFile('/nonexistent/a.yaml'))).toEqual([
      'unable to read admission control configuration from "/nonexistent/a.yaml" [open /nonexistent/a.yaml: no such file or directory]',
    ]);
  });
});

describe('API server flag-versus-file rules', () => {
  const authnWithAnonymous = tmp.write(
    'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n',
    'authn-anon.yaml',
  );
  const authnWithout = tmp.write('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt: []\n', 'authn.yaml');
  test.each<[string, ApiserverConfigFlags, string[]]>([
    ['nothing set', {}, []],
    [
      'anonymous in the file and --anonymous-auth',
      { authenticationConfig: authnWithAnonymous, anonymousAuthFlagSet: true },
      ['anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file'],
    ],
    ['--anonymous-auth with a file without anonymous', { authenticationConfig: authnWithout, anonymousAuthFlagSet: true }, []],
    ['oidc flags with the file', { authenticationConfig: authnWithout, oidcFlagsSet: true }, ['authentication-config file and oidc-* flags are mutually exclusive']],
    ['oidc flags must pair', { oidcFlagsSet: true, oidcIssuerURL: 'https://x' }, ['oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set']],
    [
      'authentication gate off',
      { authenticationConfig: authnWithout, featureGates: { StructuredAuthenticationConfiguration: false } },
      ['set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file'],
    ],
    [
      '--authorization-config with --authorization-mode',
      { authorizationConfig: '/x', authorizationModeFlagSet: true },
      ['--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined'],
    ],
    [
      '--authorization-config with --authorization-webhook-*',
      { authorizationConfig: '/x', authorizationWebhookFlagsSet: true },
      ['--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined'],
    ],
    [
      'missing egress and tracing files',
      { egressSelectorConfigFile: '/nonexistent/e.yaml', tracingConfigFile: '/nonexistent/t.yaml' },
      ['egress-selector-config-file /nonexistent/e.yaml does not exist', 'tracing-config-file /nonexistent/t.yaml does not exist'],
    ],
    [
      'tracing gate off',
      { tracingConfigFile: authnWithout, featureGates: { APIServerTracing: false } },
      ['APIServerTracing feature is not enabled, but tracing config file was provided'],
    ],
  ])('%s', (_n, flags, expected) => {
    expect(validateApiserverConfigFlags(flags)).toEqual(expected);
  });
});
