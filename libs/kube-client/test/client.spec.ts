// KubeClient against the real API server: CRUD and the Status errors callers branch on, patches, list paging,
// the shared rate limiter, watches, and the protobuf preference; headers, non-Status errors and timeouts against
// a scripted local server.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, isAlreadyExists, isConflict, isGone, isInvalid, isNotFound, KubeClient, loadKubeconfig, PROTOBUF_MEDIA_TYPE, resourcePath, type WatchEventType } from '../src';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

/** The API server without its in-process controllers. */
const QUIET = ['--controllers='];

interface ConfigMap {
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

let api: ApiserverProcess;
let client: KubeClient;
const cms = (ns: string, name?: string) => resourcePath({ version: 'v1', resource: 'configmaps', namespace: ns, name });

beforeAll(async () => {
  // No in-process controllers: the cases count the objects of a namespace exactly (no kube-root-ca.crt).
  api = await startApiserverProcess(QUIET);
  client = clientFor(api);
  for (const ns of ['crud', 'paging', 'watch', 'limits', 'proto']) await client.create('/api/v1/namespaces', { metadata: { name: ns } });
});
afterAll(async () => {
  client?.close();
  await api?.cleanup();
});

describe('CRUD', () => {
  test('create, get, update, delete a config map', async () => {
    const created = await client.create<ConfigMap>(cms('crud'), { metadata: { name: 'a' }, data: { k: 'v1' } });
    expect(created).toMatchObject({ metadata: { name: 'a', namespace: 'crud', uid: expect.any(String), resourceVersion: expect.stringMatching(/^\d+$/) }, data: { k: 'v1' } });
    expect(await client.get<ConfigMap>(cms('crud', 'a'))).toEqual(expect.objectContaining({ data: { k: 'v1' } }));
    const updated = await client.update<ConfigMap>(cms('crud', 'a'), { ...created, data: { k: 'v2' } });
    expect(updated.data).toEqual({ k: 'v2' });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    await client.delete(cms('crud', 'a'), { propagationPolicy: 'Background' });
    await expect(client.get(cms('crud', 'a'))).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
  });

  const stale = async () => {
    const cm = await client.create<ConfigMap>(cms('crud'), { metadata: { name: 'stale' } });
    await client.update(cms('crud', 'stale'), { ...cm, data: { x: '1' } });
    return client.update(cms('crud', 'stale'), { ...cm, data: { x: '2' } });
  };
  test.each<[string, number, string, () => Promise<unknown>, (e: unknown) => boolean, string | RegExp]>([
    ['get of a missing object', 404, 'NotFound', () => client.get(cms('crud', 'nope')), isNotFound, 'configmaps "nope" not found'],
    ['delete of a missing object', 404, 'NotFound', () => client.delete(cms('crud', 'nope')), isNotFound, 'configmaps "nope" not found'],
    ['patch of a missing object', 404, 'NotFound', () => client.patch(cms('crud', 'nope'), { data: {} }), isNotFound, 'configmaps "nope" not found'],
    ['create of an existing object', 409, 'AlreadyExists', async () => { await client.create(cms('crud'), { metadata: { name: 'twice' } }); return client.create(cms('crud'), { metadata: { name: 'twice' } }); }, isAlreadyExists, 'configmaps "twice" already exists'],
    ['update from a stale resourceVersion', 409, 'Conflict', stale, isConflict, /^Operation cannot be fulfilled on configmaps "stale"/],
    ['create with an invalid name', 422, 'Invalid', () => client.create(cms('crud'), { metadata: { name: 'Not_Valid' } }), isInvalid, /^ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value/],
    ['create in a missing namespace', 404, 'NotFound', () => client.create(cms('no-such-ns'), { metadata: { name: 'x' } }), isNotFound, 'namespaces "no-such-ns" not found'],
  ])('%s: %d %s', async (_name, code, reason, call, is, message) => {
    const e = await call().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code, reason, status: { kind: 'Status', code, reason } });
    expect((e as ApiError).message).toMatch(message);
    expect(is(e)).toBe(true);
  });
});

describe('patch', () => {
  test('strategic merge (the default): null deletes a key, others merge', async () => {
    await client.create(cms('crud'), { metadata: { name: 'smp', labels: { keep: 'yes' } }, data: { a: '1', b: '2' } });
    const patched = await client.patch<ConfigMap>(cms('crud', 'smp'), { metadata: { labels: { added: 'too' } }, data: { b: null, c: '3' } });
    expect([patched.metadata.labels, patched.data]).toEqual([{ keep: 'yes', added: 'too' }, { a: '1', c: '3' }]);
  });

  test('merge and JSON patches', async () => {
    await client.create(cms('crud'), { metadata: { name: 'other-patches' }, data: { a: '1' } });
    expect((await client.patch<ConfigMap>(cms('crud', 'other-patches'), { data: { b: '2' } }, 'merge')).data).toEqual({ a: '1', b: '2' });
    expect((await client.patch<ConfigMap>(cms('crud', 'other-patches'), [{ op: 'remove', path: '/data/a' }], 'json')).data).toEqual({ b: '2' });
  });
});

test('list with a limit follows the continue pages; a get with it shows one page', async () => {
  const names = Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
  for (const name of names) await client.create(cms('paging'), { metadata: { name } });
  const page = await client.get<{ items: ConfigMap[]; metadata: { continue?: string } }>(cms('paging'), { limit: 10 });
  expect([page.items.length, typeof page.metadata.continue]).toEqual([10, 'string']);
  const all = await client.list<ConfigMap>(cms('paging'), { limit: 10 });
  expect(all.items.map((c) => c.metadata.name)).toEqual(names);
  expect(all.metadata).toEqual({ resourceVersion: expect.stringMatching(/^\d+$/) });
  const unpaged = await client.list<ConfigMap>(cms('paging'));
  expect(unpaged.items.length).toBe(25);
});

test('rate limit qps=2 burst=1: requests wait for their token, in order, and all succeed', async () => {
  const t0 = performance.now();
  const limited = new KubeClient({ ...loadKubeconfig(api.kubeconfig), qps: 2, burst: 1 });
  const N = 5;
  const done: number[] = [];
  const created = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      limited.create<ConfigMap>(cms('limits'), { metadata: { name: `r${i}` } }).then((cm) => {
        done.push(performance.now() - t0);
        return cm;
      }),
    ),
  );
  limited.close();
  // The server numbered the writes in the order they arrived: the order they were asked for.
  const rvs = created.map((c) => Number(c.metadata.resourceVersion));
  expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
  // The k-th request (from 0) had no token before k/2 s: by any time t at most 1 + 2t requests had been sent.
  done.sort((a, b) => a - b);
  expect(done.map((ms, k) => ms >= k * 500)).toEqual(Array(N).fill(true));
});

describe('watch', () => {
  test('ADDED, MODIFIED, DELETED in order; stop() ends it cleanly', async () => {
    const { metadata } = await client.list(cms('watch'));
    const events: string[] = [];
    const w = client.watch(cms('watch'), { resourceVersion: metadata.resourceVersion }, (type: WatchEventType, obj: ConfigMap) => events.push(`${type} ${obj.metadata.name} ${JSON.stringify(obj.data ?? {})}`));
    const cm = await client.create<ConfigMap>(cms('watch'), { metadata: { name: 'w' }, data: { v: '1' } });
    await client.update(cms('watch', 'w'), { ...cm, data: { v: '2' } });
    await client.delete(cms('watch', 'w'));
    await eventually(() => events.length >= 3, 'three events');
    expect(events).toEqual(['ADDED w {"v":"1"}', 'MODIFIED w {"v":"2"}', 'DELETED w {"v":"2"}']);
    w.stop();
    expect(await w.done).toBeUndefined();
  });

  test('a server-side timeout is a clean end', async () => {
    const w = client.watch(cms('watch'), { timeoutSeconds: 1 }, () => undefined);
    expect(await w.done).toBeUndefined();
  });

  test('a watch the server refuses ends with its ApiError', async () => {
    const w = client.watch(cms('watch'), { fieldSelector: 'data.x=1' }, () => undefined);
    expect(await w.done).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  test('close() ends every watch and fails later calls', async () => {
    const own = clientFor(api);
    const watches = [own.watch(cms('watch'), {}, () => undefined), own.watch(cms('watch'), {}, () => undefined)];
    await own.get(cms('watch'));
    own.close();
    expect(await Promise.all(watches.map((w) => w.done))).toEqual([undefined, undefined]);
    await expect(own.get(cms('watch'))).rejects.toThrow('the client is closed');
  });
});

test('contentType protobuf: JSON bodies, and the JSON answer the server prefers to give', async () => {
  const proto = clientFor(api, { contentType: PROTOBUF_MEDIA_TYPE });
  const created = await proto.create<ConfigMap>(cms('proto'), { metadata: { name: 'p' }, data: { k: 'v' } });
  expect(created.data).toEqual({ k: 'v' });
  expect((await proto.patch<ConfigMap>(cms('proto', 'p'), { data: { k: 'w' } })).data).toEqual({ k: 'w' });
  expect((await proto.list<ConfigMap>(cms('proto'))).items.map((c) => c.metadata.name)).toEqual(['p']);
  await expect(proto.get(cms('proto', 'missing'))).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
  proto.close();
});

test('a text answer comes back as text', async () => {
  expect(await client.get('/healthz')).toBe('ok');
});

test('a refused connection rejects with the Node error', async () => {
  const down = new KubeClient({ server: 'https://127.0.0.1:1', qps: -1 });
  await expect(down.get('/api/v1/namespaces')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  const w = down.watch('/api/v1/namespaces', {}, () => undefined);
  expect(await w.done).toMatchObject({ code: 'ECONNREFUSED' });
  down.close();
});

describe('against a scripted server', () => {
  let server: Server;
  let seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }>;
  let answer: (url: string) => { status: number; type?: string; body: string } | null;
  let base: string;

  beforeAll(async () => {
    seen = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        const a = answer(req.url ?? '');
        if (!a) return; // never answers
        res.writeHead(a.status, a.type ? { 'Content-Type': a.type } : {});
        res.end(a.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  test.each([
    ['JSON', undefined, 'application/json'],
    ['protobuf', PROTOBUF_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf, application/json'],
  ])('%s: Accept, Content-Type, User-Agent and the bearer token', async (_name, contentType, accept) => {
    answer = () => ({ status: 201, type: 'application/json', body: '{"ok":true}' });
    seen = [];
    const c = new KubeClient({ server: base, token: 't0k', contentType, userAgent: 'my-agent/1.0' });
    expect(await c.create('/api/v1/namespaces/ns/configmaps', { metadata: { name: 'x' } }, { fieldManager: 'me' })).toEqual({ ok: true });
    await c.patch('/api/v1/nodes/n/status', { status: {} });
    await c.delete('/api/v1/namespaces/ns/pods/p', { gracePeriodSeconds: 0 });
    await c.delete('/apis/coordination.k8s.io/v1/namespaces/ns/leases/l');
    c.close();
    expect(seen.map((s) => [s.method, s.url, s.headers.accept, s.headers['content-type'], s.headers['user-agent'], s.headers.authorization, s.body])).toEqual([
      ['POST', '/prefix/api/v1/namespaces/ns/configmaps?fieldManager=me', accept, 'application/json', 'my-agent/1.0', 'Bearer t0k', '{"metadata":{"name":"x"}}'],
      ['PATCH', '/prefix/api/v1/nodes/n/status', accept, 'application/strategic-merge-patch+json', 'my-agent/1.0', 'Bearer t0k', '{"status":{}}'],
      ['DELETE', '/prefix/api/v1/namespaces/ns/pods/p', accept, 'application/json', 'my-agent/1.0', 'Bearer t0k', '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}'],
      ['DELETE', '/prefix/apis/coordination.k8s.io/v1/namespaces/ns/leases/l', accept, undefined, 'my-agent/1.0', 'Bearer t0k', ''],
    ]);
  });

  test.each([
    ['a text 404', 404, 'text/plain', '404 page not found', 'GET', 'NotFound'],
    ['an HTML 409 to a POST', 409, 'text/html', '<html>conflict</html>', 'POST', 'AlreadyExists'],
    ['a JSON 409 that is no Status, to a PUT', 409, 'application/json', '{"error":"x"}', 'PUT', 'Conflict'],
    ['a 410', 410, undefined, '', 'GET', 'Gone'],
    ['a 503', 503, 'text/plain', 'down', 'GET', 'ServiceUnavailable'],
  ])('%s becomes an ApiError with the reason client-go gives', async (_name, status, type, body, method, reason) => {
    answer = () => ({ status, type, body });
    const c = new KubeClient({ server: base, qps: -1 });
    const call = method === 'POST' ? c.create('/api/v1/x', {}) : method === 'PUT' ? c.update('/api/v1/x/y', {}) : c.get('/api/v1/x');
    const e = await call.catch((err: unknown) => err);
    c.close();
    expect(e).toMatchObject({ code: status, reason, status: { kind: 'Status', code: status, reason } });
    if (status === 410) expect(isGone(e)).toBe(true);
  });

  test('requestTimeoutMs: a server that never answers fails the call', async () => {
    answer = () => null;
    const c = new KubeClient({ server: base, qps: -1, requestTimeoutMs: 200 });
    await expect(c.get('/api/v1/hang')).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    c.close();
  });

  test('a watch stream split anywhere, ERROR events end it with their Status', async () => {
    const lines = ['{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}', '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (9)","reason":"Expired","code":410}}'];
    const chunked = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const text = lines.join('\n') + '\n';
      // One byte at a time, so every event spans writes.
      let i = 0;
      const next = () => (i < text.length ? res.write(text[i++], next) : undefined);
      next();
    });
    await new Promise<void>((r) => chunked.listen(0, '127.0.0.1', r));
    const c = new KubeClient({ server: `http://127.0.0.1:${(chunked.address() as AddressInfo).port}`, qps: -1 });
    const events: Array<[string, unknown]> = [];
    const w = c.watch('/api/v1/pods', { resourceVersion: '1' }, (type, obj) => events.push([type, obj]));
    const err = await w.done;
    expect(events.map(([t]) => t)).toEqual(['ADDED', 'ERROR']);
    expect(err).toMatchObject({ code: 410, reason: 'Expired', message: 'too old resource version: 1 (9)' });
    expect(isGone(err)).toBe(true);
    c.close();
    chunked.closeAllConnections();
    chunked.close();
  });
});
