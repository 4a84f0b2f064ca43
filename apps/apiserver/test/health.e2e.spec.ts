// The built binary over real TLS: health endpoints through kubectl 1.33, /version, /metrics, shutdown.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@cl/testing';
import { httpsGet, kubectl, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(120_000);

const HOOKS = [
  'poststarthook/start-cl-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-cl-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/cl-apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
];
const LINES_A = ['ping', 'log', 'store', ...HOOKS].map((n) => `[+]${n} ok\n`).join('');

describe('apiserver on the embedded store', () => {
  let api: ApiserverProcess;
  beforeAll(async () => (api = await startApiserverProcess()));
  afterAll(() => api.cleanup());

  test('kubectl get --raw /readyz?verbose prints the whole report in the spec order', () => {
    const r = kubectl(api.kubeconfig, ['get', '--raw', '/readyz?verbose']);
    expect(r.stderr).toBe('');
    expect([r.status, r.stdout]).toEqual([0, LINES_A + '[+]shutdown ok\nreadyz check passed\n']);
  });

  test.each([
    ['/livez?verbose', LINES_A + 'livez check passed\n'],
    ['/healthz?verbose', LINES_A + 'healthz check passed\n'],
    ['/livez', 'ok'],
    ['/readyz/poststarthook/rbac/bootstrap-roles', 'ok'],
    ['/readyz?verbose&exclude=store', LINES_A.replace('[+]store ok', '[+]store excluded: ok') + '[+]shutdown ok\nreadyz check passed\n'],
  ])('kubectl get --raw %s', (path, body) => {
    const r = kubectl(api.kubeconfig, ['get', '--raw', path]);
    expect([r.status, r.stdout]).toEqual([0, body]);
  });

  test('an unknown check is NotFound for kubectl (exit 1)', () => {
    const r = kubectl(api.kubeconfig, ['get', '--raw', '/livez/nope']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): the server could not find the requested resource');
  });

  test('headers as upstream, HEAD without a body', async () => {
    const live = await httpsGet(api, '/livez');
    expect(live.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(live.headers['x-content-type-options']).toBe('nosniff');
    expect(live.headers['cache-control']).toBe('no-cache, private');
    const head = await httpsGet(api, '/readyz', { method: 'HEAD' });
    expect([head.status, head.body]).toEqual([200, '']);
    expect((await httpsGet(api, '/LIVEZ')).body).toBe('404 page not found\n');
  });

  test('/version answers like a 1.33 server, and kubectl version reads it', async () => {
    const v = JSON.parse((await httpsGet(api, '/version')).body);
    expect(v).toMatchObject({ major: '1', minor: '33', gitVersion: expect.stringMatching(/^v1\.33\.0/) });
    const r = kubectl(api.kubeconfig, ['version', '-o', 'json']);
    expect(JSON.parse(r.stdout).serverVersion.gitVersion).toBe(v.gitVersion);
  });

  test('/metrics counts requests by verb, path class and code; /metrics/slis has the health SLIs', async () => {
    await httpsGet(api, '/livez');
    await httpsGet(api, '/no/such/thing');
    const m = (await httpsGet(api, '/metrics')).body;
    expect(m).toMatch(/apiserver_request_total\{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="\/livez",verb="GET",version=""\} \d+/);
    expect(m).toMatch(/apiserver_request_total\{code="404",[^}]*subresource="other",verb="GET"[^}]*\} \d+/);
    expect(m).toMatch(/apiserver_request_duration_seconds_bucket\{(?=[^}]*subresource="\/livez")(?=[^}]*le="0.005")[^}]*\} \d+/);
    const slis = (await httpsGet(api, '/metrics/slis')).body;
    expect(slis).toContain('kubernetes_healthcheck{name="store",type="livez"} 1');
    expect(slis).toMatch(/kubernetes_healthchecks_total\{name="ping",status="success",type="readyz"\} \d+/);
  });

  test('odd requests never crash the server', async () => {
    const paths = [
      '/livez?' + 'exclude=x&'.repeat(1000),
      '/livez?verbose=' + 'a'.repeat(8000),
      '/%zz',
      '/readyz/%2e%2e/%2e%2e/etc/passwd',
      '//livez',
      '/livez?exclude=%ff%fe',
      '/api/v1/namespaces/../../..',
      '/' + 'x/'.repeat(2000),
    ];
    for (const p of paths) {
      const r = await httpsGet(api, p);
      expect(r.status).toBeGreaterThanOrEqual(200);
    }
    // Headers up to 1 MiB are read (as Go's server); beyond that the request is Go's 431 and the connection closed.
    expect(await httpsGet(api, '/livez?' + 'q'.repeat(100_000))).toMatchObject({ status: 200, body: 'ok' });
    const huge = await httpsGet(api, '/livez?' + 'q'.repeat(2_000_000)).catch((e: Error) => ({ status: 0, body: e.message }));
    expect(huge).toMatchObject({ status: 431, body: '431 Request Header Fields Too Large' });
    // A large token is read and judged by authentication: one nobody accepts is a 401, as upstream (never anonymous).
    const bigToken = await httpsGet(api, '/livez', { headers: { authorization: `Bearer ${'a'.repeat(200_000)}` } });
    expect(bigToken.status).toBe(401);
    expect((await httpsGet(api, '/livez')).body).toBe('ok');
  });

  test('a target that only URL normalisation turns into a health path is answered 404, not left open', async () => {
    for (const p of ['/a/../livez', '/readyz/./ping']) {
      expect(await httpsGet(api, p)).toMatchObject({ status: 404, body: '404 page not found\n' });
    }
  });

  test('the self-signed pair is generated once and kept in --cert-dir', async () => {
    const first = readFileSync(join(api.dir, 'certs', 'apiserver.crt'), 'utf8');
    const again = await startApiserverProcess([], { dir: api.dir + '-second' });
    try {
      expect(readFileSync(join(again.dir, 'certs', 'apiserver.crt'), 'utf8')).not.toBe(first);
    } finally {
      await again.cleanup();
    }
    // A restart on the same cert dir reuses the pair.
    await api.kill();
    api = await startApiserverProcess([], { dir: api.dir, port: api.port });
    expect(readFileSync(join(api.dir, 'certs', 'apiserver.crt'), 'utf8')).toBe(first);
  });
});

describe('graceful shutdown', () => {
  test('SIGTERM: readyz fails at once, livez and healthz stay 200 for the delay, then exit 0', async () => {
    const api = await startApiserverProcess(['--shutdown-delay-duration=3s']);
    try {
      api.child.kill('SIGTERM');
      // A request already in flight when the delay ends still completes.
      let ready = await httpsGet(api, '/readyz');
      for (let i = 0; i < 50 && ready.status === 200; i++) ready = await httpsGet(api, '/readyz');
      expect(ready.status).toBe(500);
      expect(ready.body).toBe(LINES_A + '[-]shutdown failed: reason withheld\nreadyz check failed\n');
      expect((await httpsGet(api, '/readyz/shutdown')).body).toBe('internal server error: process is shutting down\n');
      expect((await httpsGet(api, '/livez')).status).toBe(200);
      expect((await httpsGet(api, '/healthz')).status).toBe(200);
      expect((await httpsGet(api, '/readyz?exclude=shutdown')).status).toBe(200);
      expect(await api.exited).toBe(0);
      await expect(httpsGet(api, '/livez')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await api.cleanup();
    }
  });
});

describe('graceful shutdown with --shutdown-send-retry-after', () => {
  test('after the delay new requests get 429 with Retry-After while health paths are still served', async () => {
    const api = await startApiserverProcess(['--shutdown-delay-duration=1s', '--shutdown-send-retry-after=true']);
    try {
      // Keep one request in flight (a body that never ends) so the server has to drain before it stops.
      const { request } = await import('node:https');
      const held = request({ host: '127.0.0.1', port: api.port, path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json', 'content-length': '200' } });
      held.on('error', () => undefined);
      held.write('x');
      await new Promise((r) => setTimeout(r, 200));
      api.child.kill('SIGTERM');
      const r = await waitFor(async () => {
        const got = await httpsGet(api, '/version');
        return got.status === 429 ? got : undefined;
      }, 'a 429 after the shutdown delay');
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.body).toBe('The apiserver is shutting down, please try again later.\n');
      expect((await httpsGet(api, '/livez')).status).toBe(200);
      expect((await httpsGet(api, '/readyz')).status).toBe(500);
      held.end(' '.repeat(199));
      expect(await api.exited).toBe(0);
    } finally {
      await api.cleanup();
    }
  });
});
