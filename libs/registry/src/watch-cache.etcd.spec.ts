// The watch cache over a real etcd (Debian's etcd-server, 3.4) across an API server restart: a new cache lists,
// then fills its window from etcd's history, and a client that watched the old one resumes from its
// resourceVersion. etcd 3.4 answers a progress request at once, before the history of a watch from a past revision
// (etcd-io/etcd#15220); a cache that took that answer as "caught up" served such a client nothing.
import { startEtcd, type EtcdServer } from '@cl/testing';
import { EtcdStore } from '@cl/store';
import { WatchCache, type CacheWatch } from './index';

jest.setTimeout(120_000);

let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(() => etcd.destroy());

const decode = (kv: { value: Buffer }) => kv.value.toString();
const MARKER = 'zz-marker';

/** Items of a watch up to (not including) the marker object, as `TYPE key@revision`. */
async function untilMarker(w: CacheWatch<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const item of w) {
    if (item.type === 'BOOKMARK') continue;
    if (item.key.endsWith(MARKER)) break;
    out.push(`${item.type} ${item.key}@${item.revision}`);
  }
  w.close();
  return out;
}

/** What a client holds after applying a watch's events to the state it listed (a hole shows as a wrong type). */
function apply(state: Map<string, string>, w: CacheWatch<string>): Promise<Map<string, string>> {
  return (async () => {
    for await (const item of w) {
      if (item.type === 'BOOKMARK') continue;
      if (item.key.endsWith(MARKER)) break;
      const had = state.has(item.key);
      if ((item.type === 'ADDED') === had || (item.type !== 'ADDED' && !had)) throw new Error(`${item.type} ${item.key}@${item.revision} with the key ${had ? 'present' : 'absent'}`);
      if (item.type === 'DELETED') state.delete(item.key);
      else state.set(item.key, item.object);
    }
    w.close();
    return state;
  })();
}

async function putAll(store: EtcdStore, keys: string[]): Promise<number[]> {
  const revs: number[] = [];
  for (let i = 0; i < keys.length; i += 50) revs.push(...(await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, k)))).map((r) => r.revision));
  return revs.sort((a, b) => a - b);
}

/** The objects under `prefix` in the store now (the marker left out). */
async function contents(store: EtcdStore, prefix: string): Promise<Map<string, string>> {
  return new Map((await store.range(prefix)).kvs.filter((kv) => !kv.key.endsWith(MARKER)).map((kv) => [kv.key, kv.value.toString()]));
}

describe.each([1, 2, 3])('round %i: a new cache (the restarted API server) on the same etcd', (round) => {
  const prefix = `/configmaps/round${round}/`;
  let writer: EtcdStore;
  let restarted: EtcdStore;
  let cache: WatchCache<string>;
  beforeAll(() => {
    writer = new EtcdStore({ servers: [etcd.url] });
    restarted = new EtcdStore({ servers: [etcd.url] });
  });
  // Stopped even when a case fails, so no watch outlives it.
  afterEach(() => cache?.stop());
  afterAll(async () => {
    await writer.close();
    await restarted.close();
  });

  test('a watch from a resourceVersion before the restart gets every event after it', async () => {
    await putAll(writer, Array.from({ length: 300 }, (_, i) => `${prefix}before-${i}`));
    const listed = (await writer.range(prefix, { limit: 1 })).revision;
    const later = Array.from({ length: 50 }, (_, i) => `${prefix}after-${String(i).padStart(2, '0')}`);
    const revs = await putAll(writer, later);
    cache = new WatchCache<string>(restarted, prefix, { decode });
    await cache.start();
    const w = cache.watch({ afterRevision: listed });
    await writer.put(prefix + MARKER, 'x');
    const seen = await untilMarker(w);
    // In revision order, as they were written; the keys of one parallel batch may land in any order.
    expect(seen.map((s) => Number(s.split('@')[1]))).toEqual(revs);
    expect(seen.map((s) => s.split(' ')[0])).toEqual(later.map(() => 'ADDED'));
    expect(seen.map((s) => s.split(' ')[1].split('@')[0]).sort()).toEqual(later);
  });

  test('mid-churn: a client resuming from before the restart and a consistent list made during it both end at the store state', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `${prefix}churn-${i}`);
    await putAll(writer, keys);
    const resumeFrom = (await writer.range(prefix, { limit: 1 })).revision;
    const before = await contents(writer, prefix);
    // Writes (updates and deletes, each acknowledged) go on while the old server is gone and while the new cache
    // starts and serves.
    let stop = false;
    let written = 0;
    let whileDown!: () => void;
    const down = new Promise<void>((resolve) => (whileDown = resolve));
    const churn = (async () => {
      for (let i = 0; !stop || i < 400; i++) {
        const key = keys[(i * 7) % keys.length];
        if (i % 3 === 2) await writer.delete(key);
        else await writer.put(key, `${key}:${i}`);
        if (++written === 60) whileDown();
      }
    })();
    await down;
    cache = new WatchCache<string>(restarted, prefix, { decode });
    await cache.start();
    const resumed = apply(new Map(before), cache.watch({ afterRevision: resumeFrom }));
    // A consistent list (resourceVersion unset), as the resource store serves it from the cache: as fresh as the
    // store is now, then a watch from the list's resourceVersion.
    await cache.waitUntilFresh(await writer.currentRevision());
    const listed = cache.list(prefix);
    const relisted = apply(new Map(listed.items.filter((o) => !o.key.endsWith(MARKER)).map((o) => [o.key, o.object])), cache.watch({ afterRevision: listed.revision }));
    stop = true;
    await churn;
    await writer.put(prefix + MARKER, 'x');
    const store = await contents(writer, prefix);
    expect(Object.fromEntries(await resumed)).toEqual(Object.fromEntries(store));
    expect(Object.fromEntries(await relisted)).toEqual(Object.fromEntries(store));
  });
});
