// The libraries as another project gets them: each published lib is packed with `npm pack`, the tarballs are
// installed with npm into an empty project outside this workspace, and there they are required (CommonJS),
// imported (ESM) and used the way their READMEs show: `cl-config validate`, an Express service guarded by the
// JWT middleware and the webhook authorizer, the embedded store with a watch.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { freePort, waitFor } from '@cl/testing';
// Test servers of the libs' own suites (a scripted OpenID issuer, a SubjectAccessReview webhook), reused here.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { FakeIssuer, makeKey, signJwt } from '../../../libs/jwt-authn/test/fake-issuer';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { servingTls, type ServingTls } from '../../../libs/jwt-authn/test/tls';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startFakeWebhook, answer, type FakeWebhook } from '../../../libs/webhook-authz/test/fake-webhook';

jest.setTimeout(600_000);

const ROOT = join(__dirname, '..', '..', '..');
const LIBS = readdirSync(join(ROOT, 'libs'))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(ROOT, 'libs', dir, 'package.json'), 'utf8')) as PackageJson }))
  .filter((l) => l.pkg.private !== true);

const APPS = [join('apps', 'apiserver'), join('apps', 'clet')];

interface PackageJson {
  name: string;
  private?: boolean;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  files?: string[];
}

let work: string;
let consumer: string;
const tarballs = new Map<string, { file: string; files: string[] }>();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cl-install-'));
  const packs = join(work, 'packs');
  consumer = join(work, 'consumer');
  for (const d of [packs, consumer]) execFileSync('mkdir', ['-p', d]);
  // The libs and the two apps, as the README's "Installing" section packs them for another machine.
  for (const dir of [...LIBS.map((l) => join('libs', l.dir)), ...APPS]) {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', packs], { cwd: join(ROOT, dir), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [info] = JSON.parse(out) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
    tarballs.set(info.name, { file: join(packs, info.filename), files: info.files.map((f) => f.path) });
  }
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  // express is the service's own dependency, as in the README; everything else comes from the tarballs.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', 'express@5.3.0', ...[...tarballs.values()].map((t) => t.file)], {
    cwd: consumer,
    stdio: 'pipe',
  });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// nx forces colour on its children; console.log would then colour numbers and booleans in what is compared.
const plainEnv = (() => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  return env;
})();
const node = (args: string[], input?: string) => spawnSync(process.execPath, args, { cwd: consumer, encoding: 'utf8', input, env: plainEnv });

describe.each(LIBS.map((l) => [l.pkg.name, l] as const))('%s', (name, lib) => {
  test('the tarball holds compiled code, types, README and package.json, and no sources', () => {
    const files = tarballs.get(name)!.files;
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']));
    expect(files.filter((f) => f.startsWith('src/') || f.endsWith('.spec.js') || f.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  test('it declares its Node engine and exact dependency versions', () => {
    expect(lib.pkg.engines?.node).toBe('>=20.19');
    for (const [dep, version] of Object.entries(lib.pkg.dependencies ?? {})) expect([dep, version]).toEqual([dep, expect.stringMatching(/^\d+\.\d+\.\d+$/)]);
  });

  test('it loads with require() and with import, with the same named exports', () => {
    const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(name)})).filter((k) => k !== '__esModule').sort()))`]);
    expect(cjs.stderr).toBe('');
    const names = JSON.parse(cjs.stdout) as string[];
    expect(names.length).toBeGreaterThan(0);
    const esm = node(['--input-type=module', '-e', `import * as m from ${JSON.stringify(name)}; console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports' && k !== '__esModule').sort()))`]);
    expect(esm.stderr).toBe('');
    expect(JSON.parse(esm.stdout)).toEqual(names);
  });
});

// The other libraries' README examples, run as the README writes them (CommonJS here; ESM loading is covered
// per lib above). @cl/tracing and @cl/cri need a collector and a container runtime, which their own suites start.
const examples: Array<[string, string, string | RegExp]> = [
  ['@cl/cel', `
    const { compileClaimValidationRule, parseClaimsJson } = require('@cl/cel');
    const rule = compileClaimValidationRule("claims.email_verified == true && claims.email.endsWith('@example.com')");
    const check = (json) => rule.evaluate({ claims: parseClaimsJson(json) });
    console.log(check('{"email":"a@example.com","email_verified":true}'), check('{"email":"a@x.org","email_verified":true}'));`, 'true false\n'],
  ['@cl/pki', `
    const { createCA, issueClientCert } = require('@cl/pki');
    const { X509Certificate } = require('node:crypto');
    (async () => {
      const ca = await createCA('my-ca');
      const alice = await issueClientCert(ca, { cn: 'alice', groups: ['dev'] });
      const cert = new X509Certificate(alice.certPem);
      console.log(cert.subject.split('\\n').sort().join(','), cert.checkIssued(new X509Certificate(ca.certPem)));
    })();`, 'CN=alice,O=dev true\n'],
  ['@cl/flags', `
    const { FlagSet, FeatureGate, types, featureGateMap } = require('@cl/flags');
    const fs = new FlagSet('demo')
      .add({ name: 'port', type: types.int32, default: 10250, usage: 'Serving port.', section: 'serving' })
      .add({ name: 'sync-frequency', type: types.duration, default: 60000, usage: 'Sync period.', section: 'general' })
      .add({ name: 'feature-gates', type: featureGateMap, default: {}, usage: 'Gates.', section: 'general' });
    const r = fs.parse(['--port=8080', '--sync-frequency=2m', '--feature-gates=NodeSwap=false', '--port=x']);
    const gates = new FeatureGate({ NodeSwap: { stage: 'BETA', default: true } });
    gates.setFromMap(r.values['feature-gates']);
    console.log(r.values['sync-frequency'], gates.enabled('NodeSwap'), r.errors.length);`, '120000 false 1\n'],
  ['@cl/field-manager', `
    const { FieldManager, ApplyConflictError } = require('@cl/field-manager');
    const schema = { type: 'object', properties: { metadata: { type: 'object', properties: {} }, data: { type: 'object', patternProperties: { '^(.*)$': { type: 'string' } } } } };
    const fm = new FieldManager({ schema, apiVersion: 'v1' });
    const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'a' } };
    fm.update(null, created, { manager: 'kubectl-create' });
    try {
      fm.apply(created, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'b' } }, { manager: 'flux' }, false);
    } catch (e) {
      if (e instanceof ApplyConflictError) console.log(e.message);
    }`, 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.key\n'],
  ['@cl/healthz', `
    const http = require('node:http');
    const { HealthChecks, pingCheck, BootStep } = require('@cl/healthz');
    const checks = new HealthChecks({ log: () => {} });
    checks.add(['healthz', 'livez', 'readyz'], pingCheck());
    checks.add(['readyz'], new BootStep('poststarthook/my-step'));
    const server = http.createServer(async (req, res) => { if (!(await checks.handle(req, res))) { res.statusCode = 404; res.end(); } });
    server.listen(0, '127.0.0.1', () => {
      http.get({ host: '127.0.0.1', port: server.address().port, path: '/readyz?verbose' }, (res) => {
        let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => { console.log(res.statusCode, body.includes('[-]poststarthook/my-step failed')); server.close(); });
      });
    });`, '500 true\n'],
  ['@cl/logging', `
    const { Logger } = require('@cl/logging');
    const log = Logger.create({ format: 'json', verbosity: 2, stderr: { write: (s) => process.stdout.write(s) } });
    log.named('pods').v(2, 'Pod started', { pod: 'default/web' });
    log.named('pods').v(3, 'hidden');`, /^\{"ts":[\d.]+,"caller":"pods","msg":"Pod started","v":2,"pod":"default\/web"\}\n$/],
  ['@cl/apimachinery', `
    const { parseLabelSelector, applyStrategicMergePatch, apiErrors } = require('@cl/apimachinery');
    const sel = parseLabelSelector('app=web,tier in (front,back)');
    const pod = { spec: { containers: [{ name: 'c', image: 'v1' }, { name: 'd', image: 'v1' }] } };
    const merged = applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'c', image: 'v2' }] } }, (path) =>
      path.join('.') === 'spec.containers' ? { type: 'merge', key: 'name' } : { type: 'replace' },
    );
    console.log(sel.matches({ app: 'web', tier: 'front' }), merged.spec.containers.map((c) => c.image).join(','), apiErrors.notFound({ group: '', resource: 'pods' }, 'p1').message);`,
  'true v2,v1 pods "p1" not found\n'],
  ['@cl/api', `
    const { configMap, decode } = require('@cl/api');
    try { decode(configMap, '{"metadata":{"name":"c"},"spec":{}}', 'Strict'); } catch (e) { console.log(e.message); }`,
  'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"\n'],
  ['@cl/registry', `
    const { SqliteStore } = require('@cl/store');
    const { WatchCache } = require('@cl/registry');
    (async () => {
      const store = new SqliteStore('registry-example/store.db'); // in the installing project, removed with it
      await store.put('/pods/a', JSON.stringify({ name: 'a' }));
      const pods = new WatchCache(store, '/pods/', { decode: (kv) => JSON.parse(kv.value.toString()) });
      await pods.start();
      const w = pods.watch();
      await store.put('/pods/b', JSON.stringify({ name: 'b' }));
      const seen = [];
      for await (const e of w) { seen.push(e.type + ' ' + e.object.name); if (seen.length === 2) break; }
      console.log(seen.join(', '));
      pods.stop(); await store.close();
    })();`, 'ADDED a, ADDED b\n'],
  ['@cl/egress', `
    const net = require('node:net');
    const { directDialer } = require('@cl/egress');
    const server = net.createServer((s) => s.end('hello through the dialer')).listen(0, '127.0.0.1', async () => {
      const conn = await directDialer.dial('127.0.0.1', server.address().port);
      let got = ''; conn.on('data', (d) => (got += d)); conn.on('end', () => { console.log(got); server.close(); });
    });`, 'hello through the dialer\n'],
  ['@cl/node', `
    const { registrationNode, nodeConditions } = require('@cl/node');
    const node = registrationNode({ nodeName: 'n1', hostname: 'host-1', labelDomain: 'cl.io', registerSchedulable: false });
    const health = { notReady: ['container runtime is down'], memoryPressure: false, diskPressure: false, pidPressure: false };
    const { conditions, changes } = nodeConditions(health, undefined, '2025-01-01T00:00:00Z');
    console.log(node.metadata.labels['cl.io/hostname'], node.spec.taints.map((t) => t.key + ':' + t.effect).join(','), node.spec.unschedulable);
    console.log(conditions.map((c) => c.type + '=' + c.status + '/' + c.reason).join(' '));
    console.log(changes.map((c) => c.event).join(','));`,
  'host-1 node.kubernetes.io/unschedulable:NoSchedule true\n' +
    'MemoryPressure=False/CletHasSufficientMemory DiskPressure=False/CletHasNoDiskPressure PIDPressure=False/CletHasSufficientPID Ready=False/CletNotReady\n' +
    'NodeHasSufficientMemory,NodeHasNoDiskPressure,NodeHasSufficientPID,NodeNotReady\n'],
  ['@cl/kube-client', `
    const { mkdtempSync, writeFileSync } = require('node:fs');
    const { join } = require('node:path');
    const { ApiError, isNotFound, loadKubeconfig, resourcePath } = require('@cl/kube-client');
    const dir = mkdtempSync('kube-client-example-'); // in the installing project, removed with it
    writeFileSync(join(dir, 'token'), 's3cret\\n');
    writeFileSync(join(dir, 'config'), [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443/", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {tokenFile: token}}]', // relative to the kubeconfig's directory
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\\n'));
    const cfg = loadKubeconfig(join(dir, 'config'));
    const path = resourcePath({ version: 'v1', resource: 'pods', namespace: 'default', name: 'web', subresource: 'status' });
    // What a call rejects with when a server answers a plain-text 404:
    const e = ApiError.fromResponse(404, Buffer.from('404 page not found'), 'GET', 'text/plain');
    console.log(cfg.server, cfg.token, path, isNotFound(e), e.reason);`,
  'https://127.0.0.1:6443 s3cret /api/v1/namespaces/default/pods/web/status true NotFound\n'],
  ['@cl/scheduler', `
    const { nodeInfoFor, schedulePod, taintToleration } = require('@cl/scheduler');
    const node = (name, more) => ({ metadata: { name }, status: { allocatable: { cpu: '1', memory: '1Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] }, ...more });
    const tainted = node('b', { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } });
    const nodes = [nodeInfoFor(node('a')), nodeInfoFor(tainted)];
    const pod = { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1500m' } } }] } };
    console.log(taintToleration(pod, nodes[1]));
    console.log(schedulePod(pod, nodes).message);`,
  'node(s) had untolerated taint {dedicated: gpu}\n' +
    '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}. ' +
    'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.\n'],
];

test.each(examples)('the README example of %s runs in the installing project', (_name, script, want) => {
  const r = node(['-e', script]);
  expect(r.stderr).toBe('');
  if (typeof want === 'string') expect(r.stdout).toBe(want);
  else expect(r.stdout).toMatch(want);
});

test('npx cl-config validate, in the installing project: a good file passes, a bad one lists its errors', () => {
  const good = join(consumer, 'egress.yaml');
  writeFileSync(good, 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection: {proxyProtocol: Direct}\n');
  const bad = join(consumer, 'authn.yaml');
  writeFileSync(bad, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "http://x", audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n');
  const npx = (file: string) => {
    const r = spawnSync('npx', ['--no-install', 'cl-config', 'validate', file], { cwd: consumer, encoding: 'utf8' });
    // npm's own notices about this machine's npmrc are not the command's output.
    return { status: r.status, stdout: r.stdout, stderr: r.stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') };
  };
  expect(npx(good)).toMatchObject({ status: 0, stdout: `${good}: valid EgressSelectorConfiguration\n` });
  expect(npx(bad)).toMatchObject({ status: 1, stderr: `${bad}: jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https\n` });
});

test('the embedded store from @cl/store: a put, a read and a watch from a revision', () => {
  const script = `
    const { SqliteStore } = require('@cl/store');
    (async () => {
      const store = new SqliteStore(${JSON.stringify(join(work, 'store', 'store.db'))});
      const { revision } = await store.put('/pods/default/a', JSON.stringify({ n: 1 }), { expectedRevision: 0 });
      await store.put('/pods/default/a', JSON.stringify({ n: 2 }));
      for await (const batch of store.watch('/pods/', { afterRevision: revision - 1 })) {
        if (batch.events.length >= 2) { console.log(batch.events.map((e) => e.type + ' ' + e.kv.value).join(';')); break; }
      }
      console.log((await store.get('/pods/default/a')).value.toString());
      await store.close();
    })();`;
  const r = node(['-e', script]);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('PUT {"n":1};PUT {"n":2}\n{"n":2}\n');
});

test('the apps installed from their tarballs run with nothing from the workspace: the API server serves, clet answers', async () => {
  const port = await freePort();
  const state = join(work, 'apiserver');
  const server = spawn('npx', ['--no-install', 'apiserver', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${join(state, 'certs')}`, `--data-dir=${join(state, 'data')}`], {
    cwd: consumer,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  try {
    const status = await waitFor(
      () =>
        new Promise<number | undefined>((resolve) => {
          const req = httpsGet({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => {
            res.resume();
            resolve(res.statusCode === 200 ? 200 : undefined);
          });
          req.on('error', () => resolve(undefined));
        }),
      `the installed apiserver to be ready (output so far: ${out.slice(-500)})`,
    );
    expect(status).toBe(200);
  } finally {
    const exit = new Promise((r) => server.once('exit', r));
    process.kill(-server.pid!, 'SIGTERM');
    await exit;
  }
  const clet = spawnSync('npx', ['--no-install', 'clet', '--version'], { cwd: consumer, encoding: 'utf8' });
  expect([clet.status, clet.stdout]).toEqual([0, expect.stringMatching(/^cl v\d+\.\d+\.\d+/)]);
});

describe('an Express service guarded by the JWT middleware and the webhook authorizer', () => {
  let tls: ServingTls;
  let issuer: FakeIssuer;
  let webhook: FakeWebhook;
  let service: ChildProcess;
  let base: string;
  const key = makeKey('k', 'P-256');

  beforeAll(async () => {
    tls = servingTls();
    issuer = new FakeIssuer(tls);
    await issuer.start();
    issuer.discovery();
    issuer.keys([key]);
    webhook = await startFakeWebhook();
    webhook.respond = (req, res) => {
      const review = JSON.parse(req.body) as { spec: { user: string } };
      answer({ allowed: review.spec.user === 'alice' })(req, res);
    };
    const authn = join(consumer, 'authn-config.yaml');
    writeFileSync(authn, [
      'apiVersion: apiserver.config.k8s.io/v1beta1',
      'kind: AuthenticationConfiguration',
      'jwt:',
      `- issuer: {url: "${issuer.url}", audiences: [api], certificateAuthority: ${JSON.stringify(tls.ca)}}`,
      '  claimMappings: {username: {claim: sub, prefix: ""}}',
    ].join('\n'));
    const authz = join(consumer, 'authz-config.yaml');
    writeFileSync(authz, [
      'apiVersion: apiserver.config.k8s.io/v1beta1',
      'kind: AuthorizationConfiguration',
      'authorizers:',
      '- type: Webhook',
      '  name: w',
      `  webhook: {timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${JSON.stringify(webhook.kubeconfig())}}, authorizedTTL: 0s, unauthorizedTTL: 0s}`,
    ].join('\n'));
    // The README's example, written as an ES module in the installing project.
    writeFileSync(join(consumer, 'service.mjs'), `
      import express from 'express';
      import { loadAuthenticationConfigurationFile, loadAuthorizationConfigurationFile } from '@cl/config';
      import { createJwtVerifier, jwtMiddleware } from '@cl/jwt-authn';
      import { AuthorizerChain, SUPPORTED_AUTHORIZER_TYPES, authorizationMiddleware } from '@cl/webhook-authz';
      const verifier = createJwtVerifier(loadAuthenticationConfigurationFile(${JSON.stringify(authn)}));
      await verifier.ready();
      const chain = AuthorizerChain.fromConfig(loadAuthorizationConfigurationFile(${JSON.stringify(authz)}, { knownTypes: SUPPORTED_AUTHORIZER_TYPES }));
      const app = express();
      app.use(jwtMiddleware(verifier));
      app.use('/k8s', authorizationMiddleware(chain, { user: (req) => req.user }));
      app.get('/k8s/api/v1/namespaces/ns/pods/p', (req, res) => res.json({ user: req.user.username }));
      const server = app.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    `);
    service = spawn(process.execPath, ['service.mjs'], { cwd: consumer, stdio: ['ignore', 'pipe', 'pipe'], env: plainEnv });
    let err = '';
    service.stderr!.on('data', (d) => (err += d));
    const port = await new Promise<string>((resolve, reject) => {
      service.stdout!.once('data', (d) => resolve(String(d).trim()));
      service.once('exit', (code) => reject(new Error(`service exited ${code}: ${err}`)));
    });
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    service?.kill();
    await issuer?.stop();
    await webhook?.close();
    tls?.cleanup();
  });

  const call = (sub?: string) =>
    fetch(`${base}/k8s/api/v1/namespaces/ns/pods/p`, {
      headers: sub ? { authorization: `Bearer ${signJwt({ iss: issuer.url, aud: 'api', sub, exp: Math.floor(Date.now() / 1000) + 60 }, key, 'ES256')}` } : {},
    });

  test.each([
    ['alice, whom the webhook allows', 'alice', 200],
    ['bob, whom it denies', 'bob', 403],
    ['no token', undefined, 401],
  ])('%s', async (_who, sub, status) => {
    const res = await call(sub);
    expect(res.status).toBe(status);
    if (status === 200) expect(await res.json()).toEqual({ user: 'alice' });
  });
});
