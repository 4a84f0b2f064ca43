// The black-box cases of healthz.md §11 that belong to the handler (the auth cases live with the API server).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { BootStep, HealthChecks, ShutdownCheck, healthSliMetrics, notFound, pingCheck, type HealthCheck } from './index';

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
const NAMES = ['ping', 'log', 'store', ...HOOKS];
const LINES_A = NAMES.map((n) => `[+]${n} ok\n`).join('');
const withLine = (i: number, line: string) => NAMES.map((n, j) => (j === i ? line : `[+]${n} ok\n`)).join('');

interface Fixture {
  storeError: string | null;
  steps: Map<string, BootStep>;
  shutdown: ShutdownCheck;
  logs: string[];
  registry: Registry;
  url: string;
  close(): Promise<void>;
}

async function start(opts: { graceMs?: number; unfinished?: string[] } = {}): Promise<Fixture> {
  const logs: string[] = [];
  const registry = new Registry();
  const checks = new HealthChecks({ log: (l) => logs.push(l), metrics: healthSliMetrics(registry) });
  const fx = { storeError: null as string | null } as Fixture;
  const all = ['healthz', 'livez', 'readyz'] as const;
  checks.add(all, pingCheck());
  checks.add(all, { name: 'log', check: async () => undefined });
  const store: HealthCheck = {
    name: 'store',
    check: async () => {
      if (fx.storeError) throw new Error(fx.storeError);
    },
  };
  checks.add(all, store);
  const steps = new Map<string, BootStep>();
  for (const h of HOOKS) {
    const step = new BootStep(h);
    if (!opts.unfinished?.includes(h)) step.finish();
    steps.set(h, step);
    checks.add(all, step, { livezGraceMs: opts.graceMs ?? 0 });
  }
  const shutdown = new ShutdownCheck();
  checks.add(['readyz'], shutdown);
  const server: Server = createServer(async (req, res) => {
    if (!(await checks.handle(req, res))) notFound(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(fx, {
    steps,
    shutdown,
    logs,
    registry,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
  return fx;
}

function get(fx: Fixture, path: string, method = 'GET'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(fx.url + path, { method }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('healthy server (healthz.md §11)', () => {
  let fx: Fixture;
  beforeAll(async () => (fx = await start()));
  afterAll(() => fx.close());

  const cases: Array<[number, string, number, string]> = [
    [1, '/livez', 200, 'ok'],
    [2, '/readyz', 200, 'ok'],
    [3, '/healthz', 200, 'ok'],
    [4, '/livez?verbose', 200, LINES_A + 'livez check passed\n'],
    [5, '/readyz?verbose', 200, LINES_A + '[+]shutdown ok\nreadyz check passed\n'],
    [6, '/healthz?verbose', 200, LINES_A + 'healthz check passed\n'],
    [7, '/livez?verbose=false', 200, LINES_A + 'livez check passed\n'],
    [8, '/livez?verbose=', 200, LINES_A + 'livez check passed\n'],
    [9, '/livez?Verbose', 200, 'ok'],
    [10, '/readyz?verbose&exclude=store', 200, withLine(2, '[+]store excluded: ok\n') + '[+]shutdown ok\nreadyz check passed\n'],
    [11, '/readyz?exclude=store', 200, 'ok'],
    [12, '/livez?verbose&exclude=ping&exclude=log', 200, '[+]ping excluded: ok\n[+]log excluded: ok\n' + NAMES.slice(2).map((n) => `[+]${n} ok\n`).join('') + 'livez check passed\n'],
    [13, '/livez?verbose&exclude=ping,log', 200, LINES_A + 'warn: some health checks cannot be excluded: no matches for "ping,log"\nlivez check passed\n'],
    [14, '/livez?verbose&exclude=zzz&exclude=aaa', 200, LINES_A + 'warn: some health checks cannot be excluded: no matches for "aaa","zzz"\nlivez check passed\n'],
    [15, '/livez?verbose&exclude=ping&exclude=ping', 200, withLine(0, '[+]ping excluded: ok\n') + 'livez check passed\n'],
    [16, '/livez?exclude=nonexistent', 200, 'ok'],
    [17, '/livez?verbose&exclude=shutdown', 200, LINES_A + 'warn: some health checks cannot be excluded: no matches for "shutdown"\nlivez check passed\n'],
    [18, '/readyz?verbose&exclude=poststarthook%2Frbac%2Fbootstrap-roles', 200, withLine(9, '[+]poststarthook/rbac/bootstrap-roles excluded: ok\n') + '[+]shutdown ok\nreadyz check passed\n'],
    [19, '/livez?verbose&exclude=', 200, LINES_A + 'warn: some health checks cannot be excluded: no matches for ""\nlivez check passed\n'],
    [20, '/livez/ping', 200, 'ok'],
    [21, '/readyz/poststarthook/rbac/bootstrap-roles', 200, 'ok'],
    [22, '/readyz/shutdown', 200, 'ok'],
    [23, '/livez/shutdown', 404, '404 page not found\n'],
    [24, '/healthz/shutdown', 404, '404 page not found\n'],
    [25, '/livez/does-not-exist', 404, '404 page not found\n'],
    [26, '/livez/', 404, '404 page not found\n'],
    [27, '/livez/ping?verbose&exclude=ping', 200, 'ok'],
    [28, '/LIVEZ', 404, '404 page not found\n'],
    [59, '/livez?verbose&exclude=log&exclude=missing', 200, withLine(1, '[+]log excluded: ok\n') + 'warn: some health checks cannot be excluded: no matches for "missing"\nlivez check passed\n'],
    [0, '/readyz/poststarthook%2Frbac%2Fbootstrap-roles', 200, 'ok'],
    [0, '/livez?verbose;x=1', 200, 'ok'],
    [0, '/livez?verbose&exclude=a+b', 200, LINES_A + 'warn: some health checks cannot be excluded: no matches for "a b"\nlivez check passed\n'],
  ];

  test.each(cases)('#%i GET %s', async (_n, path, status, body) => {
    const r = await get(fx, path);
    expect(r.status).toBe(status);
    expect(r.body).toBe(body);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  test('aggregate answers carry nosniff; the per-check ok does not', async () => {
    expect((await get(fx, '/livez')).headers['x-content-type-options']).toBe('nosniff');
    expect((await get(fx, '/livez/ping')).headers['x-content-type-options']).toBeUndefined();
    expect((await get(fx, '/livez/nope')).headers['x-content-type-options']).toBe('nosniff');
  });

  test('#58 HEAD answers with headers and no body; other methods reach the handler', async () => {
    const head = await get(fx, '/readyz', 'HEAD');
    expect([head.status, head.body, head.headers['content-type']]).toEqual([200, '', 'text/plain; charset=utf-8']);
    expect((await get(fx, '/livez', 'POST')).body).toBe('ok');
  });

  test('each evaluated check is recorded as an SLI metric; excluded checks are not', async () => {
    const own = await start();
    await get(own, '/readyz?exclude=ping');
    const text = await own.registry.metrics();
    await own.close();
    expect(text).toContain('kubernetes_healthcheck{name="store",type="readyz"} 1');
    expect(text).toMatch(/kubernetes_healthchecks_total\{name="store",status="success",type="readyz"\} \d+/);
    expect(text).not.toContain('kubernetes_healthcheck{name="ping",type="readyz"}');
  });
});

describe('failing store (healthz.md §11 #29-#34)', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await start();
    fx.storeError = 'error getting data from store: connection refused';
  });
  afterAll(() => fx.close());
  const failing = withLine(2, '[-]store failed: reason withheld\n');

  test.each([
    [29, '/livez', 500, failing + 'livez check failed\n'],
    [30, '/livez?verbose', 500, failing + 'livez check failed\n'],
    [31, '/livez?exclude=store', 200, 'ok'],
    [32, '/livez/store', 500, 'internal server error: error getting data from store: connection refused\n'],
    [33, '/readyz?exclude=nope', 500, failing + '[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check failed\n'],
    [34, '/livez/ping', 200, 'ok'],
  ])('#%i GET %s', async (_n, path, status, body) => {
    const r = await get(fx, path as string);
    expect([r.status, r.body]).toEqual([status, body]);
  });

  test('the reason reaches the log, never the aggregate body', async () => {
    const r = await get(fx, '/healthz');
    expect(r.body).not.toContain('connection refused');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(fx.logs.some((l) => l.includes('store check failed: healthz') && l.includes('[-]store failed: error getting data from store: connection refused'))).toBe(true);
  });
});

describe('unfinished boot step (healthz.md §11 #35-#42)', () => {
  const hook = 'poststarthook/rbac/bootstrap-roles';
  const failingLine = `[-]${hook} failed: reason withheld\n`;

  test('#35-#37 with no grace period every endpoint fails on it', async () => {
    const fx = await start({ unfinished: [hook] });
    try {
      const ready = await get(fx, '/readyz');
      expect(ready.status).toBe(500);
      expect(ready.body).toContain(failingLine);
      expect(ready.body.endsWith('readyz check failed\n')).toBe(true);
      expect((await get(fx, `/readyz/${hook}`)).body).toBe('internal server error: not finished\n');
      const live = await get(fx, '/livez');
      expect([live.status, live.body.endsWith('livez check failed\n')]).toEqual([500, true]);
      fx.steps.get(hook)!.finish();
      expect(await get(fx, '/readyz')).toMatchObject({ status: 200, body: 'ok' }); // #42
    } finally {
      await fx.close();
    }
  });

  test('#38-#40 inside the livez grace period only /livez passes', async () => {
    const fx = await start({ unfinished: [hook], graceMs: 3_600_000 });
    try {
      expect(await get(fx, '/livez')).toMatchObject({ status: 200, body: 'ok' });
      expect(await get(fx, `/livez/${hook}`)).toMatchObject({ status: 200, body: 'ok' });
      const h = await get(fx, '/healthz');
      expect([h.status, h.body.includes(failingLine), h.body.endsWith('healthz check failed\n')]).toEqual([500, true, true]);
    } finally {
      await fx.close();
    }
  });

  test('#41 once the grace period has elapsed /livez fails on it', async () => {
    const fx = await start({ unfinished: [hook], graceMs: 1 });
    try {
      await new Promise((r) => setTimeout(r, 20));
      const live = await get(fx, '/livez');
      expect([live.status, live.body.includes(failingLine)]).toEqual([500, true]);
    } finally {
      await fx.close();
    }
  });
});

describe('shutdown initiated (healthz.md §11 #43-#46)', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await start();
    fx.shutdown.initiate();
  });
  afterAll(() => fx.close());

  test.each([
    [43, '/readyz', 500, LINES_A + '[-]shutdown failed: reason withheld\nreadyz check failed\n'],
    [44, '/livez', 200, 'ok'],
    [44, '/healthz', 200, 'ok'],
    [45, '/readyz/shutdown', 500, 'internal server error: process is shutting down\n'],
    [46, '/readyz?exclude=shutdown', 200, 'ok'],
  ])('#%i GET %s', async (_n, path, status, body) => {
    const r = await get(fx, path as string);
    expect([r.status, r.body]).toEqual([status, body]);
  });
});
