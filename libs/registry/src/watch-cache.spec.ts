// The watch cache over a real store (the embedded SQLite backend; the store's own contract tests cover etcd).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactedError, SqliteStore, type Store, type StoreWatch, type WatchOptions } from '@cl/store';
import { CacheWatcherOverflowError, TooLargeResourceVersionError, TooOldResourceVersionError, WatchCache, type WatchCacheItem } from './index';

interface Pod {
  name: string;
  phase: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cl-watch-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: SqliteStore;
let cache: WatchCache<Pod>;
const decode = (kv: { value: Buffer }) => JSON.parse(kv.value.toString()) as Pod;
const put = (name: string, phase: string) => store.put(`/pods/${name}`, JSON.stringify({ name, phase })).then((r) => r.revision);

beforeEach(async () => {
  store = new SqliteStore(join(dir, `${Math.random()}.db`));
  await put('a', 'Pending');
  await put('b', 'Running');
  cache = new WatchCache<Pod>(store, '/pods/', { decode, capacity: 5, progressIntervalMs: 100 });
  await cache.start();
});
afterEach(async () => {
  cache.stop();
  await store.close();
});

/** The first `n` items of a watch, as `TYPE name@revision` (BOOKMARK@revision). */
async function take(w: AsyncIterable<WatchCacheItem<Pod>> & { close(): void }, n: number): Promise<string[]> {
  const out: string[] = [];
  for await (const item of w) {
    out.push(item.type === 'BOOKMARK' ? `BOOKMARK@${item.revision}` : `${item.type} ${item.object.name}:${item.object.phase}@${item.revision}`);
    if (out.length === n) break;
  }
  w.close();
  return out;
}

test('the cache lists what the store holds, at the store revision', async () => {
  const { items, revision } = cache.list();
  expect(items.map((o) => o.object.name)).toEqual(['a', 'b']);
  expect(revision).toBe((await store.count('/pods/')).revision);
});

test('a watch without a resourceVersion starts with ADDED for every object, then the changes', async () => {
  const [a, b] = cache.list().items.map((o) => o.revision);
  const w = cache.watch();
  const r1 = await put('a', 'Running');
  const r2 = await put('c', 'Pending');
  const r3 = (await store.delete('/pods/b')).revision;
  expect(await take(w, 5)).toEqual([
    `ADDED a:Pending@${a}`,
    `ADDED b:Running@${b}`,
    `MODIFIED a:Running@${r1}`,
    `ADDED c:Pending@${r2}`,
    `DELETED b:Running@${r3}`,
  ]);
});

test('a watch from a resourceVersion in the window replays what followed; an older one is too old', async () => {
  const base = cache.revision;
  const revs: number[] = [];
  for (let i = 0; i < 7; i++) revs.push(await put('a', `v${i}`));
  await cache.waitUntilFresh(revs[6]);
  // Capacity 5: the window holds the last five changes, so a watch may resume after revs[1] but not revs[0].
  expect(await take(cache.watch({ afterRevision: revs[1] }), 5)).toEqual([2, 3, 4, 5, 6].map((i) => `MODIFIED a:v${i}@${revs[i]}`));
  const old = cache.watch({ afterRevision: base });
  await expect(take(old, 1)).rejects.toThrow(new TooOldResourceVersionError(base, revs[1]));
  await expect(take(cache.watch({ afterRevision: base }), 1)).rejects.toThrow(`too old resource version: ${base} (${revs[1]})`);
});

test('with a filter, an object entering the selection is ADDED and one leaving it is DELETED', async () => {
  const w = cache.watch({ afterRevision: cache.revision, filter: (p) => p.phase === 'Running' });
  const enter = await put('a', 'Running');
  await put('c', 'Pending'); // never matches: not seen
  const leave = await put('b', 'Succeeded');
  const change = await put('a', 'Running');
  expect(await take(w, 3)).toEqual([`ADDED a:Running@${enter}`, `DELETED b:Running@${leave}`, `MODIFIED a:Running@${change}`]);
});

test('waiting for a revision: resolves once the cache has it, fails as too large when it never comes', async () => {
  const target = cache.revision + 1;
  const waiting = cache.waitUntilFresh(target);
  await put('z', 'Pending');
  await expect(waiting).resolves.toBeUndefined();
  await expect(cache.waitUntilFresh(cache.revision + 100, 200)).rejects.toThrow(TooLargeResourceVersionError);
  await expect(cache.waitUntilFresh(cache.revision + 100, 200)).rejects.toThrow(/^Too large resource version: \d+, current: \d+$/);
});

test('bookmarks carry the cache revision to an idle watcher', async () => {
  const w = cache.watch({ afterRevision: cache.revision, bookmarkIntervalMs: 100 });
  const r = await put('a', 'Running');
  const items = await take(w, 2);
  expect(items[0]).toBe(`MODIFIED a:Running@${r}`);
  expect(items[1]).toBe(`BOOKMARK@${r}`);
});

test('a watcher whose consumer stops reading is dropped; the others go on', async () => {
  const slow = cache.watch({ afterRevision: cache.revision, maxBuffered: 3 });
  const other = cache.watch({ afterRevision: cache.revision });
  let last = 0;
  for (let i = 0; i < 10; i++) last = await put('a', `v${i}`);
  await cache.waitUntilFresh(last);
  await expect(take(slow, 10)).rejects.toBeInstanceOf(CacheWatcherOverflowError);
  expect((await take(other, 10)).pop()).toBe(`MODIFIED a:v9@${last}`);
});

test('a watcher dropped for falling 1,000 changes behind resumes from where it was: the window holds more than that', async () => {
  // Upstream's sizing (no fixed capacity): the window keeps 75 s of changes, so a client that re-watches at once
  // from its last resourceVersion gets the rest instead of a 410 and a relist.
  const sized = new WatchCache<Pod>(store, '/pods/', { decode, progressIntervalMs: 100 });
  await sized.start();
  try {
    const from = sized.revision;
    const slow = sized.watch({ afterRevision: from });
    const first = await put('a', 'v0');
    const got = await take(slow, 1);
    expect(got).toEqual([`MODIFIED a:v0@${first}`]);
    const dropped = sized.watch({ afterRevision: first });
    let last = 0;
    for (let i = 1; i <= 1500; i++) last = await put('a', `v${i}`);
    await sized.waitUntilFresh(last);
    await expect(take(dropped, 1500)).rejects.toBeInstanceOf(CacheWatcherOverflowError);
    const resumed = await take(sized.watch({ afterRevision: first }), 1500);
    expect([resumed.length, resumed[0], resumed[1499]]).toEqual([1500, `MODIFIED a:v1@${first + 1}`, `MODIFIED a:v1500@${last}`]);
  } finally {
    sized.stop();
  }
});

test('when the store watch is compacted away, the cache relists and ends its watchers so they watch again', async () => {
  // A store whose first watch breaks as compacted after one event, as when compaction overtakes a slow cache.
  const real = new SqliteStore(join(dir, `${Math.random()}.db`));
  let watches = 0;
  const breaking: Store = Object.assign(Object.create(real) as Store, {
    watch(prefix: string, opts?: WatchOptions): StoreWatch {
      const inner = real.watch(prefix, opts);
      if (watches++ > 0) return inner;
      const iterate = async function* () {
        for await (const b of inner) {
          yield b;
          // The first change breaks it (a progress notification before it marks the end of the history replay).
          if (b.events.length) throw new CompactedError(b.revision, b.revision + 1);
        }
      };
      return Object.assign(iterate(), { ready: inner.ready, requestProgress: () => inner.requestProgress(), close: () => inner.close() });
    },
  });
  const lines: string[] = [];
  const c = new WatchCache<Pod>(breaking, '/pods/', { decode, log: (l) => lines.push(l) });
  try {
    await c.start();
    const w = c.watch({ afterRevision: c.revision });
    await real.put('/pods/x', JSON.stringify({ name: 'x', phase: 'Pending' }));
    await expect(take(w, 5)).rejects.toBeInstanceOf(TooOldResourceVersionError);
    await c.start();
    const r = (await real.put('/pods/y', JSON.stringify({ name: 'y', phase: 'Pending' }))).revision;
    await c.waitUntilFresh(r);
    expect(c.list().items.map((o) => o.object.name)).toEqual(['x', 'y']);
    expect(lines).toEqual(['watch cache /pods/: store history compacted past the cache; relisting']);
  } finally {
    c.stop();
    await real.close();
  }
});

test('a cache started later replays the store history, so a watch from before its list resumes (an API server restart)', async () => {
  const r3 = await put('a', 'Running');
  const later = new WatchCache<Pod>(store, '/pods/', { decode, capacity: 5, progressIntervalMs: 100 });
  try {
    await later.start();
    expect(later.revision).toBe(r3);
    // r3 - 2 wrote a; everything after it comes from the replayed history, with ADDED/MODIFIED as it happened.
    expect(await take(later.watch({ afterRevision: r3 - 2 }), 2)).toEqual([`ADDED b:Running@${r3 - 1}`, `MODIFIED a:Running@${r3}`]);
    const r4 = await put('b', 'Succeeded');
    expect(await take(later.watch({ afterRevision: r3 }), 1)).toEqual([`MODIFIED b:Succeeded@${r4}`]);
  } finally {
    later.stop();
  }
});

test('history the store compacted away is not replayed: a watch from before it is too old', async () => {
  const r3 = await put('a', 'Running');
  await store.compact(r3 - 1);
  const later = new WatchCache<Pod>(store, '/pods/', { decode, capacity: 5, progressIntervalMs: 100 });
  try {
    await later.start();
    await expect(take(later.watch({ afterRevision: 1 }), 1)).rejects.toBeInstanceOf(TooOldResourceVersionError);
    expect(await take(later.watch({ afterRevision: r3 - 1 }), 1)).toEqual([`MODIFIED a:Running@${r3}`]);
  } finally {
    later.stop();
  }
});

test('indexed watchers: each gets the changes of its value, across moves, without its filter seeing the others', async () => {
  // Indexed by phase here, as pods are by spec.nodeName: a watch on one value is offered only the changes of
  // objects that have it now or had it before.
  const indexedCache = new WatchCache<Pod>(store, '/pods/', { decode, progressIntervalMs: 100, indexOf: (p) => p.phase });
  await indexedCache.start();
  try {
    const from = indexedCache.revision;
    const asked: Record<string, number> = { Running: 0, Failed: 0 };
    const onValue = (phase: 'Running' | 'Failed') =>
      indexedCache.watch({
        afterRevision: from,
        index: phase,
        filter: (p) => {
          asked[phase]++;
          return p.phase === phase;
        },
      });
    const running = onValue('Running');
    const failed = onValue('Failed');
    const all = indexedCache.watch({ afterRevision: from });
    const r1 = await put('x', 'Pending');
    const r2 = await put('x', 'Running'); // into Running
    const r3 = await put('y', 'Pending');
    const r4 = await put('x', 'Failed'); // from Running to Failed
    const r5 = (await store.delete('/pods/x')).revision;
    // Leaving the selection is a DELETED with the object as it was, at the change's revision (as upstream).
    expect(await take(running, 2)).toEqual([`ADDED x:Running@${r2}`, `DELETED x:Running@${r4}`]);
    expect(await take(failed, 2)).toEqual([`ADDED x:Failed@${r4}`, `DELETED x:Failed@${r5}`]);
    expect(await take(all, 5)).toEqual([`ADDED x:Pending@${r1}`, `MODIFIED x:Running@${r2}`, `ADDED y:Pending@${r3}`, `MODIFIED x:Failed@${r4}`, `DELETED x:Failed@${r5}`]);
    // Each filter was asked only about the changes that touched its value (once for the new state, once for the
    // previous): Running about r2 and r4, Failed about r4 and the delete r5. Unindexed, each would be asked 7 times.
    expect(asked).toEqual({ Running: 4, Failed: 3 });
  } finally {
    indexedCache.stop();
  }
});

/**
 * A store whose watch holds back the history it replays until `release()`, as etcd 3.4 sends a watch's history up
 * to 100 ms after creating it: with `early`, it first answers the cache's progress request with the current
 * revision, ahead of that history (etcd-io/etcd#15220); without, it answers none (progressOnRequest false).
 */
function historyLater(real: SqliteStore, early: boolean): { store: Store; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store: Store = Object.assign(Object.create(real) as Store, {
    watch(prefix: string, opts?: WatchOptions): StoreWatch {
      const inner = real.watch(prefix, opts);
      const iterate = async function* () {
        await inner.ready;
        if (early) yield { events: [], revision: await real.currentRevision() };
        await held;
        yield* inner;
      };
      return Object.assign(iterate(), {
        ready: inner.ready,
        progressOnRequest: Promise.resolve(early),
        requestProgress: () => undefined,
        close: () => inner.close(),
      });
    },
  });
  return { store, release };
}

/** A watch's items until the object `zz` (written last), as take() shows them. */
async function untilMarker(w: AsyncIterable<WatchCacheItem<Pod>> & { close(): void }): Promise<string[]> {
  const out: string[] = [];
  for await (const item of w) {
    if (item.type !== 'BOOKMARK' && item.object.name === 'zz') break;
    out.push(item.type === 'BOOKMARK' ? `BOOKMARK@${item.revision}` : `${item.type} ${item.object.name}:${item.object.phase}@${item.revision}`);
  }
  w.close();
  return out;
}

describe.each([
  ['answers the progress request before the history', true],
  ['cannot answer progress requests in order (etcd before 3.4.31)', false],
])('a restarted cache on a store that %s', (_what, early) => {
  test('a watch from a resourceVersion before the restart gets every change after it, however early it registers', async () => {
    const from = cache.revision;
    const r1 = await put('a', 'Running');
    const r2 = (await store.delete('/pods/b')).revision;
    const r3 = await put('c', 'Pending');
    const { store: slow, release } = historyLater(store, early);
    const restarted = new WatchCache<Pod>(slow, '/pods/', { decode, progressIntervalMs: 100 });
    try {
      await restarted.start();
      expect(restarted.list().items.map((o) => `${o.object.name}@${o.revision}`)).toEqual([`a@${r1}`, `c@${r3}`]);
      // Registered before the history has arrived: it is given that history as it comes, then what follows.
      const w = restarted.watch({ afterRevision: from });
      release();
      const r4 = await put('a', 'Succeeded');
      await put('zz', 'marker');
      expect(await untilMarker(w)).toEqual([`MODIFIED a:Running@${r1}`, `DELETED b:Running@${r2}`, `ADDED c:Pending@${r3}`, `MODIFIED a:Succeeded@${r4}`]);
      // One that registers once the history is in is served from the window alike.
      expect(await untilMarker(restarted.watch({ afterRevision: r1 }))).toEqual([`DELETED b:Running@${r2}`, `ADDED c:Pending@${r3}`, `MODIFIED a:Succeeded@${r4}`]);
    } finally {
      restarted.stop();
    }
  });

  test('a watch from a resourceVersion the cache has not reached gets only the changes after it', async () => {
    const { store: slow, release } = historyLater(store, early);
    const restarted = new WatchCache<Pod>(slow, '/pods/', { decode, progressIntervalMs: 100 });
    try {
      await restarted.start();
      const r1 = await put('a', 'Running'); // held back with the history: the cache is still before it
      const w = restarted.watch({ afterRevision: r1 });
      release();
      const r2 = await put('c', 'Pending');
      await put('zz', 'marker');
      expect(await untilMarker(w)).toEqual([`ADDED c:Pending@${r2}`]);
    } finally {
      restarted.stop();
    }
  });
});

test('a cache on etcd before 3.4.31 says consistent reads cannot be served from it; on the embedded store they can', async () => {
  expect(await cache.consistentReadsSupported()).toBe(true);
  const restarted = new WatchCache<Pod>(historyLater(store, false).store, '/pods/', { decode });
  try {
    expect(await restarted.consistentReadsSupported()).toBe(false);
  } finally {
    restarted.stop();
  }
});
