// Authorization with --authorization-mode=Node,RBAC on the built binary, through kubectl 1.33 with client
// certificate users: a Role in one namespace and upstream's Forbidden text in another, `kubectl auth can-i
// --list`, `kubectl --as` for an admin and not for others, escalation prevention on bindings and roles, the
// bootstrap policy (public health paths, discovery for authenticated users only, aggregated view/edit/admin),
// the Node authorizer's graph and the mirror pods a node may not use to extend it, and the in-process scheduler
// still binding pods. One server for all cases.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueClientCert, type PemPair } from '@cl/pki';
import { waitFor } from '@cl/testing';
import { MAIN, httpsGet, kubectl, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

let dir: string;
let api: ApiserverProcess;
const kubeconfigs: Record<string, string> = {};

function userKubeconfig(name: string, pair: PemPair): string {
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    file,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${b64(api.servingCA())}`, 'users:', '- name: u', '  user:', `    client-certificate-data: ${b64(pair.certPem)}`, `    client-key-data: ${b64(pair.keyPem)}`, 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'),
  );
  return file;
}

/** kubectl as one of the test users. */
const as = (user: string, ...args: string[]) => kubectl(kubeconfigs[user], args);
const ok = (user: string, ...args: string[]) => {
  const r = as(user, ...args);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} as ${user} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};
const apply = (user: string, name: string, yaml: string) => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, yaml);
  return as(user, 'create', '-f', f);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cl-rbac-'));
  const ca = await createCA('rbac-e2e-client-ca');
  writeFileSync(join(dir, 'client-ca.crt'), ca.certPem);
  api = await startApiserverProcess(['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
  const users: Array<[string, string, string[]]> = [
    ['admin', 'cl-admin', ['system:masters']],
    ['jane', 'jane', ['dev']],
    ['bob', 'bob', []],
    ['node', 'system:node:node-a', ['system:nodes']],
  ];
  for (const [key, cn, groups] of users) kubeconfigs[key] = userKubeconfig(key, await issueClientCert(ca, { cn, groups }));
  ok('admin', 'create', 'namespace', 'a');
  ok('admin', 'create', 'namespace', 'b');
  ok('admin', 'create', 'role', 'pod-reader', '-n', 'a', '--verb=get,list', '--resource=pods');
  ok('admin', 'create', 'rolebinding', 'jane-reads-pods', '-n', 'a', '--role=pod-reader', '--user=jane');
  // The binding reaches the authorizer through the watch: wait until it is in force.
  await waitFor(() => as('jane', 'auth', 'can-i', 'list', 'pods', '-n', 'a').stdout === 'yes\n', 'jane to be allowed to list pods in a');
});

afterAll(async () => {
  await api?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Role in one namespace', () => {
  test('allows get/list pods there', () => {
    const r = as('jane', 'get', 'pods', '-n', 'a');
    expect(r).toMatchObject({ status: 0, stderr: 'No resources found in a namespace.\n' });
  });

  test('is Forbidden in another namespace and for other verbs, with upstream text', () => {
    expect(as('jane', 'get', 'pods', '-n', 'b')).toMatchObject({
      status: 1,
      stderr: 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "b"\n',
    });
    expect(as('jane', 'delete', 'pod', 'x', '-n', 'a').stderr).toBe('Error from server (Forbidden): pods "x" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "a"\n');
  });

  test('a SubjectAccessReview names the binding that allowed it (upstream reason text)', () => {
    const sar = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane', resourceAttributes: { namespace: 'a', verb: 'get', resource: 'pods' } } });
    writeFileSync(join(dir, 'sar.json'), sar);
    const out = JSON.parse(ok('admin', 'create', '--validate=false', '-f', join(dir, 'sar.json'), '-o', 'json'));
    expect(out.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "jane-reads-pods/a" of Role "pod-reader" to User "jane"' });
  });

  test('kubectl auth can-i --list shows the rules from RBAC', () => {
    const out = ok('jane', 'auth', 'can-i', '--list', '-n', 'a');
    expect(out).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    expect(out).toMatch(/\npods\s+\[\]\s+\[\]\s+\[get list\]\n/);
    expect(out).toMatch(/\nselfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]\n/);
    expect(out).toMatch(/\n\s+\[\/api\/\*\]\s+\[\]\s+\[get\]\n/);
    expect(ok('jane', 'auth', 'can-i', '--list', '-n', 'b')).not.toMatch(/\npods\s/);
  });
});

describe('bootstrap policy', () => {
  test('health and version paths are public; discovery needs an authenticated user', async () => {
    expect((await httpsGet(api, '/healthz')).status).toBe(200);
    expect((await httpsGet(api, '/version')).status).toBe(200);
    const r = await httpsGet(api, '/api');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/api"');
    expect(ok('bob', 'get', '--raw', '/api')).toContain('"kind":"APIVersions"');
  });

  test('the upstream cluster roles and bindings exist, marked for auto-update', () => {
    const names = ok('admin', 'get', 'clusterroles', '-o', 'name').split('\n');
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:node', 'system:kube-scheduler', 'system:controller:deployment-controller']) {
      expect(names).toContain(`clusterrole.rbac.authorization.k8s.io/${n}`);
    }
    const binding = JSON.parse(ok('admin', 'get', 'clusterrolebinding', 'system:basic-user', '-o', 'json'));
    expect(binding.metadata.annotations).toEqual({ 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
  });

  test('view is aggregated from the roles labelled for it, and a new labelled role joins it', async () => {
    const viewRules = () => JSON.parse(ok('admin', 'get', 'clusterrole', 'view', '-o', 'json')).rules as Array<{ resources?: string[] }>;
    expect(viewRules().some((r) => r.resources?.includes('pods'))).toBe(true);
    const created = apply('admin', 'agg', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: view-leases-extra\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: "true"\nrules:\n- apiGroups: ["scheduling.k8s.io"]\n  resources: ["priorityclasses"]\n  verbs: ["get"]\n');
    expect(created.status).toBe(0);
    await waitFor(() => viewRules().some((r) => r.resources?.includes('priorityclasses')), 'view to include the new rule');
    // admin aggregates edit, which aggregates view.
    await waitFor(() => (JSON.parse(ok('admin', 'get', 'clusterrole', 'admin', '-o', 'json')).rules as Array<{ resources?: string[] }>).some((r) => r.resources?.includes('priorityclasses')), 'admin to include it too');
  });
});

describe('escalation prevention', () => {
  beforeAll(async () => {
    ok('admin', 'create', 'clusterrole', 'rbac-writer', '--verb=create,update,get', '--resource=clusterrolebindings,rolebindings,roles');
    ok('admin', 'create', 'clusterrolebinding', 'jane-rbac-writer', '--clusterrole=rbac-writer', '--user=jane');
    await waitFor(() => as('jane', 'auth', 'can-i', 'create', 'clusterrolebindings').stdout === 'yes\n', 'jane to be allowed to create bindings');
  });

  test('binding cluster-admin without holding it is refused with upstream text', () => {
    const r = as('jane', 'create', 'clusterrolebinding', 'jane-admin', '--clusterrole=cluster-admin', '--user=jane');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io "jane-admin" is forbidden: user "jane" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}\n',
    );
  });

  test('a role with rules the user holds is allowed; one with more is refused', () => {
    expect(as('jane', 'create', 'role', 'mine', '-n', 'a', '--verb=get', '--resource=pods').status).toBe(0);
    const r = as('jane', 'create', 'role', 'more', '-n', 'a', '--verb=delete', '--resource=pods');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('roles.rbac.authorization.k8s.io "more" is forbidden: user "jane" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}');
  });

  test('`bind` on the role lets a user bind it without holding its rules', async () => {
    ok('admin', 'create', 'clusterrole', 'bind-view', '--verb=bind', '--resource=clusterroles', '--resource-name=view');
    ok('admin', 'create', 'clusterrolebinding', 'jane-bind-view', '--clusterrole=bind-view', '--user=jane');
    await waitFor(() => as('jane', 'auth', 'can-i', 'bind', 'clusterroles/view').stdout === 'yes\n', 'jane to be allowed to bind view');
    expect(as('jane', 'create', 'rolebinding', 'bob-views', '-n', 'b', '--clusterrole=view', '--user=bob').status).toBe(0);
  });

  test('a system:masters user may grant anything', () => {
    expect(as('admin', 'create', 'clusterrolebinding', 'bob-admin-later', '--clusterrole=cluster-admin', '--user=nobody').status).toBe(0);
  });
});

describe('impersonation', () => {
  test('an admin acts as another user with --as/--as-group', () => {
    expect(as('admin', '--as=jane', 'get', 'pods', '-n', 'a').status).toBe(0);
    expect(as('admin', '--as=jane', 'get', 'pods', '-n', 'b').stderr).toBe('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "b"\n');
    expect(ok('admin', '--as=someone', '--as-group=dev', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}')).toBe('["dev","system:authenticated"]');
  });

  test('others are refused with upstream text', () => {
    expect(as('jane', '--as=bob', 'get', 'pods', '-n', 'a').stderr).toBe('Error from server (Forbidden): users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope\n');
    expect(as('jane', '--as=system:serviceaccount:a:default', 'get', 'pods', '-n', 'a').stderr).toBe(
      'Error from server (Forbidden): serviceaccounts "default" is forbidden: User "jane" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "a"\n',
    );
  });

  test('a Role granting impersonate on a group lets a user act as it', async () => {
    ok('admin', 'create', 'clusterrole', 'impersonate-ops', '--verb=impersonate', '--resource=users,groups', '--resource-name=olga', '--resource-name=ops');
    ok('admin', 'create', 'clusterrolebinding', 'bob-impersonates', '--clusterrole=impersonate-ops', '--user=bob');
    await waitFor(() => as('bob', 'auth', 'can-i', 'impersonate', 'users/olga').stdout === 'yes\n', 'bob to be allowed to impersonate', 100);
    expect(ok('bob', '--as=olga', '--as-group=ops', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}')).toBe('olga');
    expect(as('bob', '--as=olga', '--as-group=admins', 'get', 'pods', '-n', 'a').stderr).toBe('Error from server (Forbidden): groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope\n');
  });
});

describe('nodes and the in-process components', () => {
  const READY = {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
    capacity: { cpu: '2', memory: '4Gi', pods: '110' },
  };

  test('a node registers and labels itself (Node authorizer); the scheduler binds a pod to it', async () => {
    expect(apply('node', 'node-a', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\n').status).toBe(0);
    ok('node', 'label', 'node', 'node-a', 'cl.io/test=yes');
    // kubectl patch --subresource=status reads nodes/status first, which upstream's node rules do not grant.
    ok('admin', 'patch', 'node', 'node-a', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: READY }));
    await waitFor(() => as('admin', 'get', 'serviceaccount', 'default', '-n', 'a').status === 0, 'the default service account');
    ok('admin', 'create', 'secret', 'generic', 'used', '-n', 'a', '--from-literal=k=v');
    ok('admin', 'create', 'secret', 'generic', 'unused', '-n', 'a', '--from-literal=k=v');
    expect(
      apply('admin', 'pod', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: a\nspec:\n  containers:\n  - name: c\n    image: busybox\n    env:\n    - name: X\n      valueFrom:\n        secretKeyRef: {name: used, key: k}\n').status,
    ).toBe(0);
    expect(await waitFor(() => as('admin', 'get', 'pod', 'web', '-n', 'a', '-o', 'jsonpath={.spec.nodeName}').stdout || undefined, 'web to be bound')).toBe('node-a');
  });

  test('the Node authorizer: a node reads a secret a pod bound to it uses, and no other', async () => {
    await waitFor(() => as('node', 'get', 'secret', 'used', '-n', 'a').status === 0, 'the node to read its pod secret', 100);
    expect(as('node', 'get', 'secret', 'unused', '-n', 'a').stderr).toBe(
      `Error from server (Forbidden): secrets "unused" is forbidden: User "system:node:node-a" cannot get resource "secrets" in API group "" in the namespace "a": no relationship found between node 'node-a' and this object\n`,
    );
    expect(as('node', 'get', 'secrets', '-n', 'a').status).toBe(1);
    expect(as('node', 'get', 'pods', '-A').status).toBe(0);
  });

  test('NodeRestriction: a node may not touch another node, nor create a non-mirror pod', () => {
    expect(apply('node', 'node-b', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: node-b\n').stderr).toBe(
      'Error from server (Forbidden): error when creating "' + join(dir, 'node-b.yaml') + '": nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"\n',
    );
    expect(apply('node', 'plain-pod', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: a\nspec:\n  nodeName: node-a\n  containers:\n  - name: c\n    image: busybox\n').stderr).toContain(
      'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-a" can only create mirror pods',
    );
    expect(as('node', 'label', 'node', 'node-a', 'node-restriction.kubernetes.io/x=y').stderr).toContain('is not allowed to modify labels: node-restriction.kubernetes.io/x');
  });

  test('a node cannot reach a secret by writing a mirror pod that names it', () => {
    const mirror = (name: string, volume: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: a\n  annotations: {kubernetes.io/config.mirror: hash}\nspec:\n  nodeName: node-a\n  containers:\n  - name: c\n    image: busybox\n  volumes:\n  - ${volume}\n`;
    // The ServiceAccount plugin runs before NodeRestriction (upstream's order) and refuses a mirror pod naming a secret.
    expect(apply('node', 'mirror-secret', mirror('static-a', '{name: s, secret: {secretName: unused}}')).stderr).toBe(
      `Error from server (Forbidden): error when creating "${join(dir, 'mirror-secret.yaml')}": pods "static-a" is forbidden: a mirror pod may not reference secrets\n`,
    );
    expect(as('node', 'get', 'secret', 'unused', '-n', 'a').stderr).toContain('secrets "unused" is forbidden: User "system:node:node-a" cannot get resource "secrets"');
    // A config map passes that plugin; NodeRestriction refuses it.
    expect(apply('node', 'mirror-cm', mirror('static-b', '{name: c, configMap: {name: kube-root-ca.crt}}')).stderr).toContain(
      'pods "static-b" is forbidden: node "node-a" can not create pods that reference configmaps',
    );
  });
});

describe('start-up forms', () => {
  test('an AuthorizationConfiguration with type Node and type RBAC starts and enforces RBAC', async () => {
    const file = join(dir, 'authz.yaml');
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n');
    const other = await startApiserverProcess([`--authorization-config=${file}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
    try {
      const jane = kubeconfigs.jane.replace(/\.kubeconfig$/, '-other.kubeconfig');
      writeFileSync(jane, readFileSync(kubeconfigs.jane, 'utf8').replace(api.url, other.url).replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${Buffer.from(other.servingCA()).toString('base64')}`));
      expect(kubectl(jane, ['get', 'pods']).stderr).toBe('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"\n');
      expect(kubectl(jane, ['auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io']).stdout).toBe('yes\n');
    } finally {
      await other.cleanup();
    }
  });

  test('ABAC is refused at start', () => {
    const r = spawnSync(process.execPath, [MAIN, '--secure-port=1', '--authorization-mode=ABAC'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('authorization-mode "ABAC" is not supported by this server (supported: AlwaysAllow, AlwaysDeny, Webhook, RBAC, Node)');
  });
});
