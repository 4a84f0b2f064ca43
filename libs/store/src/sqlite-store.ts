// The embedded store: one SQLite file, a revisioned key-value table and an append-only event log (the watch
// in a later issue replays it). Every write is one transaction, with synchronous=FULL so a crash after a
// successful put never loses it.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConflictError, type KeyValue, type PutOptions, type RangeOptions, type Store } from './store';

interface Row {
  key: string;
  value: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
}

const toKv = (r: Row): KeyValue => ({
  key: r.key,
  value: r.value,
  createRevision: r.create_revision,
  modRevision: r.mod_revision,
  version: r.version,
});

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly stmts;
  private closed = false;

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
      INSERT OR IGNORE INTO meta (id, revision) VALUES (1, 1);
      CREATE TABLE IF NOT EXISTS kv (
        key TEXT PRIMARY KEY, value BLOB NOT NULL,
        create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL, version INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS events (
        revision INTEGER PRIMARY KEY, key TEXT NOT NULL, type TEXT NOT NULL, value BLOB,
        create_revision INTEGER, version INTEGER);
    `);
    this.stmts = {
      revision: this.db.prepare<[], { revision: number }>('SELECT revision FROM meta WHERE id = 1'),
      bump: this.db.prepare('UPDATE meta SET revision = revision + 1 WHERE id = 1'),
      get: this.db.prepare<[string], Row>('SELECT * FROM kv WHERE key = ?'),
      upsert: this.db.prepare(
        `INSERT INTO kv (key, value, create_revision, mod_revision, version) VALUES (@key, @value, @rev, @rev, 1)
         ON CONFLICT(key) DO UPDATE SET value = @value, mod_revision = @rev, version = version + 1`,
      ),
      remove: this.db.prepare('DELETE FROM kv WHERE key = ?'),
      event: this.db.prepare(
        'INSERT INTO events (revision, key, type, value, create_revision, version) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      range: this.db.prepare<[string, string, number], Row>(
        'SELECT * FROM kv WHERE key >= ? AND key < ? ORDER BY key LIMIT ?',
      ),
      rangeAll: this.db.prepare<[string, number], Row>('SELECT * FROM kv WHERE key >= ? ORDER BY key LIMIT ?'),
      ping: this.db.prepare('SELECT 1'),
    };
  }

  private current(): number {
    return this.stmts.revision.get()!.revision;
  }

  private check(key: string, existing: Row | undefined, opts?: PutOptions) {
    if (opts?.expectedRevision === undefined) return;
    const actual = existing?.mod_revision ?? 0;
    if (actual !== opts.expectedRevision) throw new ConflictError(key, opts.expectedRevision, actual);
  }

  async get(key: string): Promise<KeyValue | null> {
    this.assertOpen();
    const row = this.stmts.get.get(key);
    return row ? toKv(row) : null;
  }

  async put(key: string, value: Buffer | string, opts?: PutOptions): Promise<{ revision: number }> {
    this.assertOpen();
    const buf = typeof value === 'string' ? Buffer.from(value) : value;
    return this.db.transaction(() => {
      const existing = this.stmts.get.get(key);
      this.check(key, existing, opts);
      this.stmts.bump.run();
      const rev = this.current();
      this.stmts.upsert.run({ key, value: buf, rev });
      const row = this.stmts.get.get(key)!;
      this.stmts.event.run(rev, key, 'PUT', buf, row.create_revision, row.version);
      return { revision: rev };
    })();
  }

  async delete(key: string, opts?: PutOptions): Promise<{ deleted: boolean; revision: number }> {
    this.assertOpen();
    return this.db.transaction(() => {
      const existing = this.stmts.get.get(key);
      this.check(key, existing, opts);
      if (!existing) return { deleted: false, revision: this.current() };
      this.stmts.bump.run();
      const rev = this.current();
      this.stmts.remove.run(key);
      this.stmts.event.run(rev, key, 'DELETE', null, existing.create_revision, existing.version);
      return { deleted: true, revision: rev };
    })();
  }

  async range(prefix: string, opts?: RangeOptions): Promise<{ kvs: KeyValue[]; revision: number; more: boolean }> {
    this.assertOpen();
    const limit = opts?.limit && opts.limit > 0 ? opts.limit : -1;
    const end = prefixEndString(prefix);
    return this.db.transaction(() => {
      const fetch = limit > 0 ? limit + 1 : -1;
      const rows = end === null ? this.stmts.rangeAll.all(prefix, fetch) : this.stmts.range.all(prefix, end, fetch);
      const more = limit > 0 && rows.length > limit;
      return { kvs: (more ? rows.slice(0, limit) : rows).map(toKv), revision: this.current(), more };
    })();
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.stmts.ping.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private assertOpen() {
    if (this.closed) throw new Error('closed');
  }
}

/** Keys are compared as SQLite TEXT (byte order for UTF-8); the first string after every `prefix*` key. */
function prefixEndString(prefix: string): string | null {
  if (prefix === '') return null;
  const last = prefix.codePointAt(prefix.length - 1)!;
  return prefix.slice(0, -1) + String.fromCodePoint(last + 1);
}
