// Configuration files given to the API server: a bad file stops start-up with every error listed, exit 1,
// before any port is bound; good files start it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@cl/testing';
import { MAIN, httpsGet, startApiserverProcess } from './harness';

jest.setTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), 'cl-apiserver-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function run(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, `--data-dir=${dir}/data`, `--cert-dir=${dir}/certs`, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

test('a bad egress selector file lists every error and exits 1 before binding', async () => {
  const egress = file(
    'egress.yaml',
    [
      'apiVersion: apiserver.k8s.io/v1beta1',
      'kind: EgressSelectorConfiguration',
      'egressSelections:',
      '- name: cluster',
      '  connection:',
      '    proxyProtocol: GRPC',
      '    transport:',
      '      tcp:',
      '        url: https://127.0.0.1:8131',
      '- name: nodes',
      '  connection:',
      '    proxyProtocol: Direct',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const r = run([`--secure-port=${port}`, `--egress-selector-config-file=${egress}`]);
  expect(r.status).toBe(1);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('Error: '));
  expect(lines.length).toBeGreaterThanOrEqual(2);
  // Upstream's egress validator names its fields `service.connection...` (config-validation.md §5.2).
  expect(r.stderr).toContain(`Error: ${egress}: service.connection.uds: Required value: UDS must be set with GRPC`);
  expect(r.stderr).toContain(`Error: ${egress}: service.connection: Unsupported value: "nodes": supported values: "cluster", "controlplane", "etcd"`);
  await expect(httpsGet({ port }, '/livez')).rejects.toThrow(/ECONNREFUSED/);
});

test('unknown fields are strict decoding errors with their paths', () => {
  const tracing = file('tracing.yaml', 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: localhost:4317\nsamplingRate: 5\n');
  const r = run([`--tracing-config-file=${tracing}`]);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('strict decoding error: unknown field "samplingRate"');
});

test('missing files are named', () => {
  const r = run(['--admission-control-config-file=/nonexistent/admission.yaml', '--egress-selector-config-file=/nonexistent/egress.yaml']);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('egress-selector-config-file /nonexistent/egress.yaml does not exist');
  expect(r.stderr).toContain('unable to read admission control configuration from "/nonexistent/admission.yaml"');
});

test('valid admission, egress and tracing files start the server; the admission initializer resolves plugin files', async () => {
  file('plugin.yaml', 'kind: ImagePolicyConfig\nallowTTL: 50\n');
  const admission = file(
    'admission.yaml',
    'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: plugin.yaml\n- name: EventRateLimit\n  configuration:\n    kind: Configuration\n',
  );
  const egress = file('egress-ok.yaml', 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n');
  const tracing = file('tracing-ok.yaml', 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n');
  const api = await startApiserverProcess([`--admission-control-config-file=${admission}`, `--egress-selector-config-file=${egress}`, `--tracing-config-file=${tracing}`]);
  try {
    expect((await httpsGet(api, '/readyz/poststarthook/start-cl-apiserver-admission-initializer')).body).toBe('ok');
    expect(api.output()).toContain('admission plugin "ImagePolicyWebhook": configuration of');
  } finally {
    await api.cleanup();
  }
});

test('errors of every configuration file are listed together, authentication and authorization included', () => {
  const egress = file('egress-bad2.yaml', 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: nodes\n  connection:\n    proxyProtocol: Direct\n');
  const authn = file(
    'authn-bad.yaml',
    'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: http://not-https.example\n    audiences: [a]\n  claimMappings:\n    username:\n      claim: sub\n',
  );
  const authz = file('authz-bad.yaml', 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 45s\n');
  const r = run([`--egress-selector-config-file=${egress}`, `--authentication-config=${authn}`, `--authorization-config=${authz}`]);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('Unsupported value: "nodes"');
  expect(r.stderr).toContain('jwt[0].issuer.url: Invalid value: "http://not-https.example": URL scheme must be https');
  expect(r.stderr).toContain('jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set');
  // Upstream reports webhook fields on the authorizer's own path (config-validation.md §4.2).
  expect(r.stderr).toContain(`${authz}: authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s`);
});
