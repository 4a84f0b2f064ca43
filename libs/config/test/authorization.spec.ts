import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '@cl/flags';
import {
  loadAuthorizationConfigurationFile,
  validateAuthorizationConfiguration,
  type AuthorizationConfiguration,
  type AuthorizerConfiguration,
  type WebhookConfiguration,
} from '../src';
import { loadErrors, TempDir } from './helpers';

const tmp = new TempDir();
const kubeconfig = tmp.write('apiVersion: v1\nkind: Config\n', 'kubeconfig.yaml');
const folder = join(tmp.dir, 'folder');
mkdirSync(folder);
writeFileSync(join(tmp.dir, 'unused'), '');
afterAll(() => tmp.remove());

const webhook = (over: Partial<WebhookConfiguration> = {}): WebhookConfiguration => ({
  authorizedTTL: 300_000,
  unauthorizedTTL: 30_000,
  timeout: 3_000,
  subjectAccessReviewVersion: 'v1',
  matchConditionSubjectAccessReviewVersion: 'v1',
  failurePolicy: 'NoOpinion',
  connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
  ...over,
});
const wh = (over: Partial<WebhookConfiguration> = {}, name = 'webhook'): AuthorizerConfiguration => ({ type: 'Webhook', name, webhook: webhook(over) });
const cfg = (...authorizers: AuthorizerConfiguration[]): AuthorizationConfiguration => ({ authorizers });
const A0 = 'authorizers[0]';

// [name, config, validator errors, file errors when decoding changes the outcome (defaults)]
const cases: Array<[string, AuthorizationConfiguration, string[], string[]?]> = [
  ['valid webhook, RBAC and Node', cfg(wh(), { type: 'RBAC', name: 'rbac' }, { type: 'Node', name: 'node' }), []],
  ['no authorizers', cfg(), ['authorizers: Required value: at least one authorization mode must be defined']],
  ['type required', cfg({ type: '', name: 'x' }), [`${A0}.type: Required value`]],
  [
    'unknown type',
    cfg({ type: 'Foo', name: 'x' }),
    [`${A0}.type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`],
  ],
  ['duplicate non-webhook type', cfg({ type: 'RBAC', name: 'rbac' }, { type: 'RBAC', name: 'rbac2' }), ['authorizers[1].type: Duplicate value: "RBAC"']],
  ['webhooks may repeat', cfg(wh(), wh({}, 'second')), []],
  ['name required', cfg(wh({}, '')), [`${A0}.name: Required value`]],
  ['duplicate name', cfg(wh(), wh()), ['authorizers[1].name: Duplicate value: "webhook"']],
  [
    'invalid name',
    cfg(wh({}, 'Not_Valid')),
    [
      `${A0}.name: Invalid value: "Not_Valid": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ],
  ['webhook required for Webhook', cfg({ type: 'Webhook', name: 'w' }), [`${A0}.webhook: Required value: required when type=Webhook`]],
  [
    'webhook only for Webhook',
    cfg({ type: 'RBAC', name: 'rbac', webhook: webhook() }),
    [`${A0}.webhook: Invalid value: "non-null": may only be specified when type=Webhook`],
  ],
  ['timeout required', cfg(wh({ timeout: 0 })), [`${A0}.timeout: Required value`]],
  ['timeout above 30s', cfg(wh({ timeout: 60_000 })), [`${A0}.timeout: Invalid value: "1m0s": must be > 0s and <= 30s`]],
  ['negative timeout', cfg(wh({ timeout: -30_000 })), [`${A0}.timeout: Invalid value: "-30s": must be > 0s and <= 30s`]],
  ['timeout of exactly 30s', cfg(wh({ timeout: 30_000 })), []],
  [
    'TTLs required (defaulted when loaded from a file)',
    cfg(wh({ authorizedTTL: 0, unauthorizedTTL: 0 })),
    [`${A0}.authorizedTTL: Required value`, `${A0}.unauthorizedTTL: Required value`],
    [],
  ],
  [
    'negative TTLs',
    cfg(wh({ authorizedTTL: -1000, unauthorizedTTL: -1500 })),
    [`${A0}.authorizedTTL: Invalid value: "-1s": must be > 0s`, `${A0}.unauthorizedTTL: Invalid value: "-1.5s": must be > 0s`],
  ],
  ['SAR version required', cfg(wh({ subjectAccessReviewVersion: '' })), [`${A0}.subjectAccessReviewVersion: Required value`]],
  [
    'SAR version unsupported',
    cfg(wh({ subjectAccessReviewVersion: 'v2' })),
    [`${A0}.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"`],
  ],
  ['match condition SAR version not needed without conditions', cfg(wh({ matchConditionSubjectAccessReviewVersion: '' })), []],
  [
    'match condition SAR version required with conditions',
    cfg(wh({ matchConditionSubjectAccessReviewVersion: '', matchConditions: [{ expression: 'true' }] })),
    [`${A0}.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified`],
  ],
  [
    'match condition SAR version unsupported',
    cfg(wh({ matchConditionSubjectAccessReviewVersion: 'v1beta1' })),
    [`${A0}.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"`],
  ],
  ['failurePolicy required', cfg(wh({ failurePolicy: '' })), [`${A0}.failurePolicy: Required value`]],
  [
    'failurePolicy unsupported',
    cfg(wh({ failurePolicy: 'Allow' })),
    [`${A0}.failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"`],
  ],
  ['connection type required', cfg(wh({ connectionInfo: { type: '' } })), [`${A0}.connectionInfo.type: Required value`]],
  [
    'InClusterConfig with a kubeConfigFile',
    cfg(wh({ connectionInfo: { type: 'InClusterConfig', kubeConfigFile: '' } })),
    [`${A0}.connectionInfo.kubeConfigFile: Invalid value: "": can only be set when type=KubeConfigFile`],
  ],
  // Valid by upstream's validation; refused by the API server's own rule when loaded.
  [
    'InClusterConfig',
    cfg(wh({ connectionInfo: { type: 'InClusterConfig' } })),
    [],
    [`${A0}.connectionInfo.type: Invalid value: "InClusterConfig": not allowed for the API server, which has no in-cluster identity; use KubeConfigFile`],
  ],
  ['kubeConfigFile required', cfg(wh({ connectionInfo: { type: 'KubeConfigFile' } })), [`${A0}.connectionInfo.kubeConfigFile: Required value`]],
  [
    'kubeConfigFile relative',
    cfg(wh({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'kubeconfig' } })),
    [`${A0}.connectionInfo.kubeConfigFile: Invalid value: "kubeconfig": must be an absolute path`],
  ],
  [
    'kubeConfigFile missing',
    cfg(wh({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/nonexistent/kubeconfig' } })),
    [
      `${A0}.connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/kubeconfig": error loading file: stat /nonexistent/kubeconfig: no such file or directory`,
    ],
  ],
  [
    'kubeConfigFile a folder',
    cfg(wh({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: folder } })),
    [`${A0}.connectionInfo.kubeConfigFile: Invalid value: "${folder}": must be a regular file`],
  ],
  [
    'unsupported connection type',
    cfg(wh({ connectionInfo: { type: 'X' } })),
    [
      `${A0}.connectionInfo.type: Unsupported value: apiserver.WebhookConnectionInfo{Type:"X", KubeConfigFile:(*string)(nil)}: supported values: "InClusterConfig", "KubeConfigFile"`,
    ],
  ],
  [
    'at most 64 match conditions',
    cfg(wh({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ expression: `request.user == "u${i}"` })) })),
    [`${A0}.matchConditions: Too many: 65: must have at most 64 items`],
  ],
  ['64 match conditions', cfg(wh({ matchConditions: Array.from({ length: 64 }, (_, i) => ({ expression: `request.user == "u${i}"` })) })), []],
  [
    'match condition expressions',
    cfg(
      wh({
        matchConditions: [
          { expression: '  ' },
          { expression: "request.user == 'a'" },
          { expression: "request.user == 'a'" },
          { expression: 'request.user' },
          { expression: 'claims.x' },
        ],
      }),
    ),
    [
      `${A0}.matchConditions[0].expression: Required value`,
      `${A0}.matchConditions[2].expression: Duplicate value: "request.user == 'a'"`,
      `${A0}.matchConditions[3].expression: Invalid value: "request.user": must evaluate to bool but got string`,
      `${A0}.matchConditions[4].expression: Invalid value: "claims.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims' (in container '')\n | claims.x\n | ^`,
    ],
  ],
];

/** The file form: durations as Go duration strings. */
function fileForm(c: AuthorizationConfiguration) {
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthorizationConfiguration',
    authorizers: c.authorizers.map((a) =>
      a.webhook
        ? {
            ...a,
            webhook: {
              ...a.webhook,
              authorizedTTL: formatDuration(a.webhook.authorizedTTL),
              unauthorizedTTL: formatDuration(a.webhook.unauthorizedTTL),
              timeout: formatDuration(a.webhook.timeout),
            },
          }
        : a,
    ),
  };
}

describe('AuthorizationConfiguration validation', () => {
  test.each(cases)('validator: %s', (_n, c, expected) => {
    expect(validateAuthorizationConfiguration(structuredClone(c)).map((e) => e.message)).toEqual(expected);
  });

  test.each(cases.flatMap(([n, c, e, fe]) => (['json', 'yaml'] as const).map((f) => [n, f, c, fe ?? e] as const)))(
    'file (%s, %s)',
    (_n, format, c, expected) => {
      const path = tmp.writeDoc(fileForm(c), format);
      expect(loadErrors(() => loadAuthorizationConfigurationFile(path))).toEqual(expected);
    },
  );

  test('loading defaults the cache TTLs and attaches compiled match conditions', () => {
    const path = tmp.write(
      [
        'apiVersion: apiserver.config.k8s.io/v1beta1',
        'kind: AuthorizationConfiguration',
        'authorizers:',
        '- type: Webhook',
        '  name: webhook',
        '  webhook:',
        '    timeout: 3s',
        '    subjectAccessReviewVersion: v1',
        '    matchConditionSubjectAccessReviewVersion: v1',
        '    failurePolicy: Deny',
        `    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${JSON.stringify(tmp.write('apiVersion: v1\nkind: Config\n'))}}`,
        '    matchConditions:',
        "    - expression: has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'",
      ].join('\n'),
    );
    const c = loadAuthorizationConfigurationFile(path);
    const w = c.authorizers[0]!.webhook!;
    expect([w.authorizedTTL, w.unauthorizedTTL, w.timeout]).toEqual([300_000, 30_000, 3_000]);
    const mc = w.matchConditions![0]!.compiled!;
    expect(mc.evaluate({ request: { user: 'a', resourceAttributes: { namespace: 'kube-system', verb: 'get' } } })).toBe(true);
    expect(mc.evaluate({ request: { user: 'a', nonResourceAttributes: { path: '/healthz', verb: 'get' } } })).toBe(false);
  });

  test('an empty file is an empty configuration, which then fails validation', () => {
    expect(loadErrors(() => loadAuthorizationConfigurationFile(tmp.write('')))).toEqual([
      'authorizers: Required value: at least one authorization mode must be defined',
    ]);
  });

  test('kube-apiserver names non-webhook authorizers after their type', () => {
    const path = tmp.writeDoc(fileForm(cfg({ type: 'RBAC', name: 'foo' }, { type: 'Node', name: 'node' })), 'yaml');
    expect(loadErrors(() => loadAuthorizationConfigurationFile(path))).toEqual(['expected name rbac for authorizer RBAC instead of foo']);
  });
});
