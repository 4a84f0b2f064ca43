// Periodic compaction: each tick compacts to the revision of the tick before, and several API servers on one
// etcd compact once per interval between them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '@cl/testing';
import { CompactedError, EtcdStore, LeaseManager, SqliteStore, startCompactor, type Store } from './index';

jest.setTimeout(120_000);

let etcd: EtcdServer;
const dir = mkdtempSync(join(tmpdir(), 'cl-compactor-'));
beforeAll(async () => (etcd = await startEtcd()));
afterAll(async () => {
  await etcd.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const backends: Array<[string, () => Store]> = [
  ['sqlite', () => new SqliteStore(join(dir, `c-${Math.random()}.db`))],
  ['etcd', () => new EtcdStore({ servers: [etcd.url], prefix: `/c${Math.random().toString(36).slice(2)}` })],
];

test.each(backends)('%s: a tick compacts the history up to the previous tick, never newer', async (_name, make) => {
  const store = make();
  const lines: string[] = [];
  const compactor = startCompactor(store, { intervalMs: 0, log: (l) => lines.push(l) });
  try {
    const old = (await store.put('/k', 'v0')).revision;
    await compactor.tick(); // first tick: only notes where the store is
    expect(lines).toEqual([]);
    const kept = (await store.put('/k', 'v1')).revision;
    await compactor.tick();
    expect(lines).toEqual([expect.stringMatching(/^store: compacted history up to revision \d+$/)]);
    await expect(store.range('/k', { revision: old })).rejects.toBeInstanceOf(CompactedError);
    expect((await store.range('/k', { revision: kept })).kvs[0].value.toString()).toBe('v1');
  } finally {
    compactor.stop();
    await store.close();
  }
});

test('two API servers on one etcd compact once per interval between them', async () => {
  const prefix = '/shared-compaction';
  const a = new EtcdStore({ servers: [etcd.url], prefix });
  const b = new EtcdStore({ servers: [etcd.url], prefix });
  const logA: string[] = [];
  const logB: string[] = [];
  const ca = startCompactor(a, { intervalMs: 0, log: (l) => logA.push(l) });
  const cb = startCompactor(b, { intervalMs: 0, log: (l) => logB.push(l) });
  try {
    for (let round = 0; round < 3; round++) {
      await a.put('/x', String(round));
      await ca.tick();
      await cb.tick();
    }
    // A claimed every interval; B found the key advanced each time and left the compaction to A.
    expect(logA).toHaveLength(2);
    expect(logB).toEqual([]);
  } finally {
    ca.stop();
    cb.stop();
    await a.close();
    await b.close();
  }
});

test.each(backends)('%s: keys written within the reuse window share a lease that outlives their TTL', async (_name, make) => {
  const store = make();
  let now = 1_000_000;
  const leases = new LeaseManager(store, { now: () => now });
  try {
    const [l1, l2] = await Promise.all([leases.leaseFor(3600), leases.leaseFor(3600)]);
    expect(l2).toBe(l1);
    now += 59_000; // still inside the 60 s window (5% of an hour is 180 s, capped at 60)
    expect(await leases.leaseFor(3600)).toBe(l1);
    now += 2_000;
    const l3 = await leases.leaseFor(3600);
    expect(l3).not.toBe(l1);
    await store.put('/event', 'x', { lease: l3 });
    expect((await store.get('/event'))!.lease).toBe(l3);
  } finally {
    await store.close();
  }
});
