// One interface for the API server's backing store, with two implementations: an embedded SQLite file
// (no server to run) and etcd v3. Revisions are store-wide and increase on every change, as in etcd, so an
// optimistic-concurrency put ("only if the key is still at revision N"), a read at revision N and a watch
// from revision N mean the same thing on both.

export interface KeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  /** Number of writes since the key was (re)created. */
  version: number;
  /** The lease the key is attached to; 0 for none. */
  lease: number;
}

export interface PutOptions {
  /** Only write when the key's modRevision equals this; 0 means "only if the key does not exist". */
  expectedRevision?: number;
  /** Attach the key to this lease (from `grantLease`): the key is deleted when the lease expires. */
  lease?: number;
}

export interface DeleteOptions {
  /** Only delete when the key's modRevision equals this. */
  expectedRevision?: number;
}

export interface RangeOptions {
  /** At most this many keys (0 or absent: all). `more` tells whether keys were left out. */
  limit?: number;
  /** Read the keys as they were at this revision (a consistent snapshot for paging); absent: the newest. */
  revision?: number;
  /** Start at this key (inclusive) instead of the prefix itself; for paging, the key after the last one seen. */
  startKey?: string;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** The revision the keys were read at: pass it back as `revision` to read the next page of the same snapshot. */
  revision: number;
  more: boolean;
}

export interface StoreEvent {
  type: 'PUT' | 'DELETE';
  /** The key's new state; for a DELETE, an empty value at the deletion's revision. */
  kv: KeyValue;
  /** The key's state before this change; null when a PUT created it. */
  prevKv: KeyValue | null;
}

/**
 * What a watch yields: the events of one or more revisions in revision order, or (with no events) a progress
 * notification saying every change up to `revision` under the prefix was delivered.
 */
export interface WatchBatch {
  events: StoreEvent[];
  revision: number;
}

export interface WatchOptions {
  /** Deliver every change after this revision (history replay); absent: changes from now on. */
  afterRevision?: number;
  /** Emit a progress notification when nothing was delivered for this long (for BOOKMARKs); absent: never. */
  progressIntervalMs?: number;
  /** Events buffered for a consumer that does not read; past this the watch ends with WatchOverflowError. */
  maxBufferedEvents?: number;
}

/** A running watch. Iterate it; it throws CompactedError, WatchOverflowError or a backend error, and ends on close(). */
export interface StoreWatch extends AsyncIterable<WatchBatch> {
  /** Resolves, once the watch is established, with the revision it delivers changes after. */
  readonly ready: Promise<number>;
  /**
   * Ask for a progress notification as soon as everything up to the current revision is delivered. A store that
   * cannot vouch for the order of its answer does not ask (see `progressOnRequest`).
   */
  requestProgress(): void;
  /**
   * Resolves true when requestProgress() is answered, after every event up to the revision it names; false when
   * it is not: etcd before 3.4.31 and 3.5.13 answers a progress request at once, out of band, ahead of events still
   * queued and of the history a watch from a past revision is still to send (etcd-io/etcd#15220, #17507), so only
   * events and etcd's own periodic notifications move such a watch on. Absent: true.
   */
  readonly progressOnRequest?: Promise<boolean>;
  close(): void;
}

export interface Store {
  get(key: string): Promise<KeyValue | null>;
  /** Throws ConflictError when `expectedRevision` does not match. Returns the new store revision. */
  put(key: string, value: Buffer | string, opts?: PutOptions): Promise<{ revision: number }>;
  /** Throws ConflictError when `expectedRevision` does not match. */
  delete(key: string, opts?: DeleteOptions): Promise<{ deleted: boolean; revision: number }>;
  /** Keys starting with `prefix`, in key order. Throws CompactedError / FutureRevisionError for a bad `revision`. */
  range(prefix: string, opts?: RangeOptions): Promise<RangeResult>;
  /** The store's newest revision, read consistently (a cheap barrier for "at least as fresh as now" reads). */
  currentRevision(): Promise<number>;
  /** How many keys start with `prefix` now (for `apiserver_storage_objects`), and the revision counted at. */
  count(prefix: string): Promise<{ count: number; revision: number }>;
  /** Every change under `prefix`, in revision order. */
  watch(prefix: string, opts?: WatchOptions): StoreWatch;
  /** Forget the history before `revision`: reads and watches from before it then fail with CompactedError. */
  compact(revision: number): Promise<void>;
  /** A lease that expires `ttlSeconds` from now; keys put with it are deleted then (with DELETE events). */
  grantLease(ttlSeconds: number): Promise<number>;
  /** Ends a lease now, deleting its keys. */
  revokeLease(id: number): Promise<void>;
  /** Resolves when the store answers a read; rejects with the cause otherwise. */
  ping(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export class ConflictError extends Error {
  constructor(
    readonly key: string,
    readonly expectedRevision: number,
    readonly actualRevision: number,
  ) {
    super(`revision conflict on ${JSON.stringify(key)}: expected ${expectedRevision}, found ${actualRevision}`);
    this.name = 'ConflictError';
  }
}

/** A read or watch asked for history that compaction removed. The API layer answers 410 Gone. */
export class CompactedError extends Error {
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(`required revision ${requestedRevision} has been compacted (compacted revision ${compactedRevision})`);
    this.name = 'CompactedError';
  }
}

/** A read at a revision the store has not reached yet. */
export class FutureRevisionError extends Error {
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(`required revision ${requestedRevision} is a future revision (current revision ${currentRevision})`);
    this.name = 'FutureRevisionError';
  }
}

/** A watch consumer stopped reading and its buffer filled: the watch ends rather than grow without bound. */
export class WatchOverflowError extends Error {
  constructor(readonly limit: number) {
    super(`watch consumer fell behind: more than ${limit} events buffered`);
    this.name = 'WatchOverflowError';
  }
}

/** The smallest key greater than every key with this prefix (etcd's range_end for a prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // every key
}

/** A put named a lease that does not exist (never granted, expired or revoked). */
export class LeaseNotFoundError extends Error {
  constructor(readonly lease: number) {
    super(`requested lease not found: ${lease}`);
    this.name = 'LeaseNotFoundError';
  }
}
