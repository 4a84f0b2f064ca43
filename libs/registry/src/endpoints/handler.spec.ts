// The REST handlers over a real embedded store, through a loopback HTTP server: watch streams (ERROR 410,
// bookmarks, initial events, timeouts), Tables, content negotiation, protobuf bodies, field warnings, and view
// subresources (deployments/scale, pods/ephemeralcontainers).
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configMap, deployment, event, pod, replicaSet } from '@cl/api';
import { SqliteStore } from '@cl/store';
import { ResourceStore, builtinKinds } from '../index';
import { serveResourceApi, type LoopbackApi } from '../../test/loopback-api';

const dir = mkdtempSync(join(tmpdir(), 'cl-handler-'));
let store: SqliteStore;
let cms: ResourceStore;
let events: ResourceStore;
let others: ResourceStore[];
let server: LoopbackApi;
let port: number;

beforeAll(async () => {
  store = new SqliteStore(join(dir, 'store.db'));
  const kinds = builtinKinds({ eventTtlSeconds: 60 });
  const strategy = kinds.find((k) => k.def === configMap)!.strategy;
  // A window of 3 changes, so a watch soon falls out of it.
  cms = new ResourceStore(configMap, store, strategy, { cacheCapacity: 3 });
  others = [deployment, replicaSet, pod].map((def) => new ResourceStore(def, store, kinds.find((k) => k.def === def)!.strategy));
  events = new ResourceStore(event, store, kinds.find((k) => k.def === event)!.strategy, { watchCache: false });
  await Promise.all([cms, events, ...others].map((s) => s.start()));
  server = await serveResourceApi([cms, ...others], { bookmarkIntervalMs: 100 });
  port = server.port;
});
afterAll(async () => {
  server.close();
  for (const s of [cms, events, ...others]) s.stop();
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
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
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

// Events have no watch cache (as upstream): their watch is a store watch, whose last BOOKMARK carries the store
// revision it followed to.
test.each([
  ['configmaps', 'ConfigMap', () => cms, () => Promise.resolve(cms.cache.revision)],
  ['events', 'Event', () => events, () => store.currentRevision()],
])('a last BOOKMARK comes 2 s before timeoutSeconds ends the watch (%s)', async (resource, kind, resourceStore, revision) => {
  const srv = await serveResourceApi([resourceStore()], { bookmarkIntervalMs: 60_000 });
  try {
    const started = Date.now();
    const r = await new Promise<{ body: string; lastAt: number }>((resolve) => {
      request({ host: '127.0.0.1', port: srv.port, path: `${base}/${resource}?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=3&labelSelector=none%3Dnone` }, (res) => {
        let body = '';
        let lastAt = 0;
        res.on('data', (d) => {
          body += d;
          lastAt = Date.now() - started;
        });
        res.on('end', () => resolve({ body, lastAt }));
      }).end();
    });
    expect(lines(r.body)).toEqual([{ type: 'BOOKMARK', object: { kind, apiVersion: 'v1', metadata: { resourceVersion: String(await revision()) } } }]);
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

// client-go's metadata client lists with as=PartialObjectMetadataList and gets and watches with as=PartialObjectMetadata,
// each after the protobuf form cl does not serve.
const partialAccept = (as: string, v = 'v1') => `application/vnd.kubernetes.protobuf;as=${as};g=meta.k8s.io;v=${v},application/json;as=${as};g=meta.k8s.io;v=${v},application/json`;

test.each([
  ['get as PartialObjectMetadata', `${base}/configmaps/w1`, partialAccept('PartialObjectMetadata'), 200, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'w1', namespace: 'ns', uid: expect.any(String) }) }],
  ['get as v1beta1', `${base}/configmaps/w1`, partialAccept('PartialObjectMetadata', 'v1beta1'), 200, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: expect.objectContaining({ name: 'w1' }) }],
  ['list as PartialObjectMetadataList', `${base}/configmaps?fieldSelector=metadata.name%3Dw1`, partialAccept('PartialObjectMetadataList'), 200, {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
    items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'w1' }) }],
  }],
  ['a page of a list keeps its continue token', `${base}/configmaps?limit=1`, partialAccept('PartialObjectMetadataList', 'v1beta1'), 200, expect.objectContaining({ apiVersion: 'meta.k8s.io/v1beta1', metadata: { resourceVersion: expect.any(String), continue: expect.any(String) }, items: [expect.objectContaining({ kind: 'PartialObjectMetadata' })] })],
  ['an object as a list is 406', `${base}/configmaps/w1`, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 406, expect.objectContaining({ reason: 'NotAcceptable', message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)' })],
  ['a list as an object is 406', `${base}/configmaps`, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', 406, expect.objectContaining({ reason: 'NotAcceptable', message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)' })],
  ['a missing object is still 404', `${base}/configmaps/none`, partialAccept('PartialObjectMetadata'), 404, expect.objectContaining({ reason: 'NotFound' })],
  ['another meta.k8s.io version is not served', `${base}/configmaps/w1`, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2', 406, expect.objectContaining({ reason: 'NotAcceptable' })],
])('metadata only: %s', async (_name, path, accept, code, body) => {
  const r = await call('GET', path, undefined, { Accept: accept });
  expect(r.status).toBe(code);
  expect(r.headers['content-type']).toBe('application/json');
  expect(JSON.parse(r.body)).toEqual(body);
});

test('a watch as PartialObjectMetadata: every event and bookmark carries metadata only', async () => {
  const r = await call('GET', `${base}/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dw1`, undefined, { Accept: partialAccept('PartialObjectMetadata') });
  const events = lines(r.body);
  expect(events[0]).toEqual({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'w1' }) } });
  expect(events.length).toBeGreaterThan(1);
  for (const e of events.slice(1)) expect(e).toEqual({ type: 'BOOKMARK', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.any(String) } } });
});

test('content negotiation: a protobuf-only Accept is 406, an unknown patch type 415', async () => {
  const r = await call('GET', `${base}/configmaps/w1`, undefined, { Accept: 'application/vnd.kubernetes.protobuf' });
  expect(r.status).toBe(406);
  const p = await call('PATCH', `${base}/configmaps/w1`, '{}', { 'Content-Type': 'text/plain' });
  expect(p.status).toBe(415);
  expect(JSON.parse(p.body).message).toBe(
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
  );
});

test.each([
  ['strategic merge', 'application/strategic-merge-patch+json', 'patch: Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string'],
  ['merge', 'application/merge-patch+json', expect.stringMatching(/^patch: Invalid value: "\{.*\\"labels\\":\\"invalid\\".*\}": json: cannot unmarshal string into Go struct field ConfigMap\.metadata\.labels of type map\[string\]string$/)],
])('a %s patch of the wrong shape is upstream\'s 422 on the field patch, and changes nothing', async (_name, type, cause) => {
  const before = JSON.parse((await call('GET', `${base}/configmaps/w1`)).body);
  const r = await call('PATCH', `${base}/configmaps/w1`, '{"metadata":{"labels":"invalid"}}', { 'Content-Type': type });
  expect(r.status).toBe(422);
  const status = JSON.parse(r.body);
  expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: expect.any(String) }] } });
  // No kind and no name, as upstream's (kubectl prints "The request is invalid: ..." for it).
  expect(status.message.startsWith(' "" is invalid: ')).toBe(true);
  expect(status.message.slice(' "" is invalid: '.length)).toEqual(cause);
  expect(`patch: ${status.details.causes[0].message}`).toEqual(cause);
  expect(JSON.parse((await call('GET', `${base}/configmaps/w1`)).body).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
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

test('a large list listed again is the same document, and a change since shows at once', async () => {
  // Over the memo's 500 items: the second list comes from the joined bytes of the first.
  const ns = '/api/v1/namespaces/big';
  for (let i = 0; i < 520; i++) await cms.create('big', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}` }, data: { i: String(i) } });
  const list = async (query = '') => JSON.parse((await call('GET', `${ns}/configmaps${query}`)).body) as { metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string }; data: { i: string } }> };
  const first = await list();
  const again = await list();
  expect(again.items).toEqual(first.items);
  expect(first.items).toHaveLength(520);
  await cms.update('big', 'cm7', (cur) => ({ ...cur!, data: { i: 'changed' } }));
  await cms.delete('big', 'cm8');
  const after = await list();
  expect(after.items).toHaveLength(519);
  expect(after.items.find((o) => o.metadata.name === 'cm7')!.data.i).toBe('changed');
  expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
  // Another selection of the same collection is its own list.
  expect((await list('?fieldSelector=metadata.name%3Dcm9')).items.map((o) => o.metadata.name)).toEqual(['cm9']);
});

describe('bodies and names a careless or hostile client sends', () => {
  const deep = (open: string, close: string, n: number, inner = '1') => open.repeat(n) + inner + close.repeat(n);
  const cm = (name: string, extra = '') => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}${extra}}`;

  test('a YAML body creates and replaces as JSON would; malformed YAML is a 400', async () => {
    const yaml = { 'Content-Type': 'application/yaml' };
    const created = await call('POST', `${base}/configmaps`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  answer: "yes"\n  n: "1"\n', yaml);
    expect([created.status, created.body]).toEqual([201, expect.any(String)]);
    expect(JSON.parse(created.body).data).toEqual({ answer: 'yes', false: '1' }); // YAML 1.1, as go-yaml v2: the key n is false
    const replaced = await call('PUT', `${base}/configmaps/from-yaml`, 'kind: ConfigMap\napiVersion: v1\nmetadata: {name: from-yaml}\ndata: {a: b}\n', yaml);
    expect(replaced.status).toBe(200);
    expect(JSON.parse(replaced.body).data).toEqual({ a: 'b' });
    const broken = await call('POST', `${base}/configmaps`, 'metadata:\n  name: x\n   bad: [\n', yaml);
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body).message).toMatch(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: error converting YAML to JSON: yaml: line \d+: /);
  });

  test('a body type no verb takes lists YAML among the accepted ones, in upstream order', async () => {
    const r = await call('POST', `${base}/configmaps`, cm('x'), { 'Content-Type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body).message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  // 1,000 levels is this server's limit (upstream's 10,000 is past what V8's JSON.stringify takes); past it every
  // decoder answers 400 instead of overflowing the stack.
  test.each<[string, string, string, string | undefined]>([
    ['create, arrays', 'POST', `${base}/configmaps`, undefined],
    ['create, objects', 'POST', `${base}/configmaps`, 'objects'],
    ['create, YAML flow', 'POST', `${base}/configmaps`, 'yaml'],
    ['merge patch', 'PATCH', `${base}/configmaps/nest`, 'application/merge-patch+json'],
    ['strategic merge patch', 'PATCH', `${base}/configmaps/nest`, 'application/strategic-merge-patch+json'],
    ['JSON patch', 'PATCH', `${base}/configmaps/nest`, 'application/json-patch+json'],
    ['DeleteOptions', 'DELETE', `${base}/configmaps/nest`, 'delete'],
  ])('%s nested 100,000 deep is a 400 and the object is unchanged', async (_name, method, path, form) => {
    await call('POST', `${base}/configmaps`, cm('nest', ',"data":{"k":"v"}'));
    const n = 100_000;
    const body =
      form === 'objects' ? cm('x', `,"data":${deep('{"a":', '}', n)}`)
      : form === 'yaml' ? `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nbinaryData: ${deep('[', ']', n)}\n`
      : form === 'application/json-patch+json' ? `[{"op":"add","path":"/data/x","value":${deep('[', ']', n)}}]`
      : form === 'delete' ? `{"preconditions":${deep('[', ']', n)}}`
      : form ? `{"data":${deep('[', ']', n)}}`
      : cm('x', `,"data":${deep('[', ']', n)}`);
    const type = form === 'yaml' ? 'application/yaml' : form?.startsWith('application/') ? form : 'application/json';
    const r = await call(method, path, body, { 'Content-Type': type });
    expect([r.status, r.body]).toEqual([400, expect.stringMatching(/exceeded max depth/)]);
    expect(JSON.parse((await call('GET', `${base}/configmaps/nest`)).body).data).toEqual({ k: 'v' });
  });

  test.each([
    ['a create', 'POST', `${base}/configmaps`, cm('x', `,"data":${deep('[', ']', 990)}`), 'application/json'],
    ['a merge patch', 'PATCH', `${base}/configmaps/nest`, `{"data":${deep('{"a":', '}', 990)}}`, 'application/merge-patch+json'],
    ['a strategic merge patch', 'PATCH', `${base}/configmaps/nest`, `{"data":${deep('{"a":', '}', 990)}}`, 'application/strategic-merge-patch+json'],
    ['a JSON patch', 'PATCH', `${base}/configmaps/nest`, `[{"op":"add","path":"/data/x","value":${deep('[', ']', 990)}}]`, 'application/json-patch+json'],
  ])('%s 1,000 levels deep is still decoded (and refused as the wrong type), not refused for depth', async (_name, method, path, body, type) => {
    await call('POST', `${base}/configmaps`, cm('nest', ',"data":{"k":"v"}'));
    const r = await call(method, path, body, { 'Content-Type': type });
    // A merge or strategic merge patch of the wrong shape is upstream's 422 on the field `patch`.
    const wrongPatch = type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json';
    expect([r.status, JSON.parse(r.body).message]).toEqual(
      wrongPatch ? [422, expect.stringMatching(/^ "" is invalid: patch: Invalid value: .*(unrecognized type: string|json: cannot unmarshal)/)] : [400, expect.stringMatching(/cannot be handled as a ConfigMap: json: cannot unmarshal/)],
    );
  });

  test.each([
    ['..', `may not be '..'`],
    ['.', `may not be '.'`],
  ])('the name %j is refused on every verb, never resolved to another path', async (name, why) => {
    for (const [method, body] of [['GET'], ['PUT', cm(name)], ['PATCH', '{}'], ['DELETE']] as const) {
      const r = await call(method, `${base}/configmaps/${encodeURIComponent(name)}`.replace(/\.$/, '%2e'), body, method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : {});
      expect([method, r.status, JSON.parse(r.body).message]).toEqual([method, 400, `Name parameter invalid: "${name}": ${why}`]);
    }
  });

  test('a PUT whose body names another object is a 400 before any read, whether or not either exists', async () => {
    for (const url of ['missing-a', 'w1']) {
      const r = await call('PUT', `${base}/configmaps/${url}`, cm('b'));
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).message).toBe(`the name of the object (b) does not match the name on the URL (${url})`);
    }
    const other = await call('PUT', `${base}/configmaps/b`, '{"metadata":{"name":"b","namespace":"elsewhere"}}');
    expect(JSON.parse(other.body).message).toBe('the namespace of the object (elsewhere) does not match the namespace on the request (ns)');
    const unnamed = await call('PUT', `${base}/configmaps/b`, '{"data":{}}');
    expect(JSON.parse(unnamed.body).message).toBe('the name of the object (b based on URL) was undeterminable: name must be provided');
  });

  test.each([
    ['18446744073709551616', 'value out of range'],
    ['99999999999999999999999', 'value out of range'],
    ['12x', 'invalid syntax'],
  ])('a resourceVersion of %s is a 400 at once on list and watch', async (rv, why) => {
    for (const q of [`resourceVersion=${rv}`, `watch=true&resourceVersion=${rv}`]) {
      const r = await call('GET', `${base}/configmaps?${q}`);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).message).toBe(`resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}`);
    }
  });
});

describe('view subresources', () => {
  const apps = '/apis/apps/v1/namespaces/ns';
  const web = `${apps}/deployments/web`;
  const json = (r: Reply) => JSON.parse(r.body);
  const manifest = (kind: string, name: string) => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name },
    spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });

  beforeAll(async () => {
    expect((await call('POST', `${apps}/deployments`, JSON.stringify(manifest('Deployment', 'web')))).status).toBe(201);
    expect((await call('POST', `${apps}/replicasets`, JSON.stringify(manifest('ReplicaSet', 'rs')))).status).toBe(201);
  });

  test('GET scale answers an autoscaling/v1 Scale of the deployment', async () => {
    const d = json(await call('GET', web));
    expect(json(await call('GET', `${web}/scale`))).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'ns', uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });

  test.each<[string, string, string, string, number]>([
    ['a merge patch', 'PATCH', 'application/merge-patch+json', '{"spec":{"replicas":3}}', 3],
    ['a strategic merge patch', 'PATCH', 'application/strategic-merge-patch+json', '{"spec":{"replicas":4}}', 4],
    ['a JSON patch', 'PATCH', 'application/json-patch+json', '[{"op":"replace","path":"/spec/replicas","value":5}]', 5],
    ['a PUT without resourceVersion', 'PUT', 'application/json', '{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":6}}', 6],
  ])('%s changes spec.replicas and the generation, and answers the new Scale', async (_name, method, type, body, replicas) => {
    const before = json(await call('GET', web));
    const r = await call(method, `${web}/scale`, body, { 'Content-Type': type });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({ kind: 'Scale', spec: { replicas }, status: { replicas: 0, selector: 'app=web' } });
    const after = json(await call('GET', web));
    expect(after.spec.replicas).toBe(replicas);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    expect(json(r).metadata.resourceVersion).toBe(after.metadata.resourceVersion);
  });

  test('a PUT with a stale resourceVersion conflicts; with the current one it applies', async () => {
    const scale = json(await call('GET', `${web}/scale`));
    await call('PATCH', web, '{"metadata":{"labels":{"touched":"yes"}}}', { 'Content-Type': 'application/merge-patch+json' });
    const stale = await call('PUT', `${web}/scale`, JSON.stringify({ ...scale, spec: { replicas: 9 } }));
    expect(stale.status).toBe(409);
    expect(json(stale).message).toBe('Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
    const fresh = json(await call('GET', `${web}/scale`));
    const r = await call('PUT', `${web}/scale`, JSON.stringify({ ...fresh, spec: { replicas: 1 } }));
    expect(r.status).toBe(200);
    expect(json(r).spec).toEqual({ replicas: 1 });
  });

  test.each<[string, string, string, Record<string, string>, number, string]>([
    ['negative replicas', 'PATCH', '{"spec":{"replicas":-1}}', { 'Content-Type': 'application/merge-patch+json' }, 422, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
    ['another name', 'PUT', '{"metadata":{"name":"other"},"spec":{"replicas":1}}', {}, 400, 'the name of the object (other) does not match the name on the URL (web)'],
    ['another kind', 'PUT', '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}', {}, 400, 'the API version in the data (apps/v1) does not match the expected API version (autoscaling/v1)'],
    ['a DELETE', 'DELETE', '', {}, 405, 'delete is not supported on resources of kind "deployments.apps"'],
  ])('%s is refused', async (_name, method, body, headers, code, message) => {
    const r = await call(method, `${web}/scale`, body || undefined, headers);
    expect(r.status).toBe(code);
    expect(json(r).message).toBe(message);
  });

  test('a Table of a Scale has DESIRED and AVAILABLE; a missing object is 404; a kind without scale has none', async () => {
    const table = json(await call('GET', `${apps}/replicasets/rs/scale`, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Desired', 'Available']);
    expect(table.rows[0].cells).toEqual(['rs', 2, 0]);
    expect((await call('GET', `${apps}/deployments/nope/scale`)).status).toBe(404);
    expect((await call('GET', `${base}/configmaps/w1/scale`)).status).toBe(404);
  });

  test('pods/ephemeralcontainers: the pod itself, where only ephemeral containers may be added', async () => {
    const created = await call('POST', `${base}/pods`, JSON.stringify({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }));
    expect(created.status).toBe(201);
    const ec = `${base}/pods/p/ephemeralcontainers`;
    expect(json(await call('GET', ec))).toMatchObject({ kind: 'Pod', metadata: { name: 'p' } });
    const added = await call('PATCH', ec, JSON.stringify({ spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'c' }], containers: [{ name: 'c', image: 'evil' }] } }), {
      'Content-Type': 'application/strategic-merge-patch+json',
    });
    expect(added.status).toBe(200);
    expect(json(added).spec.containers[0].image).toBe('nginx');
    expect(json(added).spec.ephemeralContainers).toMatchObject([{ name: 'dbg', image: 'busybox', terminationMessagePolicy: 'File' }]);
    expect(json(added).metadata.generation).toBe(2);
    const removed = await call('PUT', ec, JSON.stringify({ ...json(added), spec: { ...json(added).spec, ephemeralContainers: [] } }));
    expect(removed.status).toBe(422);
    expect(json(removed).message).toBe('Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n');
  });
});
