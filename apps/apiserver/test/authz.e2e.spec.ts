// Authorization of the built binary: the chain from --authorization-config with a real mTLS webhook, the
// public-info rule in front of it, upstream's 403/500 answers, the SubjectAccessReview APIs, kubectl 1.33
// `auth can-i`, the legacy --authorization-mode form, and flag errors before anything binds.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, httpsGet, startApiserverProcess, type ApiserverProcess, type HttpResult } from './harness';
import { createCA, issueClientCert, type PemPair } from '@cl/pki';
import { waitFor } from '@cl/testing';
import { kubectlAsync, reply, startAuthzWebhook, type AuthzWebhook, type ReviewSpec } from './authz-webhook';

jest.setTimeout(120_000);

let dir: string;
let hook: AuthzWebhook;
let api: ApiserverProcess;
let configFile: string;
let adminKubeconfig: string;
let janeKubeconfig: string;

/** A kubeconfig for a client-certificate user of `api`. */
function userKubeconfig(name: string, pair: PemPair): string {
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  const file = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    file,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.url}`, `    certificate-authority-data: ${b64(api.servingCA())}`, 'users:', '- name: u', '  user:', `    client-certificate-data: ${b64(pair.certPem)}`, `    client-key-data: ${b64(pair.keyPem)}`, 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'),
  );
  return file;
}

/** The tests' policy: decides from the review, as a real webhook would. */
function policy(spec: ReviewSpec, res: import('node:http').ServerResponse) {
  const ra = spec.resourceAttributes;
  const path = spec.nonResourceAttributes?.path;
  if (path === '/healthz/ping') return reply(res, { allowed: false, denied: true, reason: 'no pings' });
  if (ra?.resource === 'selfsubjectaccessreviews' || ra?.resource === 'subjectaccessreviews') return reply(res, { allowed: true });
  if (ra?.resource === 'pods' && ra.namespace === 'default' && (ra.verb === 'get' || ra.verb === 'list')) return reply(res, { allowed: true, reason: 'pods are public' });
  if (ra?.resource === 'secrets') return void res.end('error response'); // a broken webhook answer
  reply(res, { allowed: false, reason: 'not in policy' });
}

const authzConfig = (extra = '') => `apiVersion: apiserver.config.k8s.io/v1alpha1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: policy.example.com
  webhook:
    timeout: 5s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${hook.kubeconfig}}
    matchConditions:
    - expression: "!has(request.resourceAttributes) || request.resourceAttributes.namespace != 'skipped'"
${extra}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cl-authz-'));
  hook = await startAuthzWebhook(dir);
  hook.policy = policy;
  configFile = join(dir, 'authz.yaml');
  writeFileSync(configFile, authzConfig());
  const clientCA = await createCA('authz-e2e-client-ca');
  writeFileSync(join(dir, 'client-ca.crt'), clientCA.certPem);
  api = await startApiserverProcess([`--authorization-config=${configFile}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
  adminKubeconfig = userKubeconfig('admin', await issueClientCert(clientCA, { cn: 'cl-admin', groups: ['system:masters'] }));
  janeKubeconfig = userKubeconfig('jane', await issueClientCert(clientCA, { cn: 'jane', groups: ['dev'] }));
});

afterAll(async () => {
  await api?.cleanup();
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(path: string, body: unknown): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port: api.port, path, method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
      (res) => {
        let out = '';
        res.on('data', (c) => (out += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: out, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('requests through the chain (anonymous caller)', () => {
  test.each(['/healthz', '/livez', '/readyz', '/version', '/version/'])('GET %s is public: allowed without asking the webhook', async (path) => {
    hook.reviews = [];
    expect((await httpsGet(api, path)).status).toBe(200);
    expect(hook.reviews).toHaveLength(0);
  });

  test('a per-check path goes to the webhook; its denial is a 403 in the non-resource form', async () => {
    const r = await httpsGet(api, '/healthz/ping');
    expect(r.status).toBe(403);
    const s = JSON.parse(r.body);
    expect(s).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(s.message).toBe('forbidden: User "system:anonymous" cannot get path "/healthz/ping": no pings');
  });

  test('/metrics needs an authorized caller', async () => {
    const r = await httpsGet(api, '/metrics');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics": not in policy');
  });

  test('a resource request the webhook has no opinion on: 403 in the resource form with the reason', async () => {
    const r = await httpsGet(api, '/api/v1/namespaces/kube-system/pods/foo');
    expect(r.status).toBe(403);
    const s = JSON.parse(r.body);
    expect(s.message).toBe('pods "foo" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "kube-system": not in policy');
    expect(s.details).toEqual({ name: 'foo', kind: 'pods' });
    const review = hook.reviews.at(-1)!;
    expect(review).toEqual({
      resourceAttributes: { namespace: 'kube-system', verb: 'get', version: 'v1', resource: 'pods', name: 'foo' },
      user: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
  });

  test.each([
    ['DELETE', '/apis/apps/v1/namespaces/ns/deployments', 'deployments.apps is forbidden: User "system:anonymous" cannot deletecollection resource "deployments" in API group "apps" in the namespace "ns": not in policy'],
    ['GET', '/api/v1/nodes?watch=true', 'nodes is forbidden: User "system:anonymous" cannot watch resource "nodes" in API group "" at the cluster scope: not in policy'],
    ['PATCH', '/api/v1/namespaces/ns/pods/p/status', 'pods "p" is forbidden: User "system:anonymous" cannot patch resource "pods/status" in API group "" in the namespace "ns": not in policy'],
  ])('%s %s: verb, scope and subresource as upstream derives them', async (method, path, message) => {
    const r = await httpsGet(api, path, { method });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe(message);
  });

  test('an allowed request passes authorization (and reaches the handlers: 404 here)', async () => {
    const r = await httpsGet(api, '/api/v1/namespaces/default/pods/foo');
    expect(r.status).toBe(404);
  });

  test('a match condition that is FALSE skips the webhook (no opinion, 403)', async () => {
    hook.reviews = [];
    const r = await httpsGet(api, '/api/v1/namespaces/skipped/pods/foo');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe('pods "foo" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "skipped"');
    expect(hook.reviews).toHaveLength(0);
  });

  test('a failing webhook with no later Allow is a 500 with the error text', async () => {
    const r = await httpsGet(api, '/api/v1/namespaces/default/secrets/s');
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.body).toBe(`Internal Server Error: "/api/v1/namespaces/default/secrets/s": invalid character 'e' looking for beginning of value\n`);
  });
});

describe('SubjectAccessReview APIs', () => {
  test('subjectaccessreviews answers for the user in the spec', async () => {
    const r = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'jane', groups: ['dev'], resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } },
    });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body)).toEqual({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' }, user: 'jane', groups: ['dev'] },
      status: { allowed: true, reason: 'pods are public' },
    });
    expect(hook.reviews.at(-1)).toEqual({ resourceAttributes: { namespace: 'default', verb: 'list', version: '*', resource: 'pods' }, user: 'jane', groups: ['dev'] });
  });

  test('an invalid review is a 422 with field errors', async () => {
    const r = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} });
    expect(r.status).toBe(422);
    expect(JSON.parse(r.body).message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
  });

  test('an erroring webhook shows as evaluationError', async () => {
    const r = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'secrets' } },
    });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).status).toEqual({ allowed: false, evaluationError: "invalid character 'e' looking for beginning of value" });
  });

  test.each([
    [['get', 'pods'], 0, 'yes'],
    [['list', 'pods', '-n', 'default'], 0, 'yes'],
    [['delete', 'pods'], 1, 'no - not in policy'],
    [['get', 'pods', '-n', 'kube-system'], 1, 'no - not in policy'],
  ])('kubectl auth can-i %j', async (args, code, out) => {
    const r = await kubectlAsync(api.kubeconfig, ['auth', 'can-i', ...args]);
    expect(r.stdout.trim()).toBe(out);
    expect(r.status).toBe(code);
  });
});

describe('client-certificate users', () => {
  test('system:masters is allowed everything without asking the webhook', async () => {
    hook.reviews = [];
    const r = await kubectlAsync(adminKubeconfig, ['get', '--raw', '/metrics']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('apiserver_authorization_decisions_total');
    expect((await kubectlAsync(adminKubeconfig, ['auth', 'can-i', 'delete', 'secrets', '-A'])).stdout.trim()).toBe('yes');
    expect(hook.reviews).toHaveLength(0);
  });

  test('an authenticated user may read discovery and ask about itself; only the question goes to the webhook', async () => {
    hook.reviews = [];
    const yes = await kubectlAsync(janeKubeconfig, ['auth', 'can-i', 'get', 'pods']);
    expect(yes.stdout.trim()).toBe('yes');
    const no = await kubectlAsync(janeKubeconfig, ['auth', 'can-i', 'create', 'configmaps']);
    expect(no.stdout.trim()).toBe('no - not in policy');
    expect(no.status).toBe(1);
    expect(hook.reviews).toMatchObject([
      { resourceAttributes: { namespace: 'default', verb: 'get', version: '*', resource: 'pods' }, user: 'jane', groups: ['dev', 'system:authenticated'] },
      { resourceAttributes: { namespace: 'default', verb: 'create', version: '*', resource: 'configmaps' }, user: 'jane', groups: ['dev', 'system:authenticated'] },
    ]);
    expect(hook.reviews).toHaveLength(2);
  });
});

describe('reload of --authorization-config', () => {
  const reloads = async (status: string) => {
    const m = (await kubectlAsync(adminKubeconfig, ['get', '--raw', '/metrics'])).stdout;
    const line = m.split('\n').find((l) => l.startsWith(`apiserver_authorization_config_controller_automatic_reloads_total{`) && l.includes(`status="${status}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  test('a bad file keeps the chain; a good one is used (a later AlwaysAllow now allows)', async () => {
    const failures = await reloads('failure');
    const successes = await reloads('success');
    writeFileSync(configFile, 'apiVersion: apiserver.config.k8s.io\n');
    await waitFor(async () => ((await reloads('failure')) > failures ? true : undefined), 'a failed reload');
    expect((await httpsGet(api, '/api/v1/namespaces/kube-system/pods/foo')).status).toBe(403);

    writeFileSync(configFile, authzConfig('- type: AlwaysAllow\n  name: alwaysallow\n'));
    await waitFor(async () => ((await reloads('success')) > successes ? true : undefined), 'a successful reload');
    expect((await httpsGet(api, '/api/v1/namespaces/kube-system/pods/foo')).status).toBe(404);
  });
});

describe('the older flags', () => {
  test('--authorization-mode=Webhook with the webhook flags: same webhook, v1 reviews', async () => {
    const legacy = await startApiserverProcess([
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${hook.kubeconfig}`,
      '--authorization-webhook-version=v1',
    ]);
    try {
      hook.reviews = [];
      const r = await httpsGet(legacy, '/api/v1/namespaces/kube-system/pods/foo');
      expect(r.status).toBe(403);
      expect(hook.reviews).toHaveLength(1);
      expect((await kubectlAsync(legacy.kubeconfig, ['auth', 'can-i', 'get', 'pods'])).stdout.trim()).toBe('yes');
    } finally {
      await legacy.cleanup();
    }
  });

  test.each([
    [['--authorization-config=/x.yaml', '--authorization-mode=Webhook'], '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined'],
    [['--authorization-mode=RBAC,Foo'], 'authorization-mode "Foo" is not a valid mode'],
    [['--authorization-mode=Webhook'], "authorization-mode Webhook's authorization config file not passed"],
    [['--authorization-webhook-config-file=/x'], 'cannot specify --authorization-webhook-config-file without mode Webhook'],
    [['--authorization-mode=AlwaysAllow,AlwaysAllow'], 'has mode specified more than once'],
  ])('%j is refused before binding', (args, message) => {
    const r = spawnSync(process.execPath, [MAIN, '--secure-port=1', ...args], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
  });

  test('a bad --authorization-config file: every field error at once', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `apiVersion: apiserver.config.k8s.io/v1alpha1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: Bad_Name
  webhook:
    timeout: 60s
    subjectAccessReviewVersion: v1
    failurePolicy: deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: relative/kc.yaml}
- type: ABAC
  name: abac
`);
    const r = spawnSync(process.execPath, [MAIN, '--secure-port=1', `--authorization-config=${bad}`], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    for (const m of [
      'authorizers[0].name: Invalid value: "Bad_Name": authorizer name is invalid',
      'authorizers[0].timeout: Invalid value: "1m0s": must be > 0s and <= 30s',
      'authorizers[0].failurePolicy: Unsupported value: "deny": supported values: "NoOpinion", "Deny"',
      'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative/kc.yaml": must be an absolute path',
      'authorizers[1].type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    ]) {
      expect(r.stderr).toContain(m);
    }
  });
});
