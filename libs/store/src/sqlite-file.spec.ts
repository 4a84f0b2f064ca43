// The embedded store's file: what survives a restart, and what is refused at open with a message naming the file.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore, StoreFileError } from './index';

const dir = mkdtempSync(join(tmpdir(), 'cl-store-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);

test('a restart keeps every key, the revision counter, the history and the compaction point', async () => {
  const f = file('restart.db');
  const a = new SqliteStore(f);
  const r1 = (await a.put('/k/a', 'one')).revision;
  const r2 = (await a.put('/k/a', 'two')).revision;
  await a.put('/k/b', 'b');
  const last = (await a.delete('/k/b')).revision;
  await a.compact(r2);
  await a.close();

  const b = new SqliteStore(f);
  try {
    expect((await b.get('/k/a'))!.value.toString()).toBe('two');
    expect(await b.get('/k/b')).toBeNull();
    expect((await b.put('/k/c', 'c')).revision).toBe(last + 1);
    await expect(b.range('/k/', { revision: r1 })).rejects.toThrow('has been compacted');
    const replay: string[] = [];
    for await (const batch of b.watch('/k/', { afterRevision: r2 - 1 })) {
      replay.push(...batch.events.map((e) => `${e.type} ${e.kv.key}`));
      if (replay.length === 4) break;
    }
    expect(replay).toEqual(['PUT /k/a', 'PUT /k/b', 'DELETE /k/b', 'PUT /k/c']);
  } finally {
    await b.close();
  }
});

test('a lease outlives a restart and still expires', async () => {
  const f = file('lease.db');
  const a = new SqliteStore(f);
  const lease = await a.grantLease(1);
  await a.put('/ttl', 'x', { lease });
  await a.close();
  const b = new SqliteStore(f);
  try {
    expect(await b.get('/ttl')).not.toBeNull();
    const w = b.watch('/ttl');
    for await (const batch of w) {
      if (batch.events.some((e) => e.type === 'DELETE')) break;
    }
    expect(await b.get('/ttl')).toBeNull();
  } finally {
    await b.close();
  }
});

const refusals: Array<[string, (f: string) => void, RegExp]> = [
  ['a file that is not a database', (f) => writeFileSync(f, 'this is not sqlite at all, just text that is long enough to have a header'), /^store file .*garbage\.db is not a cl store: file is not a database$/],
  ['another application\'s database', (f) => {
    const db = new Database(f);
    db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
  }, /^store file .*foreign\.db is not a cl store: it holds other tables \(users\)$/],
  ['a database stamped by another application', (f) => {
    const db = new Database(f);
    db.pragma('application_id = 42');
    db.exec('CREATE TABLE t (x)');
    db.close();
  }, /^store file .*stamped\.db is not a cl store: it belongs to another application \(id 0x2a\)$/],
];

test.each(refusals)('refuses %s, naming the file', (_what, write, message) => {
  const name = message.source.match(/\.\*(\w+)\\\.db/)![1] + '.db';
  const f = file(name);
  write(f);
  expect(() => new SqliteStore(f)).toThrow(StoreFileError);
  expect(() => new SqliteStore(f)).toThrow(message);
});

test('refuses a file another process holds open as its store', async () => {
  const f = file('locked.db');
  const mine = new SqliteStore(f);
  try {
    // The other API server is another process: a second open in this one would share the lock.
    const other = spawnSync(
      process.execPath,
      ['-e', `const D=require('better-sqlite3');try{const db=new D(${JSON.stringify(f)});db.pragma('busy_timeout = 200');db.exec('BEGIN IMMEDIATE; COMMIT');console.log('opened')}catch(e){console.log(e.message)}`],
      { cwd: __dirname, encoding: 'utf8' },
    );
    expect(other.stdout.trim()).toMatch(/locked|busy/);
  } finally {
    await mine.close();
  }
  const again = new SqliteStore(f);
  await again.close();
});

test('a store written by the first layout (current-state and event tables) keeps its keys and revision', async () => {
  const f = file('first-layout.db');
  const db = new Database(f);
  db.exec(`
    CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
    INSERT INTO meta (id, revision) VALUES (1, 9);
    CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL, create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL, version INTEGER NOT NULL);
    INSERT INTO kv VALUES ('/namespaces/default', X'7B7D', 2, 5, 2), ('/namespaces/kube-system', X'7B7D', 3, 3, 1);
    CREATE TABLE events (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type TEXT NOT NULL, value BLOB, create_revision INTEGER, version INTEGER);`);
  db.close();
  const s = new SqliteStore(f);
  try {
    expect(await s.get('/namespaces/default')).toMatchObject({ createRevision: 2, modRevision: 5, version: 2 });
    expect((await s.range('/namespaces/')).kvs.map((kv) => kv.key)).toEqual(['/namespaces/default', '/namespaces/kube-system']);
    expect((await s.put('/namespaces/x', '{}')).revision).toBe(10);
    await expect(s.range('/namespaces/', { revision: 5 })).rejects.toThrow('has been compacted');
  } finally {
    await s.close();
  }
  const reopened = new SqliteStore(f);
  expect((await reopened.count('/namespaces/')).count).toBe(3);
  await reopened.close();
});
