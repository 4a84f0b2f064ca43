// End to end: TLS bootstrap on one cluster from the built binaries: the API server with Node,RBAC, bootstrap
// token authentication and the cluster CA as client CA and signing CA (60s certificates, so rotation happens
// during the test); the administrator creates a bootstrap token Secret and kubeadm's bindings with kubectl 1.33.
// A node agent with only a bootstrap clconfig joins with no further admin step, rotates its client certificate,
// and gets its serving certificate once an administrator approves it; a refused token stops an agent; a manual
// request can be denied. The cases share the cluster, in order.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { PemPair } from '@cl/pki';
import { waitFor as poll } from '@cl/testing';
import { CletProcess, startClet, startJoinedAgent } from './clet-harness';
import { newCertificateRequest } from '../src/certificates/csr-client';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(300_000);

const NODE = 'boot-node';
const TOKEN = 'abcdef.0123456789abcdef';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let ca: PemPair;
let tmp: string;
let clet: CletProcess | undefined;
const { k, ok, file } = kubectlHelpers(() => api);
const b64 = (t: string) => Buffer.from(t).toString('base64');

function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  return poll(async () => fn(), what, 1500, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-3000)}\napiserver:\n${api.output().slice(-3000)}`);
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
const maybe = (...args: string[]): any => {
  const r = k(...args, '-o', 'json');
  return r.status === 0 ? JSON.parse(r.stdout) : undefined;
};

/** A kubeconfig for the cluster with a bearer token. */
function tokenKubeconfig(name: string, token: string): string {
  const f = path.join(tmp, `${name}.kubeconfig`);
  fs.writeFileSync(f, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${b64(api.servingCA())}`,
    'users:', '- name: u', '  user:', `    token: ${token}`, 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return f;
}

/** A bootstrap token Secret as kubeadm writes it. */
function tokenSecret(id: string, secret: string, expiration?: string): string {
  return ['apiVersion: v1', 'kind: Secret', 'metadata:', `  name: bootstrap-token-${id}`, '  namespace: kube-system', 'type: bootstrap.kubernetes.io/token', 'stringData:',
    `  token-id: ${id}`, `  token-secret: ${secret}`, ...(expiration ? [`  expiration: ${expiration}`] : []), '  usage-bootstrap-authentication: "true"',
    '  auth-extra-groups: system:bootstrappers:kubeadm:default-node-token', ''].join('\n');
}

type Csr = { metadata: { name: string }; spec: { signerName: string; username: string; usages: string[] }; status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string }> } };
const csrs = (): Csr[] => maybe('get', 'csr')?.items ?? [];
const certOf = (c: Csr) => new X509Certificate(Buffer.from(c.status!.certificate!, 'base64').toString('utf8'));
const nodeReady = () => maybe('get', 'node', NODE)?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-tlsboot-'));
  ctd = await startContainerd();
  // The agent loads @cl/pki lazily; so does this suite.
  const { createCA, issueClientCert } = await import('@cl/pki');
  ca = await createCA('tls-bootstrap-ca');
  fs.writeFileSync(path.join(tmp, 'ca.crt'), ca.certPem);
  fs.writeFileSync(path.join(tmp, 'ca.key'), ca.keyPem);
  api = await startApiserverProcess([
    '--authorization-mode=Node,RBAC', '--enable-bootstrap-token-auth', `--client-ca-file=${path.join(tmp, 'ca.crt')}`,
    `--cluster-signing-cert-file=${path.join(tmp, 'ca.crt')}`, `--cluster-signing-key-file=${path.join(tmp, 'ca.key')}`, '--cluster-signing-duration=60s',
  ]);
  const admin = await issueClientCert(ca, { cn: 'boot-admin', groups: ['system:masters'] });
  writeKubeconfig(api, { 'client-certificate-data': b64(admin.certPem), 'client-key-data': b64(admin.keyPem) });
  // What `kubeadm init` sets up for joining nodes.
  ok('apply', '-f', file('token.yaml', tokenSecret('abcdef', '0123456789abcdef')));
  ok('create', 'clusterrolebinding', 'kubelet-bootstrap', '--clusterrole=system:node-bootstrapper', '--group=system:bootstrappers');
  ok('create', 'clusterrolebinding', 'node-autoapprove-bootstrap', '--clusterrole=system:certificates.k8s.io:certificatesigningrequests:nodeclient', '--group=system:bootstrappers');
  ok('create', 'clusterrolebinding', 'node-autoapprove-certificate-rotation', '--clusterrole=system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', '--group=system:nodes');
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('an agent with only a bootstrap token gets its client certificate approved and issued, writes its clconfig and turns Ready', async () => {
  fs.mkdirSync(path.join(tmp, 'node'));
  const clconfig = path.join(tmp, 'node', 'clet.conf');
  expect(fs.existsSync(clconfig)).toBe(false);
  clet = await startJoinedAgent({
    dir: path.join(tmp, 'node'), kubeconfig: clconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE,
    configLines: ['rotateCertificates: true', 'serverTLSBootstrap: true', 'nodeLeaseDurationSeconds: 4'],
    args: [`--bootstrap-clconfig=${tokenKubeconfig('bootstrap', TOKEN)}`],
  });
  await waitFor('the node to be Ready', nodeReady);

  const client = csrs().find((c) => c.spec.signerName === 'kubernetes.io/kube-apiserver-client-kubelet' && c.spec.username === 'system:bootstrap:abcdef');
  expect(client).toBeDefined();
  expect(client!.spec.usages).toEqual(['digital signature', 'client auth']);
  expect(client!.status!.conditions).toEqual([expect.objectContaining({ type: 'Approved', reason: 'AutoApproved' })]);
  const issued = certOf(client!);
  expect(issued.subject).toBe(`CN=system:node:${NODE}\nO=system:nodes`);
  expect(issued.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  // The signing duration bounds the lifetime.
  expect(Date.parse(issued.validTo) - Date.parse(issued.validFrom)).toBeLessThanOrEqual(60_000);

  const table = ok('get', 'csr', client!.metadata.name);
  expect(table).toMatch(/NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/);
  expect(table).toMatch(new RegExp(`${client!.metadata.name}\\s+\\S+\\s+kubernetes.io/kube-apiserver-client-kubelet\\s+system:bootstrap:abcdef\\s+<none>\\s+Approved,Issued`));

  // The written clconfig uses the current certificate file, which is the issued certificate and its key.
  expect(fs.readFileSync(clconfig, 'utf8')).toContain(path.join(tmp, 'node', 'pki', 'clet-client-current.pem'));
  const current = fs.readFileSync(path.join(tmp, 'node', 'pki', 'clet-client-current.pem'), 'utf8');
  expect(current).toMatch(/-----BEGIN CERTIFICATE-----[\s\S]+-----BEGIN PRIVATE KEY-----/);
  expect(fs.readlinkSync(path.join(tmp, 'node', 'pki', 'clet-client-current.pem'))).toMatch(/clet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
});

test('with rotateCertificates a new client certificate is issued before the first expires, and the node stays Ready', async () => {
  const first = csrs().find((c) => c.spec.username === 'system:bootstrap:abcdef')!;
  const firstExpiry = Date.parse(certOf(first).validTo);
  const renewal = await waitFor('a renewal issued to the node itself', () =>
    csrs().find((c) => c.spec.signerName === 'kubernetes.io/kube-apiserver-client-kubelet' && c.spec.username === `system:node:${NODE}` && c.status?.certificate));
  expect(renewal.status!.conditions).toEqual([expect.objectContaining({ type: 'Approved', reason: 'AutoApproved' })]);
  // Renewed at 70-90% of the lifetime: before the first one ended.
  expect(Date.parse(certOf(renewal).validFrom)).toBeLessThan(firstExpiry);
  // After the first certificate has expired the node still heartbeats with the new one.
  await waitFor('the first certificate to expire', () => Date.now() > firstExpiry + 2000);
  const lease = maybe('get', 'lease', '-n', 'kube-node-lease', NODE);
  await waitFor('a lease renewal after the expiry', () => maybe('get', 'lease', '-n', 'kube-node-lease', NODE)?.spec.renewTime !== lease.spec.renewTime);
  expect(nodeReady()).toBe(true);
  expect(clet!.child.exitCode).toBeNull();
});

test('serverTLSBootstrap: the serving request waits for an administrator, then the port serves the issued certificate', async () => {
  const serving = await waitFor('a pending kubelet-serving request', () => csrs().find((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving'));
  expect(serving.spec.username).toBe(`system:node:${NODE}`);
  expect(serving.status?.conditions ?? []).toEqual([]);
  expect(ok('get', 'csr', serving.metadata.name)).toMatch(/Pending/);
  ok('certificate', 'approve', serving.metadata.name);
  await waitFor('the serving certificate to be issued', () => maybe('get', 'csr', serving.metadata.name)?.status?.certificate);
  const port = Number(/--port=(\d+)/.exec(clet!.child.spawnargs.join(' '))![1]);
  const peer = await waitFor('the agent to serve TLS', () =>
    new Promise<tls.PeerCertificate | undefined>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(s.getPeerCertificate());
        s.destroy();
      });
      s.on('error', () => resolve(undefined));
    }));
  const cert = new X509Certificate(peer.raw);
  expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  expect(cert.subject).toBe(`CN=system:node:${NODE}\nO=system:nodes`);
  expect(cert.subjectAltName).toContain(`DNS:${NODE}`);
  expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
});

test('an expired or unknown bootstrap token is refused: the agent exits non-zero and says why', async () => {
  ok('apply', '-f', file('expired.yaml', tokenSecret('expird', '0123456789abcdef', '2020-01-01T00:00:00Z')));
  for (const [name, token] of [['expired', 'expird.0123456789abcdef'], ['unknown', 'nosuch.0123456789abcdef']]) {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir);
    const config = path.join(dir, 'clet.yaml');
    fs.writeFileSync(config, ['apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'failSwapOn: false', 'failCgroupV1: false', `containerRuntimeEndpoint: ${ctd.endpoint}`, ''].join('\n'));
    const p = await startClet([`--config=${config}`, `--clconfig=${path.join(dir, 'clet.conf')}`, `--bootstrap-clconfig=${tokenKubeconfig(name, token)}`,
      `--root-dir=${path.join(dir, 'root')}`, `--cert-dir=${path.join(dir, 'pki')}`, `--hostname-override=${name}-node`]);
    const code = await p.exited;
    expect(code).not.toBe(0);
    expect(p.stderr()).toMatch(/unable to bootstrap the client certificate: cannot create certificate signing request: .*Unauthorized/);
    expect(fs.existsSync(path.join(dir, 'clet.conf'))).toBe(false);
  }
});

test('a manual request: validation as upstream, and kubectl certificate deny shows Denied', async () => {
  const { csrPem } = await newCertificateRequest({ signerName: 'kubernetes.io/kube-apiserver-client', nodeName: 'jane' });
  const manifest = (name: string, extra: string[]) => ['apiVersion: certificates.k8s.io/v1', 'kind: CertificateSigningRequest', `metadata: {name: ${name}}`, 'spec:',
    `  request: ${b64(csrPem)}`, '  signerName: kubernetes.io/kube-apiserver-client', '  usages: [client auth]', ...extra, ''].join('\n');
  const short = k('create', '-f', file('short.yaml', manifest('short', ['  expirationSeconds: 300'])));
  expect(short.status).not.toBe(0);
  expect(short.stderr).toContain('spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds (10 minutes)');

  // The requestor comes from the credentials, not from the body.
  ok('create', '-f', file('manual.yaml', manifest('manual', ['  expirationSeconds: 3600', '  username: someone-else'])));
  const created = maybe('get', 'csr', 'manual');
  expect(created.spec.username).toBe('boot-admin');
  expect(created.spec.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
  ok('certificate', 'deny', 'manual');
  expect(ok('get', 'csr', 'manual')).toMatch(/manual\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+boot-admin\s+60m\s+Denied\n/);
  expect(maybe('get', 'csr', 'manual').status.conditions).toEqual([expect.objectContaining({ type: 'Denied', status: 'True', reason: 'KubectlDeny' })]);
  // Denied stays denied: the approval cannot add Approved beside it.
  const both = k('certificate', 'approve', 'manual');
  expect(both.status).not.toBe(0);
  expect(both.stderr).toMatch(/Denied|mutually exclusive/);
});
