// Resources kept out of the watch cache (events, as upstream): watches straight from the store with the cache's
// items and errors, and a ResourceStore that lists from the store, over the embedded SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '@cl/apimachinery';
import { SqliteStore } from '@cl/store';
import { waitFor } from '@cl/testing';
import { builtinResources, CacheWatcherOverflowError, TooOldResourceVersionError, type ResourceStore, type WatchCacheItem } from './index';
import { watchFromStore } from './uncached-watch';

interface Pod {
  name: string;
  phase: string;
}

const dir = mkdtempSync(join(tmpdir(), 'cl-uncached-watch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let store: SqliteStore;
const decode = (kv: { value: Buffer }) => JSON.parse(kv.value.toString()) as Pod;
const put = (name: string, phase: string) => store.put(`/pods/${name}`, JSON.stringify({ name, phase })).then((r) => r.revision);

beforeEach(() => {
  store = new SqliteStore(join(dir, `${Math.random()}.db`));
});
afterEach(() => store.close());

/** The first `n` items of a watch, as `TYPE name:phase@revision` (BOOKMARK@revision), then closes it. */
async function take(w: AsyncIterable<WatchCacheItem<Pod>> & { close(): void }, n: number): Promise<string[]> {
  const out: string[] = [];
  for await (const item of w) {
    out.push(item.type === 'BOOKMARK' ? `BOOKMARK@${item.revision}${item.initialEventsEnd ? ' end' : ''}` : `${item.type} ${item.object.name}:${item.object.phase}@${item.revision}`);
    if (out.length === n) break;
  }
  w.close();
  return out;
}

test('without a resourceVersion: ADDED for every object (read in pages), the end bookmark, then the changes', async () => {
  const revs: number[] = [];
  // More than one page of the initial list.
  for (let i = 0; i < 1203; i++) revs.push(await put(`p${String(i).padStart(4, '0')}`, 'Pending'));
  const w = watchFromStore(store, '/pods/', decode, { initialEventsEnd: true });
  // Written once the watch's list has begun (its first page is read at once): not lost between list and watch.
  await put('p0000', 'Running');
  const items = await take(w, 1205);
  const last = revs[revs.length - 1];
  expect(items.slice(0, 2)).toEqual([`ADDED p0000:Pending@${revs[0]}`, `ADDED p0001:Pending@${revs[1]}`]);
  expect(items[1202]).toBe(`ADDED p1202:Pending@${last}`);
  expect(items[1203]).toBe(`BOOKMARK@${last} end`);
  // The change came after the list began: it was not lost between the list and the watch.
  expect(items[1204]).toMatch(/^MODIFIED p0000:Running@\d+$/);
}, 60_000);

test('from a resourceVersion: what followed it, deletions with the last state; a compacted one is too old', async () => {
  const r1 = await put('a', 'Pending');
  const r2 = await put('a', 'Running');
  const r3 = await put('b', 'Pending');
  const r4 = (await store.delete('/pods/a')).revision;
  expect(await take(watchFromStore(store, '/pods/', decode, { afterRevision: r1 }), 3)).toEqual([`MODIFIED a:Running@${r2}`, `ADDED b:Pending@${r3}`, `DELETED a:Running@${r4}`]);

  await store.compact(r3);
  const old = watchFromStore(store, '/pods/', decode, { afterRevision: r1 });
  await expect(take(old, 1)).rejects.toThrow(TooOldResourceVersionError);
});

test('with a filter, an object entering the selection is ADDED and one leaving it is DELETED with its last matching state', async () => {
  const r0 = await put('a', 'Pending');
  const w = watchFromStore(store, '/pods/', decode, { afterRevision: r0, filter: (p) => p.phase === 'Running' });
  const r1 = await put('a', 'Running');
  const r2 = await put('a', 'Running');
  const r3 = await put('a', 'Failed');
  await put('b', 'Pending');
  const r5 = await put('b', 'Running');
  expect(await take(w, 4)).toEqual([`ADDED a:Running@${r1}`, `MODIFIED a:Running@${r2}`, `DELETED a:Running@${r3}`, `ADDED b:Running@${r5}`]);
});

test('an idle watch gets bookmarks at the store revision; one whose consumer stops reading fails instead of growing', async () => {
  const r0 = await put('a', 'Pending');
  await store.put('/other/x', '{}');
  const idle = watchFromStore(store, '/pods/', decode, { afterRevision: r0, bookmarkIntervalMs: 50 });
  // Progress from the store moves the bookmark past writes elsewhere.
  let seen = 0;
  for await (const item of idle) {
    if (item.type === 'BOOKMARK') seen = item.revision;
    if (seen > r0) break;
  }
  idle.close();
  expect(seen).toBe(r0 + 1);

  const slow = watchFromStore(store, '/pods/', decode, { afterRevision: r0, maxBuffered: 3 });
  for (let i = 0; i < 6; i++) await put('a', `v${i}`);
  // Nobody reads until the watch has given up on its consumer.
  await waitFor(async () => (slow as unknown as { closed: boolean }).closed, 'the slow watch to fail');
  await expect(take(slow, 10)).rejects.toThrow(CacheWatcherOverflowError);
});

describe('a ResourceStore without a watch cache (events)', () => {
  let stores: ResourceStore[];
  let events: ResourceStore;
  const ev = (namespace: string, name: string, reason: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace }, reason, message: reason, type: 'Normal' });

  beforeEach(async () => {
    stores = builtinResources(store, { eventTtlSeconds: 3600 });
    events = stores.find((s) => s.def.plural === 'events' && s.def.group === '')!;
    await Promise.all(stores.map((s) => s.start()));
  });
  afterEach(() => stores.forEach((s) => s.stop()));

  test('lists and watches come from the store; the count is the store count; there is no cache to read', async () => {
    expect(events.cached).toBe(false);
    expect(() => events.cache).toThrow('events: not kept in the watch cache');
    await events.create('default', ev('default', 'e1', 'Pulled'));
    await events.create('other', ev('other', 'e2', 'Started'));
    const all = await events.list('');
    expect(all.items.map((e) => e.metadata?.name)).toEqual(['e1', 'e2']);
    expect(all.fromCache).toBeUndefined();
    expect((await events.list('other')).items.map((e) => e.metadata?.name)).toEqual(['e2']);
    // A NotOlderThan beyond the store is upstream's 504 "Too large resource version".
    const ahead = Number(all.resourceVersion) + 100;
    const err = await events.list('', { resourceVersion: String(ahead), resourceVersionMatch: 'NotOlderThan' }).catch((e: ApiError) => e);
    expect((err as ApiError).status).toMatchObject({ code: 504, message: `Timeout: Too large resource version: ${ahead}, current: ${all.resourceVersion}` });

    // A namespace's watch sees only its keys, from the given resourceVersion on.
    const w = await events.watch('default', { resourceVersion: all.resourceVersion });
    await events.create('other', ev('other', 'e3', 'Killing'));
    await events.create('default', ev('default', 'e4', 'BackOff'));
    for await (const item of w) {
      expect(item.type === 'BOOKMARK' ? item.type : `${item.type} ${item.object.metadata?.name}`).toBe('ADDED e4');
      break;
    }
    w.close();

    expect(events.size).toBe(0); // the first ask starts the count
    await new Promise((r) => setTimeout(r, 50));
    expect(events.size).toBe(4);
  });

  test('stopping the store ends its open watches', async () => {
    const w = await events.watch('', {});
    const ended = (async () => {
      const got: string[] = [];
      for await (const item of w) got.push(item.type);
      return got;
    })();
    events.stop();
    expect(await ended).toEqual([]);
  });
});
