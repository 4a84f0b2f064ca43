// Writes that arrive together are committed together (one transaction, one fsync), yet each keeps its own outcome.
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
