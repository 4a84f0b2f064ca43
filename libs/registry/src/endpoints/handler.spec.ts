// The REST handlers over a real embedded store, through a loopback HTTP server: watch streams (ERROR 410,
// bookmarks, initial events, timeouts), Tables, content negotiation, protobuf bodies and field warnings.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { configMap } from '@cl/api';
import { SqliteStore } from '@cl/store';
import { ResourceApi, ResourceStore, builtinKinds, type ResourceRequest } from '../index';

const dir = mkdtempSync(join(tmpdir(), 'cl-handler-'));
let store: SqliteStore;
let cms: ResourceStore;
let server: Server;
let port: number;

/** The parts of a request the API server's request-info stage would give the handler. */
function infoOf(method: string, url: string): ResourceRequest {
  const u = new URL(url, 'http://x');
  const [, , , , namespace, resource, name, subresource] = u.pathname.split('/');
  const watch = u.searchParams.get('watch') === 'true';
  const verb = method === 'POST' ? 'create' : method === 'PATCH' ? 'patch' : method === 'PUT' ? 'update' : method === 'DELETE' ? (name ? 'delete' : 'deletecollection') : name ? 'get' : watch ? 'watch' : 'list';
  return { verb, apiGroup: '', apiVersion: 'v1', resource, namespace, name: name ?? '', subresource: subresource ?? '' };
}

beforeAll(async () => {
  store = new SqliteStore(join(dir, 'store.db'));
  const strategy = builtinKinds({ eventTtlSeconds: 60 }).find((k) => k.def === configMap)!.strategy;
  // A window of 3 changes, so a watch soon falls out of it.
  cms = new ResourceStore(configMap, store, strategy, { cacheCapacity: 3 });
  await cms.start();
  const readBody = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const api = new ResourceApi([cms], { readBody, bookmarkIntervalMs: 100 });
  server = createServer((req, res) => void api.handle(req, res, infoOf(req.method!, req.url!)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  cms.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function call(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const base = '/api/v1/namespaces/ns';
const lines = (body: string) => body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> & { metadata: Record<string, unknown> } });

test('a watch from before the window gets 200, one ERROR event with a 410 Expired Status, and the end of the stream', async () => {
  const first = JSON.parse((await call('POST', `${base}/configmaps`, JSON.stringify({ metadata: { name: 'w0' } }))).body);
  for (let i = 1; i <= 4; i++) await call('POST', `${base}/configmaps`, JSON.stringify({ metadata: { name: `w${i}` } }));
  const r = await call('GET', `${base}/configmaps?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
  expect(r.status).toBe(200);
  const events = lines(r.body);
  expect(events).toHaveLength(1);
  expect(events[0].type).toBe('ERROR');
  expect(events[0].object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/) });
});

test('a last BOOKMARK comes 2 s before timeoutSeconds ends the watch', async () => {
  const api = new ResourceApi([cms], { readBody: async () => Buffer.alloc(0), bookmarkIntervalMs: 60_000 });
  const srv = createServer((req, res) => void api.handle(req, res, infoOf(req.method!, req.url!)));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    const started = Date.now();
    const r = await new Promise<{ body: string; lastAt: number }>((resolve) => {
      request({ host: '127.0.0.1', port: (srv.address() as AddressInfo).port, path: `${base}/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=3&labelSelector=none%3Dnone` }, (res) => {
        let body = '';
        let lastAt = 0;
        res.on('data', (d) => {
          body += d;
          lastAt = Date.now() - started;
        });
        res.on('end', () => resolve({ body, lastAt }));
      }).end();
    });
    expect(lines(r.body)).toEqual([{ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(cms.cache.revision) } } }]);
    // The bookmark arrived about a second into the 3 s watch, not at its end.
    expect(r.lastAt).toBeLessThan(2500);
  } finally {
    srv.close();
  }
});

test('timeoutSeconds ends a watch; bookmarks carry the current resourceVersion', async () => {
  const r = await call('GET', `${base}/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1&labelSelector=none%3Dnone`);
  const events = lines(r.body);
  expect(events.length).toBeGreaterThan(0);
  for (const e of events) expect(e).toEqual({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } } });
});

test('sendInitialEvents: ADDED for each object, then a BOOKMARK marking the end of them; it needs NotOlderThan and bookmarks', async () => {
  const r = await call('GET', `${base}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dw1`);
  const events = lines(r.body);
  expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w1' } } });
  expect(events[1]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  const bad = await call('GET', `${base}/configmaps?watch=true&sendInitialEvents=true`);
  expect(bad.status).toBe(422);
});

test('lists and gets as a Table when kubectl asks for one; includeObject picks what each row carries', async () => {
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
  const r = await call('GET', `${base}/configmaps?limit=2`, undefined, { Accept: accept });
  expect(r.headers['content-type']).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
  const table = JSON.parse(r.body);
  expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
  expect(table.rows).toHaveLength(2);
  expect(table.rows[0].cells.slice(0, 2)).toEqual(['w0', 0]);
  expect(table.rows[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'w0' }) });
  expect(table.metadata.continue).toEqual(expect.any(String));
  const none = JSON.parse((await call('GET', `${base}/configmaps/w1?includeObject=None`, undefined, { Accept: accept })).body);
  expect(none.rows).toEqual([{ cells: ['w1', 0, expect.any(String)] }]);
});

test('content negotiation: a protobuf-only Accept is 406, an unknown patch type 415', async () => {
  const r = await call('GET', `${base}/configmaps/w1`, undefined, { Accept: 'application/vnd.kubernetes.protobuf' });
  expect(r.status).toBe(406);
  const p = await call('PATCH', `${base}/configmaps/w1`, '{}', { 'Content-Type': 'text/plain' });
  expect(p.status).toBe(415);
  expect(JSON.parse(p.body).message).toBe(
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
  );
});

test('a protobuf body (as typed clients send) creates the same object as JSON would', async () => {
  // k8s\0 + Unknown{typeMeta{apiVersion "v1", kind "ConfigMap"}, raw ConfigMap{metadata{name "pb", namespace ""}, data{"k": "v"}}}
  const str = (field: number, s: string) => Buffer.concat([Buffer.from([(field << 3) | 2, Buffer.byteLength(s)]), Buffer.from(s)]);
  const msg = (field: number, body: Buffer) => Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);
  const meta = Buffer.concat([str(1, 'pb'), str(3, ''), Buffer.from([0x38, 0x00])]);
  const raw = Buffer.concat([msg(1, meta), msg(2, Buffer.concat([str(1, 'k'), str(2, 'v')]))]);
  const body = Buffer.concat([Buffer.from('k8s\0', 'binary'), msg(1, Buffer.concat([str(1, 'v1'), str(2, 'ConfigMap')])), msg(2, raw)]);
  const r = await call('POST', `${base}/configmaps`, body, { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
  expect(r.status).toBe(201);
  const created = JSON.parse(r.body);
  expect(created.data).toEqual({ k: 'v' });
  expect(created.metadata).toEqual(expect.objectContaining({ name: 'pb', namespace: 'ns' }));
  expect(created.metadata.generation).toBeUndefined();
});

test('unknown fields: a Warning header by default, 400 with fieldValidation=Strict', async () => {
  const warn = await call('POST', `${base}/configmaps`, JSON.stringify({ metadata: { name: 'warned' }, datta: {} }));
  expect(warn.status).toBe(201);
  expect(warn.headers.warning).toBe('299 - "unknown field \\"datta\\""');
  const strict = await call('POST', `${base}/configmaps?fieldValidation=Strict`, JSON.stringify({ metadata: { name: 'strict' }, datta: {} }));
  expect(strict.status).toBe(400);
  expect(JSON.parse(strict.body).message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta"');
});

test('DELETE answers with a Success Status naming the object; deletecollection with the deleted items', async () => {
  const del = JSON.parse((await call('DELETE', `${base}/configmaps/warned`)).body);
  expect(del).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'warned', kind: 'configmaps', uid: expect.any(String) }, code: 200 });
  const coll = JSON.parse((await call('DELETE', `${base}/configmaps?labelSelector=none%3Dnone`)).body);
  expect(coll).toEqual({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [] });
});

test('a listed Table is the same document whether written compactly or pretty', async () => {
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  for (const include of ['', '&includeObject=Object', '&includeObject=None']) {
    const compact = JSON.parse((await call('GET', `${base}/configmaps?limit=3${include}`, undefined, { Accept: accept })).body);
    const pretty = JSON.parse((await call('GET', `${base}/configmaps?limit=3&pretty=true${include}`, undefined, { Accept: accept })).body);
    // The Age cell may tick between the two requests; everything else is the same.
    const withoutAge = (t: { rows: Array<{ cells: unknown[] }> }) => ({ ...t, rows: t.rows.map((r) => ({ ...r, cells: r.cells.slice(0, 2) })) });
    expect(withoutAge(compact)).toEqual(withoutAge(pretty));
    expect(compact.rows).toHaveLength(3);
  }
});
