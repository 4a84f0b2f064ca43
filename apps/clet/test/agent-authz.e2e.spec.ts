// End to end: the node agent authorizes callers of its https port with a SubjectAccessReview to the API server
// (`authorization: {mode: Webhook}`), on one cluster from the built binaries (the API server with Node,RBAC, a
// private containerd, the agent joined with a node client certificate). A CA-signed client "alice" without
// grants is refused by the agent, then admitted once RBAC grants nodes/proxy; through the API server the same
// user is refused by the API server's own RBAC before any call to the node.
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PemPair } from '@cl/pki';
import { waitFor as poll } from '@cl/testing';
import { CletProcess, startJoinedAgent } from './clet-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(300_000);

const NODE = 'authz-node';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let tmp: string;
let clet: (CletProcess & { port: number }) | undefined;
let alice: PemPair;
const { k, ok } = kubectlHelpers(() => api);

function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  return poll(async () => fn(), what, 1500, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-3000)}\napiserver:\n${api.output().slice(-3000)}`);
  });
}

const b64 = (t: string) => Buffer.from(t).toString('base64');

/** GET on the agent's https port with a client certificate. */
function agentGet(pathname: string, who: PemPair): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: clet!.port, path: pathname, cert: who.certPem, key: who.keyPem, rejectUnauthorized: false, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** A ClusterRole allowing `get` on nodes/proxy and its binding to one user. */
function grantNodesProxy(name: string, user: string): void {
  ok('create', 'clusterrole', name, '--verb=get', '--resource=nodes/proxy');
  ok('create', 'clusterrolebinding', name, `--clusterrole=${name}`, `--user=${user}`);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-agent-authz-'));
  ctd = await startContainerd();
  const { createCA, issueClientCert } = await import('@cl/pki');
  const ca = await createCA('agent-authz-ca');
  const caFile = path.join(tmp, 'ca.crt');
  fs.writeFileSync(caFile, ca.certPem);
  const apiClient = await issueClientCert(ca, { cn: 'kube-apiserver-kubelet-client' });
  fs.writeFileSync(path.join(tmp, 'kubelet-client.crt'), apiClient.certPem);
  fs.writeFileSync(path.join(tmp, 'kubelet-client.key'), apiClient.keyPem);
  api = await startApiserverProcess([
    '--authorization-mode=Node,RBAC', `--client-ca-file=${caFile}`, '--kubelet-preferred-address-types=InternalIP,Hostname',
    `--kubelet-client-certificate=${path.join(tmp, 'kubelet-client.crt')}`, `--kubelet-client-key=${path.join(tmp, 'kubelet-client.key')}`,
  ]);
  const admin = await issueClientCert(ca, { cn: 'authz-admin', groups: ['system:masters'] });
  writeKubeconfig(api, { 'client-certificate-data': b64(admin.certPem), 'client-key-data': b64(admin.keyPem) });
  alice = await issueClientCert(ca, { cn: 'alice' });
  const node = await issueClientCert(ca, { cn: `system:node:${NODE}`, groups: ['system:nodes'] });
  const nodeConfig = path.join(tmp, 'node.kubeconfig');
  fs.writeFileSync(nodeConfig, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${b64(api.servingCA())}`,
    'users:', '- name: u', '  user:', `    client-certificate-data: ${b64(node.certPem)}`, `    client-key-data: ${b64(node.keyPem)}`,
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  clet = await startJoinedAgent({
    dir: tmp, kubeconfig: nodeConfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE,
    configLines: [
      `authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: ${caFile}}}`,
      'authorization: {mode: Webhook}',
    ],
    // Denials are not cached, so a grant takes effect at once (default 30s; a zero in the file means the default,
    // as upstream's defaulting, so the flag says it).
    args: ['--authorization-webhook-cache-unauthorized-ttl=0s'],
  });
  await waitFor('the node to be Ready', () => {
    const r = k('get', 'node', NODE, '-o', 'json');
    return r.status === 0 && JSON.parse(r.stdout).status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
  });
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the agent refuses a caller its SubjectAccessReview denies, with upstream\'s message', async () => {
  expect(await agentGet('/pods', alice)).toEqual({ status: 403, body: 'Forbidden (user=alice, verb=get, resource=nodes, subresource(s)=[proxy])\n' });
});

test('through the API server, the same user is refused by the API server\'s own authorization', () => {
  const r = k('--as=alice', 'get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(`Error from server (Forbidden): nodes "${NODE}" is forbidden: User "alice" cannot get resource "nodes/proxy" in API group "" at the cluster scope`);
});

test('the API server\'s kubelet client is refused by the agent until RBAC lets it in', async () => {
  // The API server authenticates to the agent with --kubelet-client-certificate; the agent asks the API server.
  const refused = k('get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain('Forbidden (user=kube-apiserver-kubelet-client, verb=get, resource=nodes, subresource(s)=[proxy])');
  grantNodesProxy('apiserver-to-agent', 'kube-apiserver-kubelet-client');
  // RBAC's view of the new binding is eventually consistent (a watch), as upstream's informers.
  const pods = await waitFor('the agent to admit the API server', () => {
    const r = k('get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`);
    return r.status === 0 && JSON.parse(r.stdout);
  });
  expect(pods.kind).toBe('PodList');
});

test('after a ClusterRoleBinding grants nodes/proxy get, the same call to the agent succeeds', async () => {
  grantNodesProxy('alice-nodes-proxy', 'alice');
  const r = await waitFor('the agent to admit alice', async () => {
    const got = await agentGet('/pods', alice);
    return got.status !== 403 && got;
  });
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).kind).toBe('PodList');
  // Through the API server as well: its RBAC now admits alice, and the agent admits the API server.
  expect(JSON.parse(ok('--as=alice', 'get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`)).kind).toBe('PodList');
});
