// Leases of the embedded store: rows with an expiry time in the store file (so they outlive a restart) and one
// timer for the earliest expiry. When a lease ends the store removes it and, in the same transaction, deletes
// the keys whose current state is attached to it as ordinary changes (new revisions, DELETE events).
import { randomInt } from 'node:crypto';
import type Database from 'better-sqlite3';
import { LeaseNotFoundError } from './store';

export class LeaseClock {
  private timer: NodeJS.Timeout | null = null;
  private readonly stmts;

  constructor(
    db: Database.Database,
    private readonly endLease: (id: number) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.stmts = {
      insert: db.prepare('INSERT INTO leases (id, ttl, expires_at) VALUES (?, ?, ?)'),
      exists: db.prepare<[number], number>('SELECT 1 FROM leases WHERE id = ?').pluck(),
      remove: db.prepare('DELETE FROM leases WHERE id = ?'),
      expired: db.prepare<[number], number>('SELECT id FROM leases WHERE expires_at <= ?').pluck(),
      next: db.prepare<[], number | null>('SELECT MIN(expires_at) FROM leases').pluck(),
      keys: db.prepare<[number], string>(
        `SELECT key FROM log l WHERE lease = ? AND deleted = 0
           AND revision = (SELECT MAX(revision) FROM log newer WHERE newer.key = l.key)`,
      ).pluck(),
    };
    this.schedule();
  }

  grant(ttlSeconds: number): number {
    if (!(ttlSeconds > 0)) throw new Error(`lease TTL must be positive, got ${ttlSeconds}`);
    // Random ids (as etcd's) so an id from an ended lease is not handed out again to a new one.
    const id = randomInt(1, 2 ** 48);
    this.stmts.insert.run(id, ttlSeconds, this.now() + ttlSeconds * 1000);
    this.schedule();
    return id;
  }

  assertExists(id: number): void {
    if (!this.stmts.exists.get(id)) throw new LeaseNotFoundError(id);
  }

  revoke(id: number): void {
    this.assertExists(id);
    this.endLease(id);
    this.schedule();
  }

  /** For the store's transaction that ends a lease: the keys attached to it now, and the lease row removed. */
  remove(id: number): string[] {
    const keys = this.stmts.keys.all(id);
    this.stmts.remove.run(id);
    return keys;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private sweep() {
    this.timer = null;
    for (const id of this.stmts.expired.all(this.now())) this.endLease(id);
    this.schedule();
  }

  private schedule() {
    if (this.timer) clearTimeout(this.timer);
    const next = this.stmts.next.get();
    if (next === null || next === undefined) {
      this.timer = null;
      return;
    }
    // setTimeout's delay is a 32-bit millisecond count; a farther expiry re-arms when this one fires.
    this.timer = setTimeout(() => this.sweep(), Math.min(Math.max(next - this.now(), 0), 2 ** 31 - 1));
    this.timer.unref();
  }
}
