// Writes that arrive together are committed together (one transaction, one fsync), yet each keeps its own outcome.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConflictError } from './store';
import { SqliteStore } from './sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'cl-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('concurrent writes: each its own revision in arrival order; a conflict fails only its own write; watchers see the rest in order', async () => {
  const store = new SqliteStore(join(dir, 'a.db'));
  try {
    const { revision: start } = await store.put('/k/base', 'v0');
    const events: string[] = [];
    const watch = store.watch('/k/', { afterRevision: start });
    const reading = (async () => {
      for await (const batch of watch) {
        for (const e of batch.events) events.push(`${e.type} ${e.kv.key} ${e.kv.modRevision}`);
        if (events.length >= 3) return;
      }
    })();
    const results = await Promise.allSettled([
      store.put('/k/a', '1'),
      store.put('/k/base', 'stale', { expectedRevision: start - 1 }),
      store.put('/k/b', '2'),
      store.delete('/k/base'),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.revision : (r.reason as Error).constructor.name))).toEqual([start + 1, ConflictError.name, start + 2, start + 3]);
    await reading;
    watch.close();
    expect(events).toEqual([`PUT /k/a ${start + 1}`, `PUT /k/b ${start + 2}`, `DELETE /k/base ${start + 3}`]);
    // Nothing of the failed write is anywhere.
    expect(await store.get('/k/base')).toBeNull();
  } finally {
    await store.close();
  }
});

test('an acknowledged write is on disk: a store opened on the same file after close reads it', async () => {
  const file = join(dir, 'b.db');
  const store = new SqliteStore(file);
  const writes = Array.from({ length: 50 }, (_, i) => store.put(`/k/${i}`, String(i)));
  // Closing with writes still queued commits them first.
  await store.close();
  expect((await Promise.all(writes)).length).toBe(50);
  const again = new SqliteStore(file);
  try {
    expect((await again.range('/k/')).kvs.length).toBe(50);
  } finally {
    await again.close();
  }
});

test('nobody sees a write before its writer is answered: get, range, currentRevision and watches turn together once it is on disk', async () => {
  const store = new SqliteStore(join(dir, 'c.db'));
  try {
    const { revision: start } = await store.put('/v/seed', 's');
    const watch = store.watch('/v/', { afterRevision: start });
    let watched = false;
    void (async () => {
      for await (const batch of watch) if (batch.events.some((e) => e.kv.key === '/v/x')) watched = true;
    })();
    let answered = false;
    const put = store.put('/v/x', '1').then((r) => ((answered = true), r));
    const seenBeforeAnswer: string[] = [];
    // Poll between event-loop turns (where another request would be served) until the writer has its answer.
    while (!answered) {
      await new Promise((r) => setImmediate(r));
      if (answered) break;
      if (await store.get('/v/x')) seenBeforeAnswer.push('get');
      if ((await store.range('/v/')).kvs.length > 1) seenBeforeAnswer.push('range');
      if ((await store.currentRevision()) > start) seenBeforeAnswer.push('currentRevision');
      if (watched) seenBeforeAnswer.push('watch');
    }
    expect(seenBeforeAnswer).toEqual([]);
    const { revision } = await put;
    expect(await store.currentRevision()).toBe(revision);
    expect((await store.get('/v/x'))?.modRevision).toBe(revision);
    watch.close();
  } finally {
    await store.close();
  }
});

test('a compaction over many revisions goes in steps that writes interleave with, and keeps exactly each key\'s state at its revision', async () => {
  const file = join(dir, 'd.db');
  const store = new SqliteStore(file);
  try {
    // 12,000 revisions over 40 keys, the odd keys deleted at the end: several compaction steps.
    for (let round = 0; round < 300; round++) await Promise.all(Array.from({ length: 40 }, (_, k) => store.put(`/c/${k}`, `${round}`)));
    for (let k = 1; k < 40; k += 2) await store.delete(`/c/${k}`);
    const at = await store.currentRevision();
    await store.put('/c/0', 'after');
    const compacting = store.compact(at);
    // A write issued while the compaction runs is answered (the compaction yields between its steps).
    const during = await store.put('/c/late', 'x');
    await compacting;
    expect(during.revision).toBeGreaterThan(at);
    const snapshot = await store.range('/c/', { revision: at });
    expect(snapshot.kvs.map((kv) => `${kv.key}=${kv.value}`).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `/c/${i * 2}=299`).sort(),
    );
    await expect(store.range('/c/', { revision: at - 1 })).rejects.toThrow('has been compacted');
  } finally {
    await store.close();
  }
  // Below the compaction point only each key's last live row is left (20 live keys); from it on everything: the
  // last deletion (at the compaction revision itself) and the two later writes.
  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare('SELECT COUNT(*) FROM log').pluck().get()).toBe(23);
  } finally {
    db.close();
  }
});
