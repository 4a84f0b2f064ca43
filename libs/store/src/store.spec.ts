// One contract, two backends: the embedded SQLite store and a real etcd.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '@cl/testing';
import { ConflictError, EtcdStore, SqliteStore, openStore, storeHealthCheck, type Store } from './index';

jest.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'cl-store-'));
let etcd: EtcdServer;
const backends: Array<[string, () => Store]> = [
  ['sqlite', () => new SqliteStore(join(dir, `s-${Math.random()}.db`))],
  ['etcd', () => new EtcdStore({ servers: [etcd.url], prefix: `/t${Math.random().toString(36).slice(2)}` })],
];

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(backends)('%s store', (_name, make) => {
  let store: Store;
  beforeAll(() => (store = make()));
  afterAll(() => store.close());

  test('put then get returns the value with its revisions', async () => {
    const { revision } = await store.put('/pods/a', 'one');
    const kv = await store.get('/pods/a');
    expect(kv).toMatchObject({ key: '/pods/a', createRevision: revision, modRevision: revision, version: 1 });
    expect(kv!.value.toString()).toBe('one');
    const second = await store.put('/pods/a', 'two');
    expect(second.revision).toBeGreaterThan(revision);
    expect(await store.get('/pods/a')).toMatchObject({ createRevision: revision, modRevision: second.revision, version: 2 });
  });

  test('currentRevision is the newest write, whatever its key', async () => {
    const { revision } = await store.put('/elsewhere/x', 'v');
    expect(await store.currentRevision()).toBe(revision);
    const del = await store.delete('/elsewhere/x');
    expect(await store.currentRevision()).toBe(del.revision);
  });

  test('a missing key is null', async () => {
    expect(await store.get('/nope')).toBeNull();
  });

  test('put with an expected revision succeeds only when it matches', async () => {
    const { revision } = await store.put('/cas', 'v1', { expectedRevision: 0 });
    await expect(store.put('/cas', 'x', { expectedRevision: 0 })).rejects.toBeInstanceOf(ConflictError);
    await expect(store.put('/cas', 'x', { expectedRevision: revision + 100 })).rejects.toMatchObject({ actualRevision: revision });
    await store.put('/cas', 'v2', { expectedRevision: revision });
    expect((await store.get('/cas'))!.value.toString()).toBe('v2');
  });

  test('delete removes a key, honours the expected revision and reports absence', async () => {
    const { revision } = await store.put('/del', 'x');
    await expect(store.delete('/del', { expectedRevision: revision + 1 })).rejects.toBeInstanceOf(ConflictError);
    expect((await store.delete('/del', { expectedRevision: revision })).deleted).toBe(true);
    expect(await store.get('/del')).toBeNull();
    expect((await store.delete('/del')).deleted).toBe(false);
  });

  test('range by prefix returns the keys in order, with a limit', async () => {
    for (const k of ['/r/b', '/r/a', '/r/c', '/rr/x', '/q']) await store.put(k, k);
    const all = await store.range('/r/');
    expect(all.kvs.map((kv) => kv.key)).toEqual(['/r/a', '/r/b', '/r/c']);
    const two = await store.range('/r/', { limit: 2 });
    expect([two.kvs.map((kv) => kv.key), two.more]).toEqual([['/r/a', '/r/b'], true]);
  });

  test('ping answers while the store is up', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

test('the SQLite store keeps its data across a reopen', async () => {
  const file = join(dir, 'reopen.db');
  const a = new SqliteStore(file);
  await a.put('/k', 'kept');
  await a.close();
  const b = openStore({ dataDir: dir });
  await b.close();
  const c = new SqliteStore(file);
  expect((await c.get('/k'))!.value.toString()).toBe('kept');
  await c.close();
});

test('the store check fails while etcd is stopped and recovers when it returns, with no data lost', async () => {
  const own = await startEtcd();
  const store = new EtcdStore({ servers: [own.url] });
  let t = 0;
  const check = storeHealthCheck(store, { now: () => t });
  try {
    await store.put('/survives', 'yes');
    await expect(Promise.resolve(check.check())).resolves.toBeUndefined();
    await own.stop();
    t += 1000;
    await expect(Promise.resolve().then(() => check.check())).rejects.toThrow(/^error getting data from store: /);
    await own.start();
    let healthy = false;
    for (let i = 0; i < 100 && !healthy; i++) {
      t += 1000;
      healthy = await Promise.resolve()
        .then(() => check.check())
        .then(
        () => true,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 200));
    }
    expect(healthy).toBe(true);
    expect((await store.get('/survives'))!.value.toString()).toBe('yes');
  } finally {
    await store.close();
    await own.destroy();
  }
});

test('the store check probes at most once per half timeout and answers from the last probe in between', async () => {
  let pings = 0;
  let failing = false;
  const fake = { ping: async () => { pings++; if (failing) throw new Error('connection refused'); } } as unknown as Store;
  let t = 0;
  const check = storeHealthCheck(fake, { now: () => t, timeoutMs: 2000 });
  await check.check();
  failing = true;
  t += 999;
  expect(() => check.check()).not.toThrow(); // still the last (healthy) probe, answered synchronously
  expect(pings).toBe(1);
  t += 1;
  await expect(Promise.resolve().then(() => check.check())).rejects.toThrow('error getting data from store: connection refused');
  expect(() => check.check()).toThrow('error getting data from store: connection refused');
  expect(pings).toBe(2);
});
