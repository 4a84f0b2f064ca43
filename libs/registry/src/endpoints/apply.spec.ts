// Field management through the REST handlers over a real embedded store: managedFields recorded by every write,
// server-side apply (create, no-op, conflicts, force, dry run, status), and the options' validation.
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configMap, deployment } from '@cl/api';
import { SqliteStore } from '@cl/store';
import { ResourceStore, builtinKinds } from '../index';
import { serveResourceApi, type LoopbackApi } from '../../test/loopback-api';

const dir = mkdtempSync(join(tmpdir(), 'cl-apply-'));
let store: SqliteStore;
let stores: ResourceStore[];
let server: LoopbackApi;
let port: number;

beforeAll(async () => {
  store = new SqliteStore(join(dir, 'store.db'));
  const kinds = builtinKinds({ eventTtlSeconds: 60 });
  stores = [configMap, deployment].map((def) => new ResourceStore(def, store, kinds.find((k) => k.def === def)!.strategy));
  await Promise.all(stores.map((s) => s.start()));
  server = await serveResourceApi(stores);
  port = server.port;
});
afterAll(async () => {
  server.close();
  for (const s of stores) s.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read only by the expectations
type Json = any;

function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { 'Content-Type': 'application/json', 'User-Agent': 'tester/1.0 (x)', ...headers } }, (res) => {
      let data = '';
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const cms = '/api/v1/namespaces/ns/configmaps';
interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: unknown;
}
const managers = (o: { metadata: { managedFields?: Entry[] } }) => (o.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.subresource ?? '', e.fieldsV1]);

test('a create records the User-Agent\'s program, an update the fieldManager, each owning what it wrote', async () => {
  const created = await call('POST', cms, JSON.stringify({ metadata: { name: 'w', labels: { a: '1' } }, data: { k: 'v' } }));
  expect(created.status).toBe(201);
  expect(created.body.metadata.managedFields).toEqual([
    { manager: 'tester', operation: 'Update', apiVersion: 'v1', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } },
  ]);
  const patched = await call('PATCH', `${cms}/w?fieldManager=editor`, JSON.stringify({ data: { k: 'v2' } }), { 'Content-Type': 'application/merge-patch+json' });
  expect(managers(patched.body)).toEqual([
    // Same second: by manager name. The creator keeps the map's existence and the label.
    ['editor', 'Update', '', { 'f:data': { 'f:k': {} } }],
    ['tester', 'Update', '', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
  ]);
  // A PUT that leaves managedFields out keeps them; one that sends [{}] starts them again.
  const { metadata, ...rest } = patched.body;
  const { managedFields: _m, ...meta } = metadata;
  const put = await call('PUT', `${cms}/w?fieldManager=replacer`, JSON.stringify({ ...rest, metadata: { ...meta, managedFields: [{}] }, data: { k: 'v3' } }));
  expect(managers(put.body)).toEqual([['replacer', 'Update', '', { 'f:data': { 'f:k': {} } }]]);
});

test('server-side apply: create, a no-op, a conflict (409 with causes), force, dry run', async () => {
  const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  key: one\n';
  const created = await call('PATCH', `${cms}/a?fieldManager=ssa`, body, APPLY);
  expect(created.status).toBe(201);
  expect(managers(created.body)).toEqual([['ssa', 'Apply', '', { 'f:data': { 'f:key': {} } }]]);
  const again = await call('PATCH', `${cms}/a?fieldManager=ssa`, body, APPLY);
  expect(again.status).toBe(200);
  expect(again.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);

  await call('PATCH', `${cms}/a?fieldManager=kubectl-client-side-apply`, JSON.stringify({ data: { key: 'two' } }), { 'Content-Type': 'application/merge-patch+json' });
  const conflict = await call('PATCH', `${cms}/a?fieldManager=ssa`, body, APPLY);
  expect(conflict).toEqual({
    status: 409,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.key' }] },
      code: 409,
    },
  });
  const dry = await call('PATCH', `${cms}/a?fieldManager=ssa&force=true&dryRun=All`, body, APPLY);
  expect(dry.body.data).toEqual({ key: 'one' });
  expect((await call('GET', `${cms}/a`)).body.data).toEqual({ key: 'two' });
  const forced = await call('PATCH', `${cms}/a?fieldManager=ssa&force=true`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { key: 'one' } }), APPLY);
  expect(forced.status).toBe(200);
  expect(managers(forced.body)).toEqual([['ssa', 'Apply', '', { 'f:data': { 'f:key': {} } }]]);
});

test.each([
  ['no fieldManager', `${cms}/x`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'],
  ['a fieldManager too long', `${cms}/x?fieldManager=${'m'.repeat(129)}`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 422, expect.stringContaining('fieldManager: Too long')],
  ['another version', `${cms}/x?fieldManager=m`, 'apiVersion: v2\nkind: ConfigMap\nmetadata: {name: x}\n', 400, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1'],
  ['managedFields in the body', `${cms}/x?fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, managedFields: []}\n', 400, 'metadata.managedFields must be nil'],
])('an apply with %s is refused', async (_name, path, body, code, message) => {
  const r = await call('PATCH', path, body, APPLY);
  expect(r.status).toBe(code);
  expect(r.body.message).toEqual(message);
});

test.each([
  ['metadata a string', '{"apiVersion":"v1","kind":"ConfigMap","metadata":"x"}'],
  ['data a list', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: odd}\ndata: [1, 2]\n'],
  ['a list body', '[1]'],
  ['not YAML', 'a: [1\n'],
  ['a container list with a duplicate', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: odd, finalizers: [a, a]}\n'],
])('an apply with %s is a 4xx, never a 500', async (_name, body) => {
  const r = await call('PATCH', `${cms}/odd?fieldManager=m`, body, APPLY);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
});

test('force on a patch that is not an apply is refused', async () => {
  const r = await call('PATCH', `${cms}/a?force=true`, '{}', { 'Content-Type': 'application/merge-patch+json' });
  expect(r.status).toBe(422);
  expect(r.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
});

test('status and scale writes are recorded with their subresource', async () => {
  const deploys = '/apis/apps/v1/namespaces/ns/deployments';
  const d = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec:\n      containers: [{name: c, image: i}]\n';
  expect((await call('PATCH', `${deploys}/d?fieldManager=ssa`, d, APPLY)).status).toBe(201);
  const scaled = await call('PATCH', `${deploys}/d/scale?fieldManager=scaler`, JSON.stringify({ spec: { replicas: 3 } }), { 'Content-Type': 'application/merge-patch+json' });
  expect(scaled.status).toBe(200);
  const status = await call('PATCH', `${deploys}/d/status?fieldManager=ctrl`, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nstatus: {observedGeneration: 1}\n', APPLY);
  expect(status.status).toBe(200);
  expect(managers(status.body)).toEqual([
    ['ctrl', 'Apply', 'status', { 'f:status': { 'f:observedGeneration': {} } }],
    [
      'ssa',
      'Apply',
      '',
      {
        'f:spec': {
          'f:selector': {},
          'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      },
    ],
    ['scaler', 'Update', 'scale', { 'f:spec': { 'f:replicas': {} } }],
  ]);

  // An apply of the Scale owns the workload's spec.replicas through the subresource, and conflicts over it.
  const scale = (n: number) => `apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: d}\nspec: {replicas: ${n}}\n`;
  const conflict = await call('PATCH', `${deploys}/d/scale?fieldManager=hpa`, scale(5), APPLY);
  expect(conflict.status).toBe(409);
  expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using apps/v1: .spec.replicas');
  const forced = await call('PATCH', `${deploys}/d/scale?fieldManager=hpa&force=true`, scale(5), APPLY);
  expect(forced.body).toEqual(expect.objectContaining({ kind: 'Scale', spec: { replicas: 5 } }));
  const after = (await call('GET', `${deploys}/d`)).body;
  expect(after.spec.replicas).toBe(5);
  expect(managers(after).map(([m, op, sub]: unknown[]) => `${m} ${op} ${sub}`)).toEqual(['ctrl Apply status', 'hpa Apply scale', 'ssa Apply ']);
});

test('a Deployment created as kubectl sends it records the FieldsV1 kube-apiserver does', async () => {
  // `kubectl create deployment web --image=nginx` (its body: Go's zero structs included) and, to show the atomic
  // structs, one container reading a ConfigMap key.
  const body = {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'nginx', image: 'nginx', resources: {} },
            { name: 'side', image: 'busybox:1.36', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] },
          ],
        },
      },
      strategy: {},
    },
    status: {},
  };
  const created = await call('POST', '/apis/apps/v1/namespaces/ns/deployments?fieldManager=kubectl-create', JSON.stringify(body));
  expect(created.status).toBe(201);
  const container = { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} };
  expect(managers(created.body)).toEqual([
    [
      'kubectl-create',
      'Update',
      '',
      {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:progressDeadlineSeconds': {},
          'f:replicas': {},
          'f:revisionHistoryLimit': {},
          'f:selector': {},
          'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': container,
                'k:{"name":"side"}': { ...container, 'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:configMapKeyRef': {} } } } },
              },
              'f:dnsPolicy': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:securityContext': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
      },
    ],
  ]);
});
