// The embedded store: one SQLite file holding a log of revisions, the way k3s's kine keeps etcd's model in SQL.
// Every change is one row (its revision is the row id) carrying the key's create revision, the revision and value
// it replaced, and a deleted mark, so a key's state at any revision, a watch replay and an event's previous value
// all come from the same table. One process writes (the file's lock keeps it so), which lets watchers in this
// process be woken right after each commit instead of polling. synchronous=FULL: an acknowledged write survives
// a crash. Writes are committed in groups: the puts and deletes that arrive within one turn of the event loop share
// one transaction and so one fsync (better-sqlite3 commits synchronously, and a commit per write held the event
// loop for most of a busy server's time: bench/density). Each write is still checked and applied on its own (a
// savepoint each, so a conflict fails only that write), in arrival order, and its promise settles only once the
// group is on disk; until then no read sees it.
import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openStoreFile } from './sqlite-schema';
import { LeaseClock } from './sqlite-leases';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  type DeleteOptions,
  type KeyValue,
  type PutOptions,
  type RangeOptions,
  type RangeResult,
  type Store,
  type StoreEvent,
  type StoreWatch,
  type WatchOptions,
} from './store';
import { WatchQueue } from './watch-queue';

interface Row {
  revision: number;
  key: string;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  version: number;
  lease: number;
  prev_lease: number;
  value: Buffer | null;
  old_value: Buffer | null;
}

const EMPTY = Buffer.alloc(0);

const toKv = (r: Row): KeyValue => ({
  key: r.key,
  value: r.value ?? EMPTY,
  createRevision: r.create_revision,
  modRevision: r.revision,
  version: r.version,
  lease: r.lease,
});

function toEvent(r: Row): StoreEvent {
  const prevKv: KeyValue | null =
    r.prev_revision === 0
      ? null
      : {
          key: r.key,
          value: r.old_value ?? EMPTY,
          createRevision: r.create_revision,
          modRevision: r.prev_revision,
          version: r.deleted ? r.version : r.version - 1,
          lease: r.prev_lease,
        };
  if (!r.deleted) return { type: 'PUT', kv: toKv(r), prevKv };
  return { type: 'DELETE', kv: { key: r.key, value: EMPTY, createRevision: 0, modRevision: r.revision, version: 0, lease: 0 }, prevKv };
}

/** Keys are compared as SQLite TEXT (byte order for UTF-8); the first string after every `prefix*` key. */
function prefixEndString(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  const last = prefix.codePointAt(prefix.length - 1)!;
  return prefix.slice(0, -1) + String.fromCodePoint(last + 1);
}

/** Rows read back per statement while replaying history into a new watch. */
const REPLAY_PAGE = 1000;

interface Watcher {
  prefix: string;
  queue: WatchQueue;
}

/** A write waiting for the next group commit: `apply` runs inside the group's transaction. */
interface PendingWrite {
  apply: () => Row | null;
  resolve: (row: Row | null) => void;
  reject: (e: unknown) => void;
}

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly leases: LeaseClock;
  private readonly watchers = new Set<Watcher>();
  private revision: number;
  private compactRevision: number;
  private closed = false;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = openStoreFile(file);
    const db = this.db;
    this.stmts = {
      latest: db.prepare<[string], Row>('SELECT * FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1'),
      insert: db.prepare(
        `INSERT INTO log (revision, key, deleted, create_revision, prev_revision, version, lease, prev_lease, value, old_value)
         VALUES (@revision, @key, @deleted, @create_revision, @prev_revision, @version, @lease, @prev_lease, @value, @old_value)`,
      ),
      // A key's state at revision R is its newest row at or before R; "no newer row up to R" walks the
      // (key, revision) index once, about twice as fast as grouping by key. Old values are not read.
      rangeAt: db.prepare<[string, string, number, number, number], Row>(
        `SELECT revision, key, deleted, create_revision, version, lease, value FROM log l
         WHERE key >= ? AND key < ? AND revision <= ? AND deleted = 0
           AND NOT EXISTS (SELECT 1 FROM log newer WHERE newer.key = l.key AND newer.revision > l.revision AND newer.revision <= ?)
         ORDER BY key LIMIT ?`,
      ),
      count: db.prepare<[string, string], number>(
        `SELECT COUNT(*) FROM log l WHERE key >= ? AND key < ? AND deleted = 0
           AND NOT EXISTS (SELECT 1 FROM log newer WHERE newer.key = l.key AND newer.revision > l.revision)`,
      ).pluck(),
      since: db.prepare<[number, string, string, number], Row>(
        'SELECT * FROM log WHERE revision > ? AND key >= ? AND key < ? ORDER BY revision LIMIT ?',
      ),
      maxRevision: db.prepare<[], number | null>('SELECT MAX(revision) FROM log').pluck(),
      meta: db.prepare<[string], number>('SELECT value FROM meta WHERE name = ?').pluck(),
      setMeta: db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
      // Compaction keeps every row from `revision` on (watch replay) and, before it, only each key's last live
      // row (reads at `revision`); superseded rows and tombstones go.
      compact: db.prepare<{ revision: number }>(
        `DELETE FROM log WHERE revision < @revision AND (deleted = 1 OR EXISTS
           (SELECT 1 FROM log newer WHERE newer.key = log.key AND newer.revision > log.revision AND newer.revision <= @revision))`,
      ),
      ping: db.prepare('SELECT 1'),
    };
    this.revision = Math.max(this.stmts.maxRevision.get() ?? 0, this.stmts.meta.get('revision_floor') ?? 0, 1);
    this.compactRevision = this.stmts.meta.get('compact_revision') ?? 0;
    this.leases = new LeaseClock(db, (id) => this.endLease(id));
  }

  async get(key: string): Promise<KeyValue | null> {
    this.assertOpen();
    const row = this.stmts.latest.get(key);
    return row && !row.deleted ? toKv(row) : null;
  }

  async put(key: string, value: Buffer | string, opts?: PutOptions): Promise<{ revision: number }> {
    this.assertOpen();
    const buf = typeof value === 'string' ? Buffer.from(value) : value;
    const lease = opts?.lease ?? 0;
    const row = await this.grouped(() => {
      const prev = this.live(key);
      this.check(key, prev, opts?.expectedRevision);
      if (lease !== 0) this.leases.assertExists(lease);
      return this.append({
        key,
        deleted: 0,
        create_revision: prev ? prev.create_revision : this.revision + 1,
        prev_revision: prev?.revision ?? 0,
        version: prev ? prev.version + 1 : 1,
        lease,
        prev_lease: prev?.lease ?? 0,
        value: buf,
        old_value: prev?.value ?? null,
      });
    });
    return { revision: row!.revision };
  }

  async delete(key: string, opts?: DeleteOptions): Promise<{ deleted: boolean; revision: number }> {
    this.assertOpen();
    const row = await this.grouped(() => {
      const prev = this.live(key);
      this.check(key, prev, opts?.expectedRevision);
      return prev ? this.tombstone(prev) : null;
    });
    if (!row) return { deleted: false, revision: this.revision };
    return { deleted: true, revision: row.revision };
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    this.assertOpen();
    const at = opts.revision && opts.revision > 0 ? opts.revision : this.revision;
    this.checkReadable(at);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const rows = this.stmts.rangeAt.all(start, prefixEndString(prefix), at, at, limit > 0 ? limit + 1 : -1);
    const more = limit > 0 && rows.length > limit;
    return { kvs: (more ? rows.slice(0, limit) : rows).map(toKv), revision: at, more };
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async count(prefix: string): Promise<{ count: number; revision: number }> {
    this.assertOpen();
    return { count: this.stmts.count.get(prefix, prefixEndString(prefix))!, revision: this.revision };
  }

  watch(prefix: string, opts: WatchOptions = {}): StoreWatch {
    this.assertOpen();
    const after = opts.afterRevision ?? this.revision;
    const watcher: Watcher = {
      prefix,
      queue: new WatchQueue({
        afterRevision: after,
        maxBufferedEvents: opts.maxBufferedEvents,
        progressIntervalMs: opts.progressIntervalMs,
        // Delivery is synchronous on commit, so everything up to the current revision is already queued.
        requestProgress: () => watcher.queue.progress(this.revision),
        release: () => this.watchers.delete(watcher),
      }),
    };
    if (after + 1 < this.compactRevision) {
      watcher.queue.fail(new CompactedError(after + 1, this.compactRevision));
      return watcher.queue;
    }
    // Replay and registration happen in this same tick: no commit can fall between them.
    const end = prefixEndString(prefix);
    for (let from = after; from < this.revision && !watcher.queue.closed; ) {
      const rows = this.stmts.since.all(from, prefix, end, REPLAY_PAGE);
      if (rows.length === 0) break;
      watcher.queue.push(rows.map(toEvent));
      from = rows[rows.length - 1].revision;
    }
    if (!watcher.queue.closed) {
      this.watchers.add(watcher);
      watcher.queue.started(after);
    }
    return watcher.queue;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
    if (revision <= this.compactRevision) throw new CompactedError(revision, this.compactRevision);
    this.db.transaction(() => {
      this.stmts.compact.run({ revision });
      this.stmts.setMeta.run('compact_revision', revision);
    })();
    this.compactRevision = revision;
  }

  async grantLease(ttlSeconds: number): Promise<number> {
    this.assertOpen();
    return this.leases.grant(ttlSeconds);
  }

  async revokeLease(id: number): Promise<void> {
    this.assertOpen();
    this.leases.revoke(id);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.stmts.ping.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already accepted are committed (and answered) before the file closes.
    this.flush();
    this.closed = true;
    this.leases.stop();
    for (const w of [...this.watchers]) w.queue.fail(new Error('store closed'));
    this.db.close();
  }

  /** Ends an expired or revoked lease: its keys are deleted, each with its own revision and DELETE event. */
  private endLease(id: number) {
    const rows = this.write(() => {
      const out: Row[] = [];
      for (const key of this.leases.remove(id)) {
        const prev = this.live(key);
        if (prev) out.push(this.tombstone(prev));
      }
      return out;
    });
    this.committed(rows);
  }

  /** Queues a write for the next group commit; resolves with its row once the group is committed. */
  private grouped(apply: () => Row | null): Promise<Row | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ apply, resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      // After the I/O callbacks of this turn: requests that arrived together commit together.
      setImmediate(() => this.flush());
    });
  }

  /** Commits every queued write in one transaction, each in a savepoint of its own; then wakes watchers, then answers. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const outcomes: Array<{ row: Row | null } | { error: unknown }> = [];
    const before = this.revision;
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          const at = this.revision;
          try {
            outcomes.push({ row: this.db.transaction(w.apply)() });
          } catch (e) {
            // Its savepoint rolled back: the revisions it took are free again.
            this.revision = at;
            outcomes.push({ error: e });
          }
        }
      })();
    } catch (e) {
      this.revision = before;
      for (const w of batch) w.reject(e);
      return;
    }
    this.committed(outcomes.flatMap((o) => ('row' in o && o.row ? [o.row] : [])));
    batch.forEach((w, i) => {
      const o = outcomes[i];
      if ('error' in o) w.reject(o.error);
      else w.resolve(o.row);
    });
  }

  /** One write transaction; if it rolls back, the revision counter goes back to what the file holds. */
  private write<T>(fn: () => T): T {
    const before = this.revision;
    try {
      return this.db.transaction(fn)();
    } catch (e) {
      this.revision = before;
      throw e;
    }
  }

  private live(key: string): Row | undefined {
    const row = this.stmts.latest.get(key);
    return row && !row.deleted ? row : undefined;
  }

  private tombstone(prev: Row): Row {
    return this.append({
      key: prev.key,
      deleted: 1,
      create_revision: prev.create_revision,
      prev_revision: prev.revision,
      version: prev.version,
      lease: 0,
      prev_lease: prev.lease,
      value: null,
      old_value: prev.value,
    });
  }

  private append(fields: Omit<Row, 'revision'>): Row {
    const row: Row = { revision: this.revision + 1, ...fields };
    this.stmts.insert.run(row);
    this.revision = row.revision;
    return row;
  }

  /** After a commit: wake every watcher whose prefix covers a changed key. */
  private committed(rows: Row[]) {
    if (this.watchers.size === 0 || rows.length === 0) return;
    for (const w of this.watchers) {
      const events: StoreEvent[] = [];
      for (const r of rows) if (r.key.startsWith(w.prefix)) events.push(toEvent(r));
      if (events.length) w.queue.push(events);
    }
  }

  private check(key: string, existing: Row | undefined, expected: number | undefined) {
    if (expected === undefined) return;
    const actual = existing?.revision ?? 0;
    if (actual !== expected) throw new ConflictError(key, expected, actual);
  }

  private checkReadable(revision: number) {
    if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
    if (revision < this.compactRevision) throw new CompactedError(revision, this.compactRevision);
  }

  private assertOpen() {
    if (this.closed) throw new Error('closed');
  }
}
