// The embedded store: one SQLite file holding a log of revisions, the way k3s's kine keeps etcd's model in SQL.
// Every change is one row (its revision is the row id) carrying the key's create revision, the revision and value
// it replaced, and a deleted mark, so a key's state at any revision, a watch replay and an event's previous value
// all come from the same table. One process writes (the file's lock keeps it so), which lets watchers in this
// process be woken right after each commit instead of polling.
//
// Durability: an acknowledged write survives a crash of the machine, and so does anything anyone could have seen.
// Writes are committed in groups: the puts and deletes that arrive within one turn of the event loop share one
// transaction (a commit per write held the event loop for most of a busy server's time: bench/density). Each write
// is still checked and applied on its own (a savepoint each, so a conflict fails only that write), in arrival order.
// The commit itself only appends to the WAL (synchronous=NORMAL); the WAL is then fdatasync'ed on libuv's thread
// pool (fsyncs of groups committed meanwhile are shared), and only once that returned does the group become
// visible: `durable` moves to its last revision, which is the revision every read at "latest" and every new watch
// uses, then watchers get its events and its writers their answers. So the event loop serves other requests
// during the fsync, and nothing a reader, watcher or writer saw can be lost — as etcd shows only what its WAL
// holds on disk. A failed fsync fails the store (its writers get the error, later writes and the health ping too).
import type Database from 'better-sqlite3';
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
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

/** Revisions per compaction transaction (~15 ms of the event loop each here). */
const COMPACT_CHUNK = 2000;

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
  /** The newest revision on disk: what reads at "latest" and new watches see. Groups above it await their fsync. */
  private durable: number;
  /** Groups in commit order, each made visible after its fsync (and after the group before it). */
  private visible: Promise<void> = Promise.resolve();
  /** An fsync not started yet, shared by every group committed before it starts. */
  private nextSync: Promise<void> | null = null;
  private lastSync: Promise<void> = Promise.resolve();
  private walFd: number | null = null;
  private failure: Error | null = null;
  /**
   * Live keys under each prefix count() was asked about, as of `durable`. Counting from the file takes a scan of
   * the prefix's whole history with a subquery per row: ~2 s of the event loop for 250,000 events (bench/density,
   * 1,000 nodes), on every scrape of apiserver_storage_objects for a resource without a watch cache.
   */
  private readonly liveCounts = new Map<string, number>();

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = openStoreFile(file);
    const db = this.db;
    this.stmts = {
      latest: db.prepare<[string], Row>('SELECT * FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1'),
      latestAt: db.prepare<[string, number], Row>('SELECT * FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1'),
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
      count: db.prepare<[string, string, number, number], number>(
        `SELECT COUNT(*) FROM log l WHERE key >= ? AND key < ? AND revision <= ? AND deleted = 0
           AND NOT EXISTS (SELECT 1 FROM log newer WHERE newer.key = l.key AND newer.revision > l.revision AND newer.revision <= ?)`,
      ).pluck(),
      since: db.prepare<[number, number, string, string, number], Row>(
        'SELECT * FROM log WHERE revision > ? AND revision <= ? AND key >= ? AND key < ? ORDER BY revision LIMIT ?',
      ),
      maxRevision: db.prepare<[], number | null>('SELECT MAX(revision) FROM log').pluck(),
      meta: db.prepare<[string], number>('SELECT value FROM meta WHERE name = ?').pluck(),
      setMeta: db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
      // Compaction keeps every row from `revision` on (watch replay) and, before it, only each key's last live
      // row (reads at `revision`); superseded rows and tombstones go. One revision range at a time (see compact()).
      compactRange: db.prepare<{ from: number; to: number; revision: number }>(
        `DELETE FROM log WHERE revision >= @from AND revision < @to AND (deleted = 1 OR EXISTS
           (SELECT 1 FROM log newer WHERE newer.key = log.key AND newer.revision > log.revision AND newer.revision <= @revision))`,
      ),
      minRevision: db.prepare<[], number | null>('SELECT MIN(revision) FROM log').pluck(),
      ping: db.prepare('SELECT 1'),
    };
    this.revision = Math.max(this.stmts.maxRevision.get() ?? 0, this.stmts.meta.get('revision_floor') ?? 0, 1);
    this.durable = this.revision;
    this.compactRevision = this.stmts.meta.get('compact_revision') ?? 0;
    this.leases = new LeaseClock(db, (id) => this.endLease(id));
  }

  async get(key: string): Promise<KeyValue | null> {
    this.assertOpen();
    let row = this.stmts.latest.get(key);
    // Written by a group still waiting for its fsync: the key as of the last durable revision.
    if (row && row.revision > this.durable) row = this.stmts.latestAt.get(key, this.durable);
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
    if (!row) return { deleted: false, revision: this.durable };
    return { deleted: true, revision: row.revision };
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    this.assertOpen();
    const at = opts.revision && opts.revision > 0 ? opts.revision : this.durable;
    this.checkReadable(at);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const rows = this.stmts.rangeAt.all(start, prefixEndString(prefix), at, at, limit > 0 ? limit + 1 : -1);
    const more = limit > 0 && rows.length > limit;
    return { kvs: (more ? rows.slice(0, limit) : rows).map(toKv), revision: at, more };
  }

  async currentRevision(): Promise<number> {
    return this.durable;
  }

  async count(prefix: string): Promise<{ count: number; revision: number }> {
    this.assertOpen();
    const at = this.durable;
    let count = this.liveCounts.get(prefix);
    if (count === undefined) {
      // Counted once from the file (every row up to `at` has passed committed() already, so nothing is counted
      // twice); committed() keeps it from then on.
      count = this.stmts.count.get(prefix, prefixEndString(prefix), at, at)!;
      this.liveCounts.set(prefix, count);
    }
    return { count, revision: at };
  }

  watch(prefix: string, opts: WatchOptions = {}): StoreWatch {
    this.assertOpen();
    const after = opts.afterRevision ?? this.durable;
    const watcher: Watcher = {
      prefix,
      queue: new WatchQueue({
        afterRevision: after,
        maxBufferedEvents: opts.maxBufferedEvents,
        progressIntervalMs: opts.progressIntervalMs,
        // Delivery happens as each group turns durable, so everything up to `durable` is already queued.
        requestProgress: () => watcher.queue.progress(this.durable),
        release: () => this.watchers.delete(watcher),
      }),
    };
    if (after + 1 < this.compactRevision) {
      watcher.queue.fail(new CompactedError(after + 1, this.compactRevision));
      return watcher.queue;
    }
    // Replay (up to `durable`; later groups are delivered when their fsync returns) and registration happen in
    // this same tick: no group can turn durable between them.
    const end = prefixEndString(prefix);
    for (let from = after; from < this.durable && !watcher.queue.closed; ) {
      const rows = this.stmts.since.all(from, this.durable, prefix, end, REPLAY_PAGE);
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
    if (revision > this.durable) throw new FutureRevisionError(revision, this.durable);
    if (revision <= this.compactRevision) throw new CompactedError(revision, this.compactRevision);
    // Readers lose the history below `revision` at once; the rows go in ranges of COMPACT_CHUNK revisions, one
    // transaction per event-loop turn: a single statement over 200,000 revisions held the loop ~1.5 s (every
    // request in flight then, bench/density). Not fsynced on its own: a compaction lost to a crash (or cut short by
    // close) is only done again by the next one, which scans from the oldest row.
    this.db.transaction(() => this.stmts.setMeta.run('compact_revision', revision))();
    this.compactRevision = revision;
    for (let from = this.stmts.minRevision.get() ?? revision; from < revision; from += COMPACT_CHUNK) {
      const to = Math.min(from + COMPACT_CHUNK, revision);
      this.db.transaction(() => this.stmts.compactRange.run({ from, to, revision }))();
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return;
    }
  }

  async grantLease(ttlSeconds: number): Promise<number> {
    this.assertOpen();
    const id = this.leases.grant(ttlSeconds);
    await this.makeVisible(this.revision, []);
    return id;
  }

  async revokeLease(id: number): Promise<void> {
    this.assertOpen();
    // The lease's keys are deleted in a transaction of their own; answered once that is on disk (or its fsync's
    // failure reported), as grantLease.
    this.leases.revoke(id);
    await this.makeVisible(this.revision, []);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.stmts.ping.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes already accepted are committed, synced and answered before the file closes.
    this.flush();
    this.closed = true;
    this.leases.stop();
    await this.visible;
    for (const w of [...this.watchers]) w.queue.fail(new Error('store closed'));
    if (this.walFd !== null) closeSync(this.walFd);
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
    void this.makeVisible(this.revision, rows).catch(() => undefined);
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
    if (this.failure) {
      for (const w of batch) w.reject(this.failure);
      return;
    }
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
    const rows = outcomes.flatMap((o) => ('row' in o && o.row ? [o.row] : []));
    void this.makeVisible(this.revision, rows).then(
      () =>
        batch.forEach((w, i) => {
          const o = outcomes[i];
          if ('error' in o) w.reject(o.error);
          else w.resolve(o.row);
        }),
      (e) => {
        for (const w of batch) w.reject(e);
      },
    );
  }

  /**
   * Once the WAL is on disk up to `upTo` (and every group before is visible): reads and new watches see it, the
   * watchers get `rows`. Resolves then; rejects if the fsync failed.
   */
  private makeVisible(upTo: number, rows: Row[]): Promise<void> {
    const synced = this.file === ':memory:' ? Promise.resolve() : this.syncWal();
    const done = this.visible.then(() => synced).then(() => {
      this.durable = Math.max(this.durable, upTo);
      this.committed(rows);
    });
    this.visible = done.catch(() => undefined);
    return done;
  }

  /** fdatasync of the WAL, started after the one in flight: one fsync covers every group committed before it starts. */
  private syncWal(): Promise<void> {
    if (this.nextSync) return this.nextSync;
    const sync = this.lastSync.then(
      () =>
        new Promise<void>((resolve, reject) => {
          this.nextSync = null;
          if (this.failure) return reject(this.failure);
          // The WAL exists from the first commit on and, with the file's exclusive lock, stays the same file until
          // close (a checkpoint rewinds it in place).
          if (this.walFd === null) {
            try {
              this.walFd = openSync(`${this.file}-wal`, 'r');
            } catch (e) {
              // No WAL yet: nothing was ever written (a group whose writes all failed), so nothing to sync.
              if ((e as NodeJS.ErrnoException).code === 'ENOENT') return resolve();
              throw e;
            }
          }
          fdatasync(this.walFd, (e) => {
            if (!e) return resolve();
            // What the disk holds is unknown now: no further write is accepted.
            this.failure = new Error(`store file ${this.file}: fsync failed: ${e.message}`);
            reject(this.failure);
          });
        }),
    );
    this.nextSync = sync;
    this.lastSync = sync.catch(() => undefined);
    return sync;
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

  /** After a commit: keep the counted prefixes' live counts, and wake every watcher whose prefix covers a changed key. */
  private committed(rows: Row[]) {
    if (rows.length === 0) return;
    for (const [prefix, n] of this.liveCounts) {
      let delta = 0;
      // A key comes to life at version 1 (created, or created again after a delete) and leaves with its tombstone.
      for (const r of rows) if (r.key.startsWith(prefix)) delta += r.deleted ? -1 : r.version === 1 ? 1 : 0;
      if (delta !== 0) this.liveCounts.set(prefix, n + delta);
    }
    if (this.watchers.size === 0) return;
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
    if (revision > this.durable) throw new FutureRevisionError(revision, this.durable);
    if (revision < this.compactRevision) throw new CompactedError(revision, this.compactRevision);
  }

  private assertOpen() {
    if (this.closed) throw new Error('closed');
    if (this.failure) throw this.failure;
  }
}
