// configMapAndSecretChangeDetectionStrategy against the built API server: what each strategy asks of the server
// (counted in its apiserver_request_total and apiserver_longrunning_requests) and what a read returns.
import { readFileSync } from 'node:fs';
import type { KubeClient } from '@cl/kube-client';
import type { Pod } from '../src/pods/api-types';
import { objectManagerFor, ttlFromNode, type PodObjectManager } from '../src/volumes';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { clientFor, eventually, requestCount, startApiserverProcess, type ApiserverProcess } from '../../../libs/kube-client/test/server';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { httpsGet } from '../../apiserver/test/harness';

jest.setTimeout(120_000);

let api: ApiserverProcess;
let client: KubeClient;
const managers: PodObjectManager[] = [];
const CM = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  api = await startApiserverProcess();
  client = clientFor(api);
});

afterAll(async () => {
  for (const m of managers) m.stop();
  client?.close();
  await api?.cleanup();
});

const manager = (...args: Parameters<typeof objectManagerFor>) => {
  const m = objectManagerFor(...args);
  managers.push(m);
  return m;
};

/** A pod naming config map `cm` in a projected volume (as kube-api-access names kube-root-ca.crt). */
const pod = (uid: string, cm: string, resourceVersion = '1'): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: uid, namespace: 'default', uid, resourceVersion },
  spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: cm } }] } }] },
} as unknown as Pod);

const createCM = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) =>
  client.create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...extra });
const gets = () => requestCount(api, 'GET', 'configmaps');

/** Config map watches open on the server now. */
async function openWatches(): Promise<number> {
  const token = /token: (\S+)/.exec(readFileSync(api.kubeconfig, 'utf8'))?.[1];
  const r = await httpsGet(api, '/metrics', { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (r.status !== 200) throw new Error(`/metrics: ${r.status} ${r.body.slice(0, 200)}`);
  let n = 0;
  for (const line of r.body.split('\n')) {
    if (line.startsWith('apiserver_longrunning_requests{') && line.includes('resource="configmaps"') && line.includes('verb="WATCH"')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

test('Get: every read is a GET; a missing object reads as undefined', async () => {
  await createCM('g1', { a: '1' });
  const m = manager('Get', client);
  const before = await gets();
  for (let i = 0; i < 3; i++) expect((await m.configMap('default', 'g1'))?.data).toEqual({ a: '1' });
  expect(await m.configMap('default', 'g-missing')).toBeUndefined();
  expect((await gets()) - before).toBe(4);
});

test('Cache: reads within the TTL are one GET; a new version of a pod reads again; after the TTL a read refreshes', async () => {
  await createCM('c1', { a: '1' });
  let now = 1_000_000;
  const m = manager('Cache', client, { ttlMs: () => 60_000, now: () => now });
  await expect(m.configMap('default', 'c1')).rejects.toThrow('object "default"/"c1" not registered');
  m.registerPod(pod('p1', 'c1'));
  const before = await gets();
  const reads = await Promise.all([1, 2, 3].map(() => m.configMap('default', 'c1')));
  expect(reads.map((r) => r?.data)).toEqual([{ a: '1' }, { a: '1' }, { a: '1' }]);
  expect((await gets()) - before).toBe(1);
  // The same version again (the pod's next sync) changes nothing; a new version of it reads afresh.
  m.registerPod(pod('p1', 'c1'));
  await m.configMap('default', 'c1');
  expect((await gets()) - before).toBe(1);
  await client.patch(`${CM}/c1`, { data: { a: '2' } }, 'merge');
  expect((await m.configMap('default', 'c1'))?.data).toEqual({ a: '1' }); // within the TTL: the copy read before
  m.registerPod(pod('p1', 'c1', '2'));
  expect((await m.configMap('default', 'c1'))?.data).toEqual({ a: '2' });
  expect((await gets()) - before).toBe(2);
  await client.patch(`${CM}/c1`, { data: { a: '3' } }, 'merge');
  now += 60_001;
  expect((await eventually(async () => {
    const d = (await m.configMap('default', 'c1'))?.data;
    return d?.a === '3' && d;
  }, 'the refreshed copy'))).toEqual({ a: '3' });
  // Once the pod goes, its objects cannot be read through the manager.
  m.unregisterPod('p1');
  await expect(m.configMap('default', 'c1')).rejects.toThrow('not registered');
});

test('Watch: 30 pods naming one config map cost one list and one watch and no GET; changes arrive; the last pod stops it', async () => {
  await createCM('shared', { ca: 'one' });
  const watchesBefore = await openWatches();
  const [getsBefore, listsBefore] = [await gets(), await requestCount(api, 'LIST', 'configmaps')];
  const m = manager('Watch', client);
  const uids = Array.from({ length: 30 }, (_, i) => `w${i}`);
  for (const uid of uids) m.registerPod(pod(uid, 'shared'));
  const reads = await Promise.all(uids.map(() => m.configMap('default', 'shared')));
  expect(new Set(reads.map((r) => r?.data?.ca))).toEqual(new Set(['one']));
  expect((await gets()) - getsBefore).toBe(0);
  expect((await requestCount(api, 'LIST', 'configmaps')) - listsBefore).toBe(1);
  await eventually(async () => (await openWatches()) === watchesBefore + 1, 'one watch open');

  await client.patch(`${CM}/shared`, { data: { ca: 'two' } }, 'merge');
  await eventually(async () => (await m.configMap('default', 'shared'))?.data?.ca === 'two', 'the change through the watch');
  expect((await gets()) - getsBefore).toBe(0);

  for (const uid of uids.slice(1)) m.unregisterPod(uid);
  expect(await openWatches()).toBe(watchesBefore + 1);
  m.unregisterPod(uids[0]);
  await eventually(async () => (await openWatches()) === watchesBefore, 'the watch closed');
  await expect(m.configMap('default', 'shared')).rejects.toThrow('object "default"/"shared" not registered');
});

test('Watch: a missing object reads as missing until created; an immutable one is no longer watched', async () => {
  const m = manager('Watch', client);
  const watchesBefore = await openWatches();
  m.registerPod(pod('late-pod', 'late'));
  expect(await m.configMap('default', 'late')).toBeUndefined();
  await createCM('late', { k: 'v' });
  await eventually(async () => (await m.configMap('default', 'late'))?.data?.k === 'v', 'the created object');

  await createCM('frozen', { k: 'v' }, { immutable: true });
  m.registerPod(pod('frozen-pod', 'frozen'));
  await eventually(async () => (await openWatches()) === watchesBefore + 2, 'two watches');
  expect((await m.configMap('default', 'frozen'))?.data).toEqual({ k: 'v' });
  await eventually(async () => (await openWatches()) === watchesBefore + 1, 'the immutable object unwatched');
  // Still readable from what the watch delivered.
  expect((await m.configMap('default', 'frozen'))?.data).toEqual({ k: 'v' });
});

test.each<[string, Record<string, string> | undefined, number | undefined]>([
  ['seconds', { 'node.alpha.kubernetes.io/ttl': '15' }, 15_000],
  ['zero (the TTL controller\'s value for small clusters)', { 'node.alpha.kubernetes.io/ttl': '0' }, 0],
  ['absent', {}, undefined],
  ['no annotations', undefined, undefined],
  ['not a number', { 'node.alpha.kubernetes.io/ttl': '1m' }, undefined],
  ['negative', { 'node.alpha.kubernetes.io/ttl': '-5' }, undefined],
])('Cache TTL from the Node annotation: %s', (_what, annotations, want) => {
  expect(ttlFromNode({ metadata: { annotations } })).toBe(want);
});
