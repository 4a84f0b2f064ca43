// One interface for the API server's backing store, with two implementations: an embedded SQLite file
// (no server to run) and etcd v3. Revisions are store-wide and increase on every change, as in etcd, so an
// optimistic-concurrency put ("only if the key is still at revision N") means the same thing on both.

export interface KeyValue {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  /** Number of writes since the key was (re)created. */
  version: number;
}

export interface PutOptions {
  /** Only write when the key's modRevision equals this; 0 means "only if the key does not exist". */
  expectedRevision?: number;
}

export interface RangeOptions {
  limit?: number;
}

export interface Store {
  get(key: string): Promise<KeyValue | null>;
  /** Throws ConflictError when `expectedRevision` does not match. Returns the new store revision. */
  put(key: string, value: Buffer | string, opts?: PutOptions): Promise<{ revision: number }>;
  /** Throws ConflictError when `expectedRevision` does not match. */
  delete(key: string, opts?: PutOptions): Promise<{ deleted: boolean; revision: number }>;
  /** Every key starting with `prefix`, in key order. */
  range(prefix: string, opts?: RangeOptions): Promise<{ kvs: KeyValue[]; revision: number; more: boolean }>;
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
