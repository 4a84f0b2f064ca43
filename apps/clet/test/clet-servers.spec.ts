// The built clet binary with its three servers over real TLS: flag-default anonymous access, x509
// client certificates, bearer tokens through TokenReview, and SubjectAccessReview authorization.
// A small HTTPS server in this file stands in for the API server: it answers TokenReview and
// SubjectAccessReview the way the real API server does, and counts the calls so caching is visible.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
// run.ts loads @cl/pki lazily only to keep the agent's start-up fast; a test may load it eagerly.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createCA, issueClientCert, issueServingCert, certificateSubject, type PemPair } from '@cl/pki';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';
import { freePort, get, isListening, removePodLogs, startClet, type CletProcess } from './clet-harness';

jest.setTimeout(120_000);

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

let tmp: string;
let ctd: PrivateContainerd;
let ca: PemPair;
let otherCa: PemPair;
let alice: PemPair;
let carol: PemPair;
let stranger: PemPair;
let dave: PemPair;
let api: Server;
const reviews = { token: 0, sar: 0, sarBodies: [] as Array<Record<string, unknown>> };
const running: CletProcess[] = [];

function standaloneArgs(dir: string, ports: { port: number; ro: number; hz: number }): string[] {
  return [
    '--fail-cgroupv1=false',
    '--fail-swap-on=false',
    `--root-dir=${join(dir, 'root')}`,
    `--cert-dir=${join(dir, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`,
    '--hostname-override=Node1',
    '--address=127.0.0.1',
    `--port=${ports.port}`,
    `--read-only-port=${ports.ro}`,
    `--healthz-port=${ports.hz}`,
  ];
}

async function ports() {
  return { port: await freePort(), ro: await freePort(), hz: await freePort() };
}

async function clet(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CletProcess> {
  const p = await startClet(args, env);
  running.push(p);
  if (p.child.exitCode !== null) throw new Error(`clet exited ${p.child.exitCode}:\n${p.stderr()}`);
  return p;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'clet-servers-'));
  ctd = await startContainerd();
  ca = await createCA('clet-test-client-ca');
  otherCa = await createCA('someone-else');
  alice = await issueClientCert(ca, { cn: 'alice', groups: ['admins'] });
  carol = await issueClientCert(ca, { cn: 'carol' });
  stranger = await issueClientCert(otherCa, { cn: 'alice' });
  dave = await issueClientCert(ca, { cn: 'dave' });
  writeFileSync(join(tmp, 'ca.pem'), ca.certPem);

  const apiServing = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  api = createHttpsServer({ cert: apiServing.certPem, key: apiServing.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      // The agent joins the cluster through --clconfig too (nodes, leases, pods, events): this server only
      // reviews, so everything else is not found, as from an API server that does not serve it.
      const review = (req.method === 'POST' && body ? JSON.parse(body) : { spec: {} }) as { spec: Record<string, unknown> };
      if (req.method === 'POST' && req.url === '/apis/authentication.k8s.io/v1/tokenreviews') {
        reviews.token++;
        const ok = review.spec.token === 'good-token';
        const status = ok ? { authenticated: true, user: { username: 'bob', uid: 'b-1', groups: ['readers'] } } : { authenticated: false };
        res.end(JSON.stringify({ ...review, status }));
      } else if (req.method === 'POST' && req.url === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
        reviews.sar++;
        reviews.sarBodies.push(review.spec);
        if (review.spec.user === 'dave') {
          res.statusCode = 500;
          return res.end('{"kind":"Status","status":"Failure","code":500}');
        }
        const allowed = review.spec.user === 'alice' || review.spec.user === 'bob';
        res.end(JSON.stringify({ ...review, status: allowed ? { allowed: true, reason: 'test allows' } : { allowed: false, reason: 'nope' } }));
      } else {
        res.statusCode = 404;
        res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
      }
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r()));
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const nodeCert = await issueClientCert(ca, { cn: 'system:node:node1', groups: ['system:nodes'] });
  writeFileSync(
    join(tmp, 'clconfig.yaml'),
    `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:${(api.address() as AddressInfo).port}
    certificate-authority-data: ${b64(ca.certPem)}
users:
- name: node
  user:
    client-certificate-data: ${b64(nodeCert.certPem)}
    client-key-data: ${b64(nodeCert.keyPem)}
contexts:
- name: test
  context: {cluster: test, user: node}
current-context: test
`,
  );
});

afterAll(async () => {
  for (const p of running) await p.stop();
  api?.closeAllConnections();
  await new Promise((r) => api?.close(r));
  await ctd?.stop();
  removePodLogs('default', 'web-node1');
  rmSync(tmp, { recursive: true, force: true });
});

describe('flag defaults: anonymous + AlwaysAllow', () => {
  let p: { port: number; ro: number; hz: number };
  let dir: string;
  let proc: CletProcess;
  beforeAll(async () => {
    dir = join(tmp, 'defaults');
    p = await ports();
    const images = ensureTestImages(ctd.socket);
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(
      join(dir, 'manifests', 'web.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web' },
        spec: {
          hostNetwork: true,
          containers: [{ name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'] }],
        },
      }),
    );
    proc = await clet([
      ...standaloneArgs(dir, p),
      `--pod-manifest-path=${join(dir, 'manifests')}`,
      '--file-check-frequency=1s',
      '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256',
    ]);
  });

  test('health server: ping only, upstream bodies, 404 elsewhere', async () => {
    const base = `http://127.0.0.1:${p.hz}`;
    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(`${base}/healthz`)).headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(await get(`${base}/healthz?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    expect(await get(`${base}/healthz?exclude=ping&verbose`)).toMatchObject({ body: '[+]ping excluded: ok\nhealthz check passed\n' });
    expect(await get(`${base}/healthz/ping`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${base}/foo`)).toMatchObject({ status: 404, body: '404 page not found\n' });
  });

  test('read-only server: no authentication, shared handlers, debugging disabled', async () => {
    const base = `http://127.0.0.1:${p.ro}`;
    expect(await get(`${base}/healthz?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n' });
    const pods = await get(`${base}/pods`);
    expect(pods.status).toBe(200);
    expect(pods.headers['content-type']).toBe('application/json');
    expect(JSON.parse(pods.body)).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: expect.any(Array) });
    for (const path of ['/containerLogs/default/x/y', '/exec/a/b/c', '/runningpods/']) {
      expect(await get(base + path)).toMatchObject({ status: 405, body: 'Debug endpoints are disabled.\n' });
    }
    expect((await get(`${base}/configz`)).status).toBe(404);
    expect((await get(`${base}/spec/`)).status).toBe(404);
    const metrics = await get(`${base}/metrics`);
    expect(metrics.body).toMatch(/\nclet_running_pods \d+\n/);
    expect(metrics.body).toContain('clet_node_name{node="node1"} 1');
  });

  test('main server: self-signed pair in --cert-dir, anonymous allowed, /configz shows the flags', async () => {
    const crt = readFileSync(join(dir, 'pki', 'clet.crt'), 'utf8');
    expect(statSync(join(dir, 'pki', 'clet.key')).mode & 0o777).toBe(0o600);
    expect(certificateSubject(crt).commonName).toMatch(/^node1@\d+$/);
    // The file holds the serving certificate followed by its own CA, which a client can trust.
    const caOfServer = crt.slice(crt.indexOf('-----BEGIN CERTIFICATE-----', 10));
    const base = `https://127.0.0.1:${p.port}`;
    expect((await get(`${base}/pods`, { ca: caOfServer })).status).toBe(200);
    const configz = JSON.parse((await get(`${base}/configz`)).body) as { kubeletconfig: Record<string, unknown> };
    expect(configz.kubeletconfig).toMatchObject({ port: p.port, readOnlyPort: p.ro, healthzPort: p.hz, failSwapOn: false, syncFrequency: '1m0s' });
  });

  test('/pods serves the running static pod with its status, on both servers', async () => {
    let pod: { metadata: { name: string; namespace: string }; status?: { phase?: string } } | undefined;
    // Poll until the runtime reports the pod running; the suite's timeout bounds the wait.
    while (pod?.status?.phase !== 'Running') {
      await new Promise((r) => setTimeout(r, 500));
      pod = JSON.parse((await get(`http://127.0.0.1:${p.ro}/pods`)).body).items[0];
    }
    expect(pod.metadata).toMatchObject({ name: 'web-node1', namespace: 'default' });
    const main = JSON.parse((await get(`https://127.0.0.1:${p.port}/pods`)).body);
    expect(main.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['web-node1']);
    expect((await get(`http://127.0.0.1:${p.ro}/metrics`)).body).toContain('clet_running_pods 1');
  });

  test('--tls-cipher-suites limits TLS 1.2 to the listed suites', async () => {
    const base = `https://127.0.0.1:${p.port}`;
    expect((await get(`${base}/healthz`, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).status).toBe(200);
    await expect(get(`${base}/healthz`, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).rejects.toThrow();
  });

  test('SIGTERM ends the agent with status 0', async () => {
    expect(await proc.stop()).toBe(0);
    expect(await isListening(p.hz)).toBe(false);
  });
});

describe('x509, TokenReview and SubjectAccessReview', () => {
  let base: string;
  let proc: CletProcess;
  beforeAll(async () => {
    const p = await ports();
    proc = await clet([
      ...standaloneArgs(join(tmp, 'secure'), { ...p, ro: 0, hz: 0 }),
      '--anonymous-auth=false',
      `--client-ca-file=${join(tmp, 'ca.pem')}`,
      '--authentication-token-webhook',
      '--authorization-mode=Webhook',
      `--clconfig=${join(tmp, 'clconfig.yaml')}`,
      '--tls-min-version=VersionTLS13',
    ]);
    base = `https://127.0.0.1:${p.port}`;
  });

  test('--read-only-port=0 and --healthz-port=0 start neither server', () => {
    expect(proc.stderr()).not.toContain('Started healthz server');
    expect(proc.stderr()).not.toContain('Starting to listen read-only');
  });

  test('no credentials: 401 Unauthorized, also on /healthz', async () => {
    expect(await get(`${base}/pods`)).toMatchObject({ status: 401, body: 'Unauthorized' });
    expect((await get(`${base}/healthz`)).status).toBe(401);
  });

  test('a certificate from another CA is rejected', async () => {
    expect((await get(`${base}/pods`, { cert: stranger.certPem, key: stranger.keyPem })).status).toBe(401);
  });

  test('client certificate: authorized by the webhook (200), once per cache TTL', async () => {
    const before = reviews.sar;
    expect((await get(`${base}/pods`, { cert: alice.certPem, key: alice.keyPem })).status).toBe(200);
    expect(reviews.sarBodies[reviews.sarBodies.length - 1]).toEqual({
      user: 'alice',
      groups: ['admins', 'system:authenticated'],
      extra: expect.any(Object),
      resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'proxy', name: 'node1' },
    });
    expect((await get(`${base}/pods`, { cert: alice.certPem, key: alice.keyPem })).status).toBe(200);
    expect(reviews.sar).toBe(before + 1);
  });

  test('path-to-subresource mapping reaches the webhook', async () => {
    await get(`${base}/metrics`, { cert: alice.certPem, key: alice.keyPem });
    await get(`${base}/stats/summary`, { cert: alice.certPem, key: alice.keyPem });
    const subs = reviews.sarBodies.map((b) => (b.resourceAttributes as { subresource: string }).subresource);
    expect(subs).toEqual(expect.arrayContaining(['metrics', 'stats']));
  });

  test('denied by the webhook: 403 naming user, verb and subresources', async () => {
    const r = await get(`${base}/pods`, { cert: carol.certPem, key: carol.keyPem });
    expect(r).toMatchObject({ status: 403, body: 'Forbidden (user=carol, verb=get, resource=nodes, subresource(s)=[proxy])\n' });
  });

  test('a failing webhook is a 500 Authorization error, not a decision', async () => {
    const r = await get(`${base}/pods`, { cert: dave.certPem, key: dave.keyPem });
    expect(r).toMatchObject({ status: 500, body: 'Authorization error (user=dave, verb=get, resource=nodes, subresource=proxy)' });
  });

  test('bearer token through TokenReview, cached for its TTL', async () => {
    const before = reviews.token;
    expect((await get(`${base}/pods`, { token: 'good-token' })).status).toBe(200);
    expect((await get(`${base}/pods`, { token: 'good-token' })).status).toBe(200);
    expect(reviews.token).toBe(before + 1);
    expect((await get(`${base}/pods`, { token: 'bad-token' })).status).toBe(401);
  });

  test('--tls-min-version=VersionTLS13 refuses a TLS 1.2 client', async () => {
    await expect(get(`${base}/pods`, { cert: alice.certPem, key: alice.keyPem, maxVersion: 'TLSv1.2' })).rejects.toThrow();
  });

  test('kubectl 1.33 reads /pods with a client certificate', () => {
    const kc = join(tmp, 'kubectl.yaml');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    writeFileSync(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${base}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {client-certificate-data: ${b64(alice.certPem)}, client-key-data: ${b64(alice.keyPem)}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
    const out = execFileSync(KUBECTL, ['--kubeconfig', kc, 'get', '--raw', '/pods'], { encoding: 'utf8' });
    expect(JSON.parse(out)).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
  });
});

describe('--enable-debugging-handlers=false and --enable-server=false', () => {
  test('the main server keeps /pods but drops /configz and the debugging handlers', async () => {
    const p = await ports();
    await clet([...standaloneArgs(join(tmp, 'nodebug'), { ...p, ro: 0 }), '--enable-debugging-handlers=false']);
    const base = `https://127.0.0.1:${p.port}`;
    expect((await get(`${base}/pods`)).status).toBe(200);
    expect((await get(`${base}/configz`)).status).toBe(404);
    expect(await get(`${base}/exec/a/b/c`)).toMatchObject({ status: 405, body: 'Debug endpoints are disabled.\n' });
  });

  test('--healthz-bind-address puts the health server on that address only', async () => {
    const p = await ports();
    await clet([...standaloneArgs(join(tmp, 'hzaddr'), p), '--healthz-bind-address=::1']);
    expect((await get(`http://[::1]:${p.hz}/healthz`)).body).toBe('ok');
    expect(await isListening(p.hz)).toBe(false);
  });

  test('nothing listens on --port without the server', async () => {
    const p = await ports();
    await clet([...standaloneArgs(join(tmp, 'noserver'), p), '--enable-server=false']);
    expect(await isListening(p.port)).toBe(false);
    expect((await get(`http://127.0.0.1:${p.hz}/healthz`)).body).toBe('ok');
  });
});
