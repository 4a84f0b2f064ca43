// The watch, history, compaction and lease contract, one table of cases run against both backends: the embedded
// SQLite store and a real etcd (Debian's etcd-server) on loopback.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, waitFor, type EtcdServer } from '@cl/testing';
import {
  CompactedError,
  EtcdStore,
  FutureRevisionError,
  LeaseNotFoundError,
  SqliteStore,
  WatchOverflowError,
  type Store,
  type StoreEvent,
  type StoreWatch,
  type WatchBatch,
} from './index';
import { ordersProgressRequests } from './etcd-watch';

jest.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'cl-store-watch-'));
let etcd: EtcdServer;
const backends: Array<[string, () => Store]> = [
  ['sqlite', () => new SqliteStore(join(dir, `w-${Math.random()}.db`))],
  ['etcd', () => new EtcdStore({ servers: [etcd.url], prefix: `/w${Math.random().toString(36).slice(2)}` })],
];

beforeAll(async () => {
  etcd = await startEtcd();
});

/** The version of the etcd under test, from its /version endpoint. */
async function etcdVersion(): Promise<string> {
  const res = await fetch(`${etcd.url}/version`);
  return ((await res.json()) as { etcdserver: string }).etcdserver;
}
afterAll(async () => {
  await etcd.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Reads batches until `n` events arrived (progress batches are skipped), then closes the watch. */
async function events(w: StoreWatch, n: number): Promise<StoreEvent[]> {
  const out: StoreEvent[] = [];
  if (n > 0) {
    for await (const b of w) {
      out.push(...b.events);
      if (out.length >= n) break;
    }
  }
  w.close();
  return out;
}

async function nextBatch(w: StoreWatch): Promise<WatchBatch> {
  const r = await w[Symbol.asyncIterator]().next();
  if (r.done) throw new Error('watch ended');
  return r.value;
}

/** An event as the tests compare it: type, key, value, revisions and the previous value. */
const shape = (e: StoreEvent) => ({
  type: e.type,
  key: e.kv.key,
  value: e.kv.value.toString(),
  rev: e.kv.modRevision,
  create: e.kv.createRevision,
  version: e.kv.version,
  prev: e.prevKv && { value: e.prevKv.value.toString(), rev: e.prevKv.modRevision, version: e.prevKv.version },
});

describe.each(backends)('%s store: watch and history', (name, make) => {
  let store: Store;
  let n = 0;
  let p: string; // a fresh prefix per case
  beforeAll(() => (store = make()));
  afterAll(() => store.close());
  beforeEach(() => (p = `/c${++n}/`));

  test('a watch from now sees puts, updates and deletes in revision order, with previous values', async () => {
    const w = store.watch(p);
    await w.ready;
    const a1 = (await store.put(`${p}a`, 'one')).revision;
    const a2 = (await store.put(`${p}a`, 'two')).revision;
    const d = (await store.delete(`${p}a`)).revision;
    expect((await events(w, 3)).map(shape)).toEqual([
      { type: 'PUT', key: `${p}a`, value: 'one', rev: a1, create: a1, version: 1, prev: null },
      { type: 'PUT', key: `${p}a`, value: 'two', rev: a2, create: a1, version: 2, prev: { value: 'one', rev: a1, version: 1 } },
      { type: 'DELETE', key: `${p}a`, value: '', rev: d, create: 0, version: 0, prev: { value: 'two', rev: a2, version: 2 } },
    ]);
  });

  test('a watch sees only keys under its prefix', async () => {
    const w = store.watch(`${p}x/`);
    await w.ready;
    await store.put(`${p}xy`, 'sibling');
    await store.put(`${p}x`, 'parent');
    const inside = (await store.put(`${p}x/1`, 'child')).revision;
    expect((await events(w, 1)).map((e) => [e.kv.key, e.kv.modRevision])).toEqual([[`${p}x/1`, inside]]);
  });

  test('a watch from a past revision replays what followed it, then continues live', async () => {
    const r1 = (await store.put(`${p}a`, '1')).revision;
    const r2 = (await store.put(`${p}b`, '2')).revision;
    const r3 = (await store.delete(`${p}a`)).revision;
    const w = store.watch(p, { afterRevision: r1 });
    expect(await w.ready).toBe(r1);
    const r4 = (await store.put(`${p}c`, '4')).revision;
    expect((await events(w, 3)).map((e) => [e.type, e.kv.key, e.kv.modRevision])).toEqual([
      ['PUT', `${p}b`, r2],
      ['DELETE', `${p}a`, r3],
      ['PUT', `${p}c`, r4],
    ]);
  });

  test('delete and re-create: the new key starts at version 1 with no previous value', async () => {
    const w = store.watch(p);
    await w.ready;
    const c1 = (await store.put(`${p}k`, 'first')).revision;
    await store.delete(`${p}k`);
    const c2 = (await store.put(`${p}k`, 'second')).revision;
    const [, del, again] = (await events(w, 3)).map(shape);
    expect(del).toMatchObject({ type: 'DELETE', prev: { value: 'first', rev: c1, version: 1 } });
    expect(again).toEqual({ type: 'PUT', key: `${p}k`, value: 'second', rev: c2, create: c2, version: 1, prev: null });
    expect(await store.get(`${p}k`)).toMatchObject({ createRevision: c2, modRevision: c2, version: 1 });
  });

  test('after compaction, reads and watches from before it fail as compacted; from it on they work', async () => {
    const r1 = (await store.put(`${p}a`, 'old')).revision;
    const r2 = (await store.put(`${p}a`, 'new')).revision;
    const r3 = (await store.put(`${p}b`, 'b')).revision;
    await store.compact(r2);
    await expect(store.range(p, { revision: r1 })).rejects.toBeInstanceOf(CompactedError);
    const watchOld = store.watch(p, { afterRevision: r1 - 1 });
    await expect(nextBatch(watchOld)).rejects.toBeInstanceOf(CompactedError);
    const at = await store.range(p, { revision: r2 });
    expect(at.kvs.map((kv) => [kv.key, kv.value.toString()])).toEqual([[`${p}a`, 'new']]);
    expect((await events(store.watch(p, { afterRevision: r2 - 1 }), 2)).map((e) => e.kv.modRevision)).toEqual([r2, r3]);
    await expect(store.compact(r1)).rejects.toBeInstanceOf(CompactedError);
  });

  test('a read at a revision the store has not reached fails as a future revision', async () => {
    const { revision } = await store.put(`${p}a`, 'x');
    await expect(store.range(p, { revision: revision + 1000 })).rejects.toBeInstanceOf(FutureRevisionError);
  });

  test('a paged range at one revision is a consistent snapshot while writes go on', async () => {
    for (const k of ['a', 'b', 'c', 'd', 'e']) await store.put(`${p}${k}`, `${k}0`);
    const first = await store.range(p, { limit: 2 });
    expect([first.kvs.map((kv) => kv.key), first.more]).toEqual([[`${p}a`, `${p}b`], true]);
    // Changes after the snapshot: an update, a delete and a new key in the pages still to come.
    await store.put(`${p}c`, 'c1');
    await store.delete(`${p}d`);
    await store.put(`${p}cc`, 'new');
    const seen = first.kvs.map((kv) => `${kv.key}=${kv.value}`);
    let page = first;
    while (page.more) {
      page = await store.range(p, { revision: first.revision, limit: 2, startKey: page.kvs[page.kvs.length - 1].key + '\0' });
      expect(page.revision).toBe(first.revision);
      seen.push(...page.kvs.map((kv) => `${kv.key}=${kv.value}`));
    }
    expect(seen).toEqual(['a=a0', 'b=b0', 'c=c0', 'd=d0', 'e=e0'].map((s) => p + s));
    expect((await store.range(p)).kvs.map((kv) => kv.key.slice(p.length))).toEqual(['a', 'b', 'c', 'cc', 'e']);
  });

  test('count tells how many keys are under a prefix now', async () => {
    for (const k of ['a', 'b', 'c']) await store.put(`${p}${k}`, k);
    await store.delete(`${p}b`);
    await store.put(`${p}a`, 'again');
    const { count, revision } = await store.count(p);
    expect(count).toBe(2);
    expect(revision).toBe((await store.range(p)).revision);
  });

  test('count keeps up with every change after it was first asked: creates, updates, deletes, re-creation, a revoked lease', async () => {
    const other = `${p}other/`;
    await store.put(`${other}x`, 'x');
    const counted = async () => {
      const { count } = await store.count(p);
      // The same as what a read of the prefix holds now.
      expect(count).toBe((await store.range(p)).kvs.length);
      return count;
    };
    for (const k of ['a', 'b']) await store.put(`${p}${k}`, k);
    const lease = await store.grantLease(60);
    const steps: Array<[string, () => Promise<unknown>, number]> = [
      ['create', () => store.put(`${p}c`, 'c'), 4],
      ['update', () => store.put(`${p}a`, 'a1'), 4],
      ['delete', () => store.delete(`${p}b`), 3],
      ['create again after a delete', () => store.put(`${p}b`, 'b1'), 4],
      ['delete of a missing key', () => store.delete(`${p}zz`), 4],
      ['create with a lease', () => store.put(`${p}d`, 'd', { lease }), 5],
      ['revoke the lease (its key goes)', () => store.revokeLease(lease), 4],
    ];
    expect(await counted()).toBe(3); // a, b and other/x
    for (const [, step, expected] of steps) {
      await step();
      await waitFor(async () => ((await store.count(p)).count === expected ? true : undefined), `the count after each step`);
      expect(await counted()).toBe(expected);
    }
  });

  test('a key put with a lease is deleted when the lease expires, with a DELETE event', async () => {
    const lease = await store.grantLease(1);
    const w = store.watch(p);
    await w.ready;
    const put = (await store.put(`${p}ttl`, 'short-lived', { lease })).revision;
    await store.put(`${p}kept`, 'stays');
    expect((await store.get(`${p}ttl`))!.lease).toBe(lease);
    const [, , expired] = (await events(w, 3)).map(shape);
    expect(expired).toMatchObject({ type: 'DELETE', key: `${p}ttl`, prev: { value: 'short-lived', rev: put } });
    expect(await store.get(`${p}ttl`)).toBeNull();
    expect(await store.get(`${p}kept`)).not.toBeNull();
  });

  test('revoking a lease deletes its keys now; an unknown lease is refused', async () => {
    const lease = await store.grantLease(3600);
    await store.put(`${p}a`, 'x', { lease });
    await store.put(`${p}b`, 'y', { lease });
    await store.revokeLease(lease);
    expect((await store.range(p)).kvs).toEqual([]);
    await expect(store.put(`${p}c`, 'z', { lease })).rejects.toBeInstanceOf(LeaseNotFoundError);
  });

  test('an idle watch gets progress notifications carrying the current revision, where the store answers them in order', async () => {
    const { revision } = await store.put(`${p}before`, 'x');
    const w = store.watch(p, { progressIntervalMs: 200 });
    await w.ready;
    // etcd before 3.4.31 / 3.5.13 answers out of order: the watch says so, and then asks nothing.
    const answers = await w.progressOnRequest;
    expect(answers).toBe(name === 'sqlite' || ordersProgressRequests(await etcdVersion()));
    if (!answers) return w.close();
    const b = await nextBatch(w);
    expect(b.events).toEqual([]);
    expect(b.revision).toBeGreaterThanOrEqual(revision);
    // An explicit request is answered too, after the events already sent.
    const r = (await store.put(`${p}a`, '1')).revision;
    w.requestProgress();
    const seen: WatchBatch[] = [];
    for await (const batch of w) {
      seen.push(batch);
      if (batch.events.length === 0 && batch.revision >= r) break;
    }
    w.close();
    expect(seen.flatMap((s) => s.events).map((e) => e.kv.modRevision)).toEqual([r]);
  });

  test('a progress notification never runs ahead of the events before it: a watch from a past revision asks at once', async () => {
    // etcd 3.4 answered such a request with its current revision before sending any of the history (a consumer
    // that took it as "everything up to here" had a hole), and a stream resumed after it skipped the history.
    const from = (await store.put(`${p}first`, '0')).revision;
    const revs: number[] = [];
    for (let i = 0; i < 20; i++) revs.push((await store.put(`${p}k${i}`, String(i))).revision);
    const w = store.watch(p, { afterRevision: from });
    await w.ready;
    w.requestProgress();
    const marker = (await store.put(`${p}marker`, 'm')).revision;
    const seen: number[] = [];
    const ahead: string[] = [];
    let claimed = 0;
    for await (const b of w) {
      if (b.events.length === 0) claimed = Math.max(claimed, b.revision);
      for (const e of b.events) {
        if (e.kv.modRevision <= claimed) ahead.push(`event ${e.kv.modRevision} after a progress notification at ${claimed}`);
        seen.push(e.kv.modRevision);
      }
      if (seen.includes(marker)) break;
    }
    w.close();
    expect(ahead).toEqual([]);
    expect(seen).toEqual([...revs, marker]);
  });

  test('a consumer that stops reading is dropped with an error instead of buffering without bound', async () => {
    const slow = store.watch(p, { maxBufferedEvents: 5 });
    await slow.ready;
    const reader = store.watch(p);
    await reader.ready;
    for (let i = 0; i < 10; i++) await store.put(`${p}k${i}`, String(i));
    await events(reader, 10); // the slow watch has been sent all ten by now
    let got = 0;
    const drain = async () => {
      for await (const b of slow) got += b.events.length;
    };
    await expect(drain()).rejects.toBeInstanceOf(WatchOverflowError);
    expect(got).toBeLessThan(10);
  });

  test('closing a watch ends its iteration', async () => {
    const w = store.watch(p);
    await w.ready;
    setTimeout(() => w.close(), 50);
    const batches: WatchBatch[] = [];
    for await (const b of w) batches.push(b);
    expect(batches).toEqual([]);
  });
});

test('an etcd watch resumes across an etcd crash and restart: every event exactly once', async () => {
  const own = await startEtcd();
  const store = new EtcdStore({ servers: [own.url] });
  try {
    const w = store.watch('/crash/');
    await w.ready;
    const before: number[] = [];
    for (let i = 0; i < 5; i++) before.push((await store.put(`/crash/before-${i}`, String(i))).revision);
    await own.stop('SIGKILL');
    await own.start();
    const after: number[] = [];
    await waitFor(async () => store.ping().then(() => true, () => undefined), 'etcd to answer again');
    for (let i = 0; i < 5; i++) after.push((await store.put(`/crash/after-${i}`, String(i))).revision);
    const seen = (await events(w, 10)).map((e) => e.kv.modRevision);
    expect(seen).toEqual([...before, ...after]);
  } finally {
    await store.close();
    await own.destroy();
  }
});

test('a write by another process on the same etcd reaches a watch in this one', async () => {
  const store = new EtcdStore({ servers: [etcd.url], prefix: '/shared' });
  try {
    const w = store.watch('/from-other/');
    await w.ready;
    const script = `
      const { EtcdStore } = require('./etcd-store');
      const s = new EtcdStore({ servers: [${JSON.stringify(etcd.url)}], prefix: '/shared' });
      s.put('/from-other/pod', 'written elsewhere').then((r) => { process.stdout.write(String(r.revision)); return s.close(); });`;
    const child = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: __dirname, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const [e] = await events(w, 1);
    expect([e.type, e.kv.key, e.kv.value.toString(), e.kv.modRevision]).toEqual(['PUT', '/from-other/pod', 'written elsewhere', Number(child.stdout)]);
  } finally {
    await store.close();
  }
});

test('an etcd watch replays a backlog into a process whose event loop is never idle in a few turns, not one flow-control window per turn', async () => {
  // A loaded API server's loop polls its sockets only between long turns. With grpc-js's default 64 KiB windows etcd
  // could send one window per turn (a handful of pod-sized events); the store's 16 MiB windows let a turn take all
  // that arrived. Counted in turns of the loop, not in time.
  const store = new EtcdStore({ servers: [etcd.url], prefix: `/busy${Math.random().toString(36).slice(2)}` });
  try {
    const value = Buffer.alloc(8 * 1024, 'p');
    const first = (await store.put('/backlog-start', 'x')).revision;
    const total = 600; // 4.8 MiB: 75 default windows
    for (let i = 0; i < total; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => store.put(`/backlog/${i + j}`, value)));
    let turns = 0;
    let busy = true;
    const turn = () => {
      turns++;
      const end = Date.now() + 5;
      while (Date.now() < end);
      if (busy) setImmediate(turn);
    };
    const w = store.watch('/backlog/', { afterRevision: first });
    setImmediate(turn);
    const seen = (await events(w, total)).length;
    busy = false;
    expect(seen).toBe(total);
    expect(turns).toBeLessThan(60); // ~20 here; ~130 with 64 KiB windows
  } finally {
    await store.close();
  }
});
