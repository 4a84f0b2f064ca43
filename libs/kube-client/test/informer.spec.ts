// The Informer against the real API server: the first list, events in order, clean re-watches, resuming after
// the API server restarts (no relist, no duplicate adds), and a relist whose difference reaches the handlers
// after the server no longer holds the informer's resourceVersion (410).
import { freePort } from '@cl/testing';
import { Informer, isGone, resourcePath, type KubeClient } from '../src';
import { clientFor, eventually, requestCount, startApiserverProcess, type ApiserverProcess } from './server';

/** The API server without its in-process controllers. */
const QUIET = ['--controllers='];

interface ConfigMap {
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string };
  data?: Record<string, string>;
}

let api: ApiserverProcess;
let client: KubeClient;
const cms = (ns: string, name?: string) => resourcePath({ version: 'v1', resource: 'configmaps', namespace: ns, name });
const informers: Array<Informer<ConfigMap>> = [];

/** An informer whose handlers write each change as a line: 'add a {"v":"1"}', 'update a {"v":"1"}->{"v":"2"}', 'delete a'. */
function informerOf(path: string, opts: { fieldSelector?: string; minWatchTimeoutSeconds?: number } = {}) {
  const events: string[] = [];
  const logs: string[] = [];
  const data = (c: ConfigMap) => JSON.stringify(c.data ?? {});
  const inf = new Informer<ConfigMap>(client, { path, ...opts, log: (msg) => logs.push(msg) })
    .on('add', (c) => events.push(`add ${c.metadata.name} ${data(c)}`))
    .on('update', (c, old) => events.push(`update ${c.metadata.name} ${data(old)}->${data(c)}`))
    .on('delete', (c) => events.push(`delete ${c.metadata.name}`));
  informers.push(inf);
  return { inf, events, logs };
}

async function namespace(name: string, configMaps: Record<string, Record<string, string>>) {
  await client.create('/api/v1/namespaces', { metadata: { name } });
  for (const [cm, data] of Object.entries(configMaps)) await client.create(cms(name), { metadata: { name: cm }, data });
}

beforeAll(async () => {
  // No in-process controllers: the cases count the objects of a namespace exactly (no kube-root-ca.crt).
  api = await startApiserverProcess(QUIET);
  client = clientFor(api);
});
afterAll(async () => {
  for (const i of informers) i.stop();
  client?.close();
  await api?.cleanup();
});

test('start() resolves after the first list; changes reach the handlers once, in order', async () => {
  await namespace('inf', { a: { v: '1' }, b: { v: '1' } });
  const { inf, events, logs } = informerOf(cms('inf'));
  // A failing handler is logged and costs nobody else an event.
  inf.on('add', () => {
    throw new Error('handler bug');
  });
  await inf.start();
  expect(inf.hasSynced()).toBe(true);
  expect(events).toEqual(['add a {"v":"1"}', 'add b {"v":"1"}']);
  expect(inf.list().map((c) => c.metadata.name).sort()).toEqual(['a', 'b']);
  expect(inf.get('inf/a')?.data).toEqual({ v: '1' });

  await client.create(cms('inf'), { metadata: { name: 'c' }, data: { v: '1' } });
  const updated = await client.patch<ConfigMap>(cms('inf', 'a'), { data: { v: '2' } });
  await client.delete(cms('inf', 'b'));
  await eventually(() => events.length >= 5, 'three more events');
  expect(events).toEqual(['add a {"v":"1"}', 'add b {"v":"1"}', 'add c {"v":"1"}', 'update a {"v":"1"}->{"v":"2"}', 'delete b']);
  expect(inf.get('inf/b')).toBeUndefined();
  expect(inf.get('inf/a')?.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  expect(Number(inf.lastSyncResourceVersion)).toBeGreaterThan(Number(updated.metadata.resourceVersion));
  expect(logs.filter((l) => l === 'Event handler failed').length).toBe(3);
  inf.stop();
});

test('listNamespace: the objects of one namespace, kept through adds and deletes', async () => {
  await namespace('ns-a', { x: { v: '1' }, y: { v: '1' } });
  await namespace('ns-b', { z: { v: '1' } });
  const { inf, events } = informerOf('/api/v1/configmaps');
  await inf.start();
  const names = (ns: string) => inf.listNamespace(ns).map((c) => c.metadata.name).sort();
  expect([names('ns-a'), names('ns-b'), names('none')]).toEqual([['x', 'y'], ['z'], []]);
  await client.delete(cms('ns-a', 'x'));
  await client.create(cms('ns-b'), { metadata: { name: 'w' }, data: { v: '1' } });
  await eventually(() => events.includes('delete x') && events.some((e) => e.startsWith('add w')), 'the delete and the add');
  expect([names('ns-a'), names('ns-b')]).toEqual([['y'], ['w', 'z']]);
  await client.delete(cms('ns-a', 'y'));
  await eventually(() => events.includes('delete y'), 'the last delete of ns-a');
  expect(names('ns-a')).toEqual([]);
  inf.stop();
});

test('a field selector, and cluster-scoped keys ("name")', async () => {
  const events: string[] = [];
  const inf = new Informer<ConfigMap>(client, { path: '/api/v1/namespaces', fieldSelector: 'metadata.name=inf' }).on('add', (n) => events.push(n.metadata.name));
  informers.push(inf);
  await inf.start();
  expect(events).toEqual(['inf']);
  expect(inf.get('inf')?.metadata.name).toBe('inf');
  inf.stop();
});

test('stop() before the first list resolves start()', async () => {
  const down = clientFor(api, { server: 'https://127.0.0.1:1' });
  const inf = new Informer<ConfigMap>(down, { path: cms('inf') });
  const started = inf.start();
  inf.stop();
  await started;
  expect(inf.hasSynced()).toBe(false);
  down.close();
});

test('watches that time out are resumed from the last resourceVersion, without a relist', async () => {
  await namespace('timeouts', { a: {} });
  const lists = await requestCount(api, 'LIST', 'configmaps');
  const watches = await requestCount(api, 'WATCH', 'configmaps');
  const { inf, events } = informerOf(cms('timeouts'), { minWatchTimeoutSeconds: 1 });
  await inf.start();
  // Each watch lasts a second; wait until the informer has opened a few.
  await eventually(async () => (await requestCount(api, 'WATCH', 'configmaps')) >= watches + 3, 'three watches');
  await client.create(cms('timeouts'), { metadata: { name: 'b' } });
  await eventually(() => events.length >= 2, 'the add of b');
  expect(events).toEqual(['add a {}', 'add b {}']);
  expect((await requestCount(api, 'LIST', 'configmaps')) - lists).toBe(1);
  inf.stop();
});

describe('across API server restarts', () => {
  /** Kills the server, lets `offline` change the store through a server on another port, then restarts it on the old port. */
  async function restartWithChanges(offline: (side: KubeClient, proc: ApiserverProcess) => Promise<void>, sideArgs: string[] = []) {
    const { dir, port } = api;
    await api.kill('SIGKILL');
    // The informer keeps dialling the old port, so it sees none of these changes as they happen.
    let sidePort = await freePort();
    while (sidePort === port) sidePort = await freePort();
    const side = await startApiserverProcess([...QUIET, ...sideArgs], { dir, port: sidePort });
    const sideClient = clientFor(side);
    try {
      await offline(sideClient, side);
    } finally {
      sideClient.close();
      await side.kill('SIGTERM');
    }
    api = await startApiserverProcess(QUIET, { dir, port });
  }

  test('resumes the watch from its resourceVersion: the missed changes as events, no relist, no duplicate adds', async () => {
    await namespace('resume', { a: { v: '1' }, b: { v: '1' } });
    const { inf, events, logs } = informerOf(cms('resume'));
    await inf.start();
    await restartWithChanges(async (side) => {
      await side.patch(cms('resume', 'a'), { data: { v: '2' } });
      await side.delete(cms('resume', 'b'));
      await side.create(cms('resume'), { metadata: { name: 'c' }, data: { v: '1' } });
    });
    await eventually(() => inf.get('resume/c'), 'the informer to see c');
    await client.create(cms('resume'), { metadata: { name: 'd' } });
    await eventually(() => inf.get('resume/d'), 'the informer to see d');
    expect(events).toEqual(['add a {"v":"1"}', 'add b {"v":"1"}', 'update a {"v":"1"}->{"v":"2"}', 'delete b', 'add c {"v":"1"}', 'add d {}']);
    expect(await requestCount(api, 'LIST', 'configmaps')).toBe(0);
    expect(logs).toContain('Watch failed, retrying from the last resourceVersion');
    expect(logs).not.toContain('Watch expired, relisting');
    inf.stop();
  });

  test('410: relists and hands the handlers the difference (update, add, delete; nothing for the unchanged)', async () => {
    await namespace('expire', { change: { v: '1' }, drop: { v: '1' }, keep: { v: '1' } });
    await client.create('/api/v1/namespaces', { metadata: { name: 'churn' } });
    const { inf, events, logs } = informerOf(cms('expire'));
    await inf.start();
    const before = inf.lastSyncResourceVersion;
    await restartWithChanges(
      async (side, proc) => {
        await side.patch(cms('expire', 'change'), { data: { v: '2' } });
        await side.delete(cms('expire', 'drop'));
        await side.create(cms('expire'), { metadata: { name: 'new' } });
        // The store compacts its history past these changes, so the restarted server's cache cannot replay them
        // and the informer's resourceVersion is older than anything it can resume from.
        const last = Number((await side.create<{ metadata: { resourceVersion: string } }>(cms('churn'), { metadata: { name: 'last' } })).metadata.resourceVersion);
        const compactedTo = () => Math.max(0, ...[...proc.output().matchAll(/compacted history up to revision (\d+)/g)].map((m) => Number(m[1])));
        await eventually(() => compactedTo() >= last || undefined, 'the store to compact past the changes');
      },
      ['--store-compaction-interval=1s'],
    );
    await eventually(() => inf.get('expire/new'), 'the informer to relist');
    expect(events).toEqual(['add change {"v":"1"}', 'add drop {"v":"1"}', 'add keep {"v":"1"}', 'update change {"v":"1"}->{"v":"2"}', 'add new {}', 'delete drop']);
    expect(logs).toContain('Watch expired, relisting');
    expect(await requestCount(api, 'LIST', 'configmaps')).toBe(1);
    expect(inf.list().map((c) => c.metadata.name).sort()).toEqual(['change', 'keep', 'new']);

    // The same 410 as a plain watch sees it: an ERROR event with the Status, and done resolves with its ApiError.
    const seen: Array<[string, unknown]> = [];
    const w = client.watch(cms('expire'), { resourceVersion: before }, (type, obj) => seen.push([type, obj]));
    const err = await w.done;
    expect(seen).toEqual([['ERROR', expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' })]]);
    expect(isGone(err)).toBe(true);
    inf.stop();
  });
});
