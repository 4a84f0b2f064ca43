// End to end: service account tokens and API-object volumes on one cluster from the built binaries (the API
// server with Node,RBAC authorization and its own service-account keys, a private containerd, the node agent
// joined with a node client certificate), driven by kubectl 1.33. The cases share the cluster, in order.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { PemPair } from '@cl/pki';
import { waitFor as poll } from '@cl/testing';
import { CletProcess, removePodLogs, startJoinedAgent } from './clet-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectl, kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(300_000);

const NODE = 'sa-node';
const ISSUER = 'https://cl.test/sa-e2e';
const MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let busybox: string;
let tmp: string;
let clet: CletProcess | undefined;
/** A kubeconfig with the cluster and no credentials: tokens are given with --token. */
let bare: string;
/** The node's own credentials (what the agent uses). */
let nodeConfig = '';
const { k, ok, file } = kubectlHelpers(() => api);
const SLEEPER = 'trap "exit 0" TERM; sleep 3600 & wait';

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

const b64 = (t: string) => Buffer.from(t).toString('base64');
function kubeconfigFor(name: string, user: PemPair | null): string {
  const f = path.join(tmp, `${name}.kubeconfig`);
  const userLines = user ? [`    client-certificate-data: ${b64(user.certPem)}`, `    client-key-data: ${b64(user.keyPem)}`] : ['    {}'];
  fs.writeFileSync(f, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${b64(api.servingCA())}`,
    'users:', '- name: u', '  user:', ...userLines, 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  return f;
}

/** The pod's volume directory on the node, for the volume whose name starts with `prefix`. */
function volumeDir(pod: { metadata: { uid: string }; spec: { volumes: Array<{ name: string }> } }, kind: string, prefix: string): string {
  const v = pod.spec.volumes.find((x) => x.name.startsWith(prefix))!;
  return path.join(tmp, 'root', 'pods', pod.metadata.uid, 'volumes', kind, v.name);
}

const whoami = (token: string) => kubectl(bare, ['auth', 'whoami', `--token=${token}`, '-o', 'json']);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-sa-'));
  ctd = await startContainerd();
  busybox = ensureTestImages(ctd.socket).busybox;
  const { createCA, issueClientCert } = await import('@cl/pki');
  const ca = await createCA('sa-e2e-client-ca');
  fs.writeFileSync(path.join(tmp, 'client-ca.crt'), ca.certPem);
  // An ECDSA signing key; the verification file holds its public half only.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  fs.writeFileSync(path.join(tmp, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(path.join(tmp, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  api = await startApiserverProcess([
    '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', '--kubelet-preferred-address-types=InternalIP,Hostname', `--client-ca-file=${path.join(tmp, 'client-ca.crt')}`,
    `--service-account-issuer=${ISSUER}`, `--service-account-signing-key-file=${path.join(tmp, 'sa.key')}`, `--service-account-key-file=${path.join(tmp, 'sa.pub')}`,
  ]);
  const admin = await issueClientCert(ca, { cn: 'sa-admin', groups: ['system:masters'] });
  writeKubeconfig(api, { 'client-certificate-data': b64(admin.certPem), 'client-key-data': b64(admin.keyPem) });
  bare = kubeconfigFor('bare', null);
  nodeConfig = kubeconfigFor('node', await issueClientCert(ca, { cn: `system:node:${NODE}`, groups: ['system:nodes'] }));
  // A short sync period: volume contents are refreshed at each pod sync.
  clet = await startJoinedAgent({ dir: tmp, kubeconfig: nodeConfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE, configLines: ['syncFrequency: 2s'] });
  await waitFor('the default service account and kube-root-ca.crt', () => maybe('get', 'serviceaccount', 'default') && maybe('get', 'configmap', 'kube-root-ca.crt'));
  await waitFor('the node to be Ready', () => maybe('get', 'node', NODE)?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'));
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  for (const name of ['reader', 'consumer', 'grouped', 'waiter', 'claimant', 'vaulted']) removePodLogs('default', name);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function podManifest(name: string, spec: Record<string, unknown>): string {
  return file(`${name}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { terminationGracePeriodSeconds: 1, ...spec } }));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let reader: any;
let readerToken = '';

test('a pod gets the kube-api-access volume and its mounted token authenticates as the service account', async () => {
  // What the container sees at the mount path, in its log (no exec needed).
  ok('create', '-f', podManifest('reader', { containers: [{ name: 'c', image: busybox, command: ['sh', '-c', `cd ${MOUNT} && cat token && echo && cat namespace && echo && cat ca.crt; ${SLEEPER}`] }] }));
  reader = await waitFor('reader to run', () => {
    const p = maybe('get', 'pod', 'reader');
    return p?.status?.phase === 'Running' && p;
  });
  // The admission plugin's volume and mount, as upstream's.
  const volume = reader.spec.volumes.find((v: { name: string }) => /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(v.name));
  expect(volume.projected.sources[0]).toEqual({ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
  expect(reader.spec.containers[0].volumeMounts).toContainEqual({ name: volume.name, mountPath: MOUNT, readOnly: true });
  readerToken = fs.readFileSync(path.join(volumeDir(reader, 'kubernetes.io~projected', 'kube-api-access-'), 'token'), 'utf8');
  // The container sees the same token at the mount path.
  const seen = await waitFor('reader\'s log', () => ok('logs', 'reader') || undefined);
  expect(seen.split('\n')[0]).toBe(readerToken);
  const r = whoami(readerToken);
  expect(r.stderr).toBe('');
  const user = JSON.parse(r.stdout).status.userInfo;
  expect(user.username).toBe('system:serviceaccount:default:default');
  expect(user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  expect(user.extra['authentication.kubernetes.io/pod-name']).toEqual(['reader']);
  expect(user.extra['authentication.kubernetes.io/pod-uid']).toEqual([reader.metadata.uid]);
  expect(user.extra['authentication.kubernetes.io/node-name']).toEqual([NODE]);
  expect(user.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^JTI=/);
});

test('the volume also holds ca.crt and namespace, written through the ..data link', () => {
  const dir = volumeDir(reader, 'kubernetes.io~projected', 'kube-api-access-');
  const rootCA = maybe('get', 'configmap', 'kube-root-ca.crt').data['ca.crt'];
  expect(ok('logs', 'reader')).toBe(`${readerToken}\ndefault\n${rootCA}`);
  expect(fs.readlinkSync(path.join(dir, 'token'))).toBe('..data/token');
  expect(fs.readlinkSync(path.join(dir, '..data'))).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/);
  expect((fs.statSync(path.join(dir, 'token')).mode & 0o777).toString(8)).toBe('644');
});

test('secret and configMap volumes and variables from secretKeyRef and envFrom reach the container', async () => {
  ok('create', 'secret', 'generic', 'creds', '--from-literal=user=admin', '--from-literal=pass=s3cret');
  ok('create', 'configmap', 'settings', '--from-literal=a=one', '--from-literal=b=two', '--from-literal=9lives=x');
  ok('create', '-f', podManifest('consumer', {
    restartPolicy: 'Never',
    volumes: [
      { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } },
      { name: 'settings', configMap: { name: 'settings', items: [{ key: 'a', path: 'sub/a.txt' }] } },
    ],
    containers: [{
      name: 'c', image: busybox,
      command: ['sh', '-c', 'cat /etc/creds/user; echo; ls /etc/settings; cat /etc/settings/sub/a.txt; echo; env | grep -E "^(PASS|CFG_[a-z0-9]+|a|b)=" | sort'],
      env: [{ name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'pass' } } }, { name: 'GONE', valueFrom: { secretKeyRef: { name: 'nope', key: 'x', optional: true } } }],
      envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'settings' } }, { configMapRef: { name: 'settings' } }],
      volumeMounts: [{ name: 'creds', mountPath: '/etc/creds' }, { name: 'settings', mountPath: '/etc/settings' }],
    }],
  }));
  await waitFor('consumer to finish', () => maybe('get', 'pod', 'consumer')?.status?.phase === 'Succeeded');
  // Without a prefix `9lives` starts with a digit: skipped, as upstream; with the prefix it is a valid name.
  expect(ok('logs', 'consumer')).toBe('admin\nsub\none\nCFG_9lives=x\nCFG_a=one\nCFG_b=two\nPASS=s3cret\na=one\nb=two\n');
  const events = JSON.parse(ok('get', 'events', '--field-selector=involvedObject.name=consumer', '-o', 'json')).items;
  expect(events.map((e: { reason: string; message: string }) => `${e.reason}: ${e.message}`)).toContain(
    'InvalidEnvironmentVariableNames: Keys [9lives] from the EnvFrom configMap default/settings were skipped since they are considered invalid environment variable names.',
  );
});

test('fsGroup owns secret volumes and the token: a non-root user reads them through the group', async () => {
  ok('create', 'secret', 'generic', 'grouped', '--from-literal=user=admin');
  // defaultMode 0400: only the fsGroup's group read (0440) lets uid 1000 read the file.
  ok('create', '-f', podManifest('grouped', {
    restartPolicy: 'Never',
    securityContext: { runAsUser: 1000, fsGroup: 2000 },
    volumes: [{ name: 'creds', secret: { secretName: 'grouped', defaultMode: 0o400 } }],
    containers: [{
      name: 'c', image: busybox, volumeMounts: [{ name: 'creds', mountPath: '/etc/creds' }],
      command: ['sh', '-c', `id -u; id -G; stat -L -c '%g %a' /etc/creds/user; stat -c '%g %a' /etc/creds; cat /etc/creds/user; echo; stat -L -c '%u %g %a' ${MOUNT}/token; wc -c < ${MOUNT}/token`],
    }],
  }));
  await waitFor('grouped to finish', () => ['Succeeded', 'Failed'].includes(maybe('get', 'pod', 'grouped')?.status?.phase) || undefined);
  const [uid, groups, file, dir, content, token, tokenBytes] = ok('logs', 'grouped').split('\n');
  expect([uid, groups.split(' ')]).toEqual(['1000', expect.arrayContaining(['2000'])]);
  // The file: group 2000, 0400 plus group read; the volume directory: the group's, setgid.
  expect([file, dir, content]).toEqual(['2000 440', '2000 2755', 'admin']);
  // The token (every container runs as 1000): that user's, 0600 plus group read, and readable by it.
  expect(token).toBe('1000 2000 640');
  expect(Number(tokenBytes)).toBeGreaterThan(100);
  expect(maybe('get', 'pod', 'grouped').status.phase).toBe('Succeeded');
});

test('a pod referencing a missing secret waits with upstream reasons and starts once it exists', async () => {
  ok('create', '-f', podManifest('waiter', {
    volumes: [{ name: 'late', secret: { secretName: 'late' } }],
    containers: [
      { name: 'mounts', image: busybox, command: ['sh', '-c', 'trap "exit 0" TERM; while true; do cat /late/k; echo; sleep 1; done'], volumeMounts: [{ name: 'late', mountPath: '/late' }] },
    ],
  }));
  const waiting = await waitFor('waiter to report the missing volume', () => {
    const s = maybe('get', 'pod', 'waiter')?.status?.containerStatuses?.[0]?.state?.waiting;
    return s?.reason === 'ContainerCreating' && s.message && s;
  });
  expect(waiting.message).toBe('MountVolume.SetUp failed for volume "late" : secret "late" not found');
  await waitFor('a FailedMount event', () => JSON.parse(ok('get', 'events', '--field-selector=involvedObject.name=waiter', '-o', 'json')).items
    .some((e: { reason: string; message: string }) => e.reason === 'FailedMount' && e.message === waiting.message));
  ok('create', 'secret', 'generic', 'late', '--from-literal=k=v');
  await waitFor('waiter to run', () => maybe('get', 'pod', 'waiter')?.status?.phase === 'Running');
  await waitFor('the value in the container', () => ok('logs', 'waiter').startsWith('v\n'));
  // A changed secret reaches the running container at a later sync, through the ..data switch.
  ok('patch', 'secret', 'late', '-p', JSON.stringify({ data: { k: b64('v2') } }));
  await waitFor('the new value in the container', () => ok('logs', 'waiter').includes('\nv2\n'));

  // A variable from a missing secret: CreateContainerConfigError with upstream's message, until it exists.
  ok('create', '-f', podManifest('envwaiter', {
    containers: [{ name: 'c', image: busybox, command: ['sh', '-c', SLEEPER], env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'late-env', key: 'x' } } }] }],
  }));
  const configError = await waitFor('envwaiter to report CreateContainerConfigError', () => {
    const s = maybe('get', 'pod', 'envwaiter')?.status?.containerStatuses?.[0]?.state?.waiting;
    return s?.reason === 'CreateContainerConfigError' && s;
  });
  expect(configError.message).toBe('secret "late-env" not found');
  ok('create', 'secret', 'generic', 'late-env', '--from-literal=x=1');
  await waitFor('envwaiter to run', () => maybe('get', 'pod', 'envwaiter')?.status?.phase === 'Running');
});

test('a pod whose volume kind the agent cannot provide fails with a message naming it', async () => {
  ok('create', '-f', podManifest('claimant', {
    nodeName: NODE,
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    containers: [{ name: 'c', image: busybox, command: ['sh', '-c', SLEEPER], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
  }));
  const s = await waitFor('claimant to report the volume', () => maybe('get', 'pod', 'claimant')?.status?.containerStatuses?.[0]?.state?.waiting?.message);
  expect(s).toBe('MountVolume.SetUp failed for volume "data" : volume type "persistentVolumeClaim" is not supported by this node agent (supported: hostPath, emptyDir, secret, configMap, projected, downwardAPI)');
  expect(maybe('get', 'pod', 'claimant').status.phase).toBe('Pending');
});

test('kubectl create token and issuer discovery: the token verifies with the published keys', async () => {
  const token = ok('create', 'token', 'default', '--audience=x').trim();
  const config = JSON.parse(ok('get', '--raw', '/.well-known/openid-configuration'));
  expect(config).toMatchObject({ issuer: ISSUER, jwks_uri: `https://127.0.0.1:${api.port}/openid/v1/jwks`, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'] });
  const jwks = JSON.parse(ok('get', '--raw', '/openid/v1/jwks'));
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: ISSUER, audience: 'x' });
  expect(payload.sub).toBe('system:serviceaccount:default:default');
  expect(payload.exp! - payload.iat!).toBe(3600);
  // An audience other than the API's is not accepted by the API server.
  expect(whoami(token).stderr).toBe('error: You must be logged in to the server (Unauthorized)\n');
  expect(k('create', 'token', 'default', '--duration=5m').stderr).toContain('spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
});

/** A node process that verifies `token` with the built @cl/jwt-authn against `issuer` (discovery and keys fetched over HTTPS). */
const JWT_AUTHN_VERIFIER = `
  const { createJwtVerifier } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'libs', 'jwt-authn', 'dist'))});
  const verifier = createJwtVerifier(JSON.parse(process.env.JWT_CONFIG), { successTtlMs: 0 });
  verifier.ready()
    .then(() => verifier.verify(process.env.JWT_TOKEN))
    .then((user) => { process.stdout.write(JSON.stringify(user)); verifier.close(); }, (e) => { process.stdout.write(JSON.stringify({ error: e.message })); verifier.close(); });
`;

test('@cl/jwt-authn in another process verifies this cluster\'s tokens through its discovery document', () => {
  // Upstream's documented opt-in: anyone may read the issuer discovery documents.
  ok('create', 'clusterrolebinding', 'service-account-issuer-discovery-anonymous', '--clusterrole=system:service-account-issuer-discovery', '--group=system:unauthenticated');
  const jwt = [{
    issuer: { url: ISSUER, discoveryURL: `${api.url}/.well-known/openid-configuration`, certificateAuthority: api.servingCA(), audiences: ['reports-service'] },
    claimMappings: { username: { claim: 'sub', prefix: '' } },
  }];
  const verify = (token: string) => {
    const r = spawnSync(process.execPath, ['-e', JWT_AUTHN_VERIFIER], { env: { ...process.env, JWT_CONFIG: JSON.stringify(jwt), JWT_TOKEN: token }, encoding: 'utf8' });
    return JSON.parse(r.stdout || JSON.stringify({ error: r.stderr }));
  };
  expect(verify(ok('create', 'token', 'default', '--audience=reports-service').trim())).toMatchObject({ username: 'system:serviceaccount:default:default' });
  // Another audience is refused by the other service, as the API server refuses this one.
  expect(verify(ok('create', 'token', 'default', '--audience=elsewhere').trim()).error).toMatch(/audience/);
});

test('NodeRestriction: the node\'s credentials get tokens only bound to pods scheduled on it', () => {
  // The agent's own requests (bound to its pods) went through already: the reader pod's token works (first case).
  const unbound = kubectl(nodeConfig, ['create', 'token', 'default']);
  expect(unbound.status).not.toBe(0);
  expect(unbound.stderr).toContain('node requested token not bound to a pod');
  const bound = kubectl(nodeConfig, ['create', 'token', 'default', '--bound-object-kind=Pod', `--bound-object-name=${reader.metadata.name}`, `--bound-object-uid=${reader.metadata.uid}`]);
  expect(bound.stderr).toBe('');
  expect(bound.stdout.split('.')).toHaveLength(3);
  const stale = kubectl(nodeConfig, ['create', 'token', 'default', '--bound-object-kind=Pod', `--bound-object-name=${reader.metadata.name}`, '--bound-object-uid=stale']);
  expect(stale.stderr).toContain('the UID in the bound object reference (stale) does not match the UID in record');
});

test('ServiceAccountNodeAudienceRestriction: the node gets tokens for audiences its pods name, others only when granted', async () => {
  // A pod naming the audience "vault" in a projected source: the agent's request for it is admitted and the token lands.
  ok('create', '-f', podManifest('vaulted', {
    containers: [{ name: 'c', image: busybox, command: ['sh', '-c', SLEEPER], volumeMounts: [{ name: 'vault-token', mountPath: '/vault' }] }],
    volumes: [{ name: 'vault-token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } }] } }],
  }));
  const vaulted = await waitFor('vaulted to run', () => {
    const p = maybe('get', 'pod', 'vaulted');
    return p?.status?.phase === 'Running' ? p : undefined;
  });
  const token = fs.readFileSync(path.join(volumeDir(vaulted, 'kubernetes.io~projected', 'vault-token'), 'token'), 'utf8');
  expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).aud).toEqual(['vault']);

  // The node's own credentials, for the reader pod, which names no audience but the API server's.
  const asNode = (...audiences: string[]) => kubectl(nodeConfig, ['create', 'token', 'default', ...audiences.map((a) => `--audience=${a}`),
    '--bound-object-kind=Pod', `--bound-object-name=${reader.metadata.name}`, `--bound-object-uid=${reader.metadata.uid}`]);
  expect(asNode('vault').stderr).toContain(`serviceaccounts "default" is forbidden: audience "vault" not found in pod spec volume, system:node:${NODE} is not authorized to request tokens for this audience`);
  expect(asNode('vault', 'reports').stderr).toContain('node may only request 0 or 1 audiences');
  // An administrator grants the nodes the audience "reports" for the default service account (upstream's RBAC form:
  // the audience is the resource, the service account the resource name).
  ok('apply', '-f', file('audience-grant.yaml', [
    'apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRole', 'metadata: {name: node-reports-audience}',
    'rules: [{apiGroups: [""], resources: ["reports"], resourceNames: ["default"], verbs: ["request-serviceaccounts-token-audience"]}]', '---',
    'apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRoleBinding', 'metadata: {name: node-reports-audience}',
    'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reports-audience}', 'subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:nodes"}]', '',
  ].join('\n')));
  const granted = await waitFor('the grant to take effect', () => {
    const r = asNode('reports');
    return r.status === 0 ? r.stdout.trim() : undefined;
  });
  expect(JSON.parse(Buffer.from(granted.split('.')[1], 'base64url').toString()).aud).toEqual(['reports']);
  // Still refused for an audience nobody granted.
  expect(asNode('vault').status).not.toBe(0);
  ok('delete', 'pod', 'vaulted', '--wait=false');
});

test('once its pod is deleted, the pod-bound token is rejected', async () => {
  const dir = volumeDir(reader, 'kubernetes.io~projected', 'kube-api-access-');
  ok('delete', 'pod', 'reader', '--wait=true');
  await waitFor('the token to be rejected', () => whoami(readerToken).stderr === 'error: You must be logged in to the server (Unauthorized)\n');
  // The agent removed the pod's token files with it.
  expect(fs.existsSync(dir)).toBe(false);
});
