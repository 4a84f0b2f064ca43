// Runs the built bin (`nx build config` first; the test target depends on it) the way a user would.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TempDir } from './helpers';

const BIN = join(__dirname, '..', 'dist', 'bin', 'cl-config.js');
const tmp = new TempDir();
afterAll(() => tmp.remove());

const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

describe('cl-config validate', () => {
  const valid = tmp.write(
    'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection: {proxyProtocol: Direct}\n',
    'egress.yaml',
  );
  const tracing = tmp.write('{"apiVersion":"apiserver.config.k8s.io/v1alpha1","kind":"TracingConfiguration","samplingRatePerMillion":100}', 'tracing.json');
  const invalid = tmp.write(
    'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "http://x", audiences: []}\n  claimMappings: {username: {claim: sub}}\n',
    'authn.yaml',
  );

  test('valid files: exit 0', () => {
    const r = run('validate', valid, tracing);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${valid}: valid EgressSelectorConfiguration\n${tracing}: valid TracingConfiguration\n`);
  });

  test('every error of every file, prefixed with the file: exit 1', () => {
    const r = run('validate', valid, invalid, '/nonexistent/x.yaml');
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `${invalid}: jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https`,
      `${invalid}: jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required`,
      `${invalid}: jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
      '/nonexistent/x.yaml: open /nonexistent/x.yaml: no such file or directory',
    ]);
  });

  test('an InClusterConfig webhook is refused, as the API server refuses it at start', () => {
    const authz = tmp.write(
      [
        'apiVersion: apiserver.config.k8s.io/v1beta1',
        'kind: AuthorizationConfiguration',
        'authorizers:',
        '- type: Webhook',
        '  name: w',
        '  webhook: {timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: InClusterConfig}}',
      ].join('\n'),
      'authz.yaml',
    );
    const r = run('validate', authz);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`${authz}: authorizers[0].connectionInfo.type: Invalid value: "InClusterConfig": not allowed for the API server, which has no in-cluster identity; use KubeConfigFile\n`);
  });

  test('usage', () => {
    const r = run();
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('usage: cl-config validate FILE...\n');
  });
});
