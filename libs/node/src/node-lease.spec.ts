import { FakeApi, recordingLog, waitUntil } from '../test/fake-api';
import { NodeLease } from './node-lease';
import type { Lease, Node } from './types';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const LEASE = `${LEASES}/n1`;
const NOW = new Date('2025-01-02T03:04:05.678Z');
const registered: Node = { metadata: { name: 'n1', uid: 'node-uid' }, spec: {} };

let api: FakeApi;
let lease: NodeLease | undefined;

beforeEach(() => {
  api = new FakeApi();
});
afterEach(async () => {
  await lease?.stop();
  lease = undefined;
});

function start(node: () => Node | undefined = () => registered) {
  const log = recordingLog();
  lease = new NodeLease({ client: api, nodeName: 'n1', durationSeconds: 40, renewIntervalMs: 10, log, node, now: () => NOW });
  lease.start();
  return log;
}

const traffic = () => api.calls.map((c) => `${c.method} ${c.code}`);

test('the first renewal creates the lease, held by the node and owned by its Node', async () => {
  start();
  await waitUntil(() => api.callsOf('POST')[0]?.code === 201, 'the lease to be created', api);
  expect(api.calls.slice(0, 2).map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`GET ${LEASE} 404`, `POST ${LEASES} 201`]);
  expect(api.calls[1].body).toEqual({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'n1', namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }] },
    // renewTime is a MicroTime: microseconds, UTC.
    spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2025-01-02T03:04:05.678000Z' },
  });
});

test('later renewals PUT the last copy, without reading it again', async () => {
  start();
  await waitUntil(() => api.callsOf('PUT').filter((c) => c.code === 200).length >= 3, 'three renewals', api);
  await lease!.stop();
  expect(traffic().slice(0, 5)).toEqual(['GET 404', 'POST 201', 'PUT 200', 'PUT 200', 'PUT 200']);
  // Each PUT names the resourceVersion the previous write returned, so none conflicts.
  expect(api.callsOf('PUT').map((c) => (c.body as Lease).metadata.resourceVersion)).toEqual(api.callsOf('PUT').map((_c, i) => String(i + 1)));
  expect(lease!.renewals).toBe(api.calls.filter((c) => c.code === 200 || c.code === 201).length);
});

test('an existing lease is taken over with a PUT', async () => {
  api.put(LEASE, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'old', leaseDurationSeconds: 40 } });
  start();
  await waitUntil(() => api.object<Lease>(LEASE)!.spec.holderIdentity === 'n1', 'the lease to be renewed', api);
  expect(traffic().slice(0, 2)).toEqual(['GET 200', 'PUT 200']);
  expect(api.object<Lease>(LEASE)!.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }]);
});

test('a lease made before the Node was known gets its owner reference on a later renewal', async () => {
  let node: Node | undefined = undefined;
  start(() => node);
  await waitUntil(() => api.callsOf('POST').length === 1, 'the lease to be created', api);
  expect((api.callsOf('POST')[0].body as Lease).metadata.ownerReferences).toBeUndefined();
  node = registered;
  await waitUntil(() => api.object<Lease>(LEASE)?.metadata.ownerReferences !== undefined, 'the owner reference', api);
  expect(api.object<Lease>(LEASE)!.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }]);
});

test('a conflict reads the lease again and the retry succeeds', async () => {
  start();
  await waitUntil(() => api.callsOf('POST')[0]?.code === 201, 'the lease to be created', api);
  // Someone else writes the lease: the copy the node holds is stale now.
  const current = api.object<Lease>(LEASE)!;
  api.put(LEASE, { ...current, spec: { ...current.spec, holderIdentity: 'intruder' } });
  await waitUntil(() => api.callsOf('PUT').some((c) => c.code === 409) && api.object<Lease>(LEASE)!.spec.holderIdentity === 'n1', 'the lease to be won back', api);
  const conflict = api.calls.findIndex((c) => c.code === 409);
  expect(traffic().slice(conflict, conflict + 3)).toEqual(['PUT 409', 'GET 200', 'PUT 200']);
});

test('a lease deleted under the node is created again', async () => {
  start();
  await waitUntil(() => api.callsOf('PUT').some((c) => c.code === 200), 'a renewal', api);
  api.remove(LEASE);
  await waitUntil(() => api.callsOf('POST').length === 2 && api.object(LEASE) !== undefined, 'the lease to be created again', api);
  const gone = api.calls.findIndex((c) => c.code === 404 && c.method === 'PUT');
  expect(traffic().slice(gone, gone + 3)).toEqual(['PUT 404', 'GET 404', 'POST 201']);
});

test('a failing ensure backs off, doubling, and recovers', async () => {
  api.failNext(2, 0);
  const log = start();
  await waitUntil(() => api.callsOf('POST')[0]?.code === 201, 'the lease to be created', api);
  expect(traffic().slice(0, 4)).toEqual(['GET 0', 'GET 0', 'GET 404', 'POST 201']);
  expect(log.lines.filter((l) => l.msg === 'Failed to ensure lease exists, will retry').map((l) => l.fields!.interval)).toEqual(['200ms', '400ms']);
});

test('renewals that keep failing start over from a fresh read', async () => {
  start();
  await waitUntil(() => api.callsOf('POST')[0]?.code === 201, 'the lease to be created', api);
  // Upstream's five update attempts, all failing.
  api.failNext(5, 500, (c) => c.method === 'PUT');
  await waitUntil(() => api.callsOf('PUT').filter((c) => c.code === 500).length === 5 && api.callsOf('PUT').some((c) => c.code === 200), 'a renewal after the failures', api);
  const first = traffic().indexOf('PUT 500');
  expect(traffic().slice(first, first + 7)).toEqual(['PUT 500', 'PUT 500', 'PUT 500', 'PUT 500', 'PUT 500', 'GET 200', 'PUT 200']);
});
