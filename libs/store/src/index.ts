export { ConflictError, CompactedError, FutureRevisionError, LeaseNotFoundError, WatchOverflowError, prefixEnd } from './store';
export type {
  Store,
  KeyValue,
  PutOptions,
  DeleteOptions,
  RangeOptions,
  RangeResult,
  StoreEvent,
  StoreWatch,
  WatchBatch,
  WatchOptions,
} from './store';
export { SqliteStore } from './sqlite-store';
export { BoundedQueue } from './bounded-queue';
export { StoreFileError } from './sqlite-schema';
export { EtcdStore } from './etcd-store';
export type { EtcdStoreOptions } from './etcd-store';
export { storeHealthCheck } from './health';
export type { StoreHealthCheckOptions } from './health';
export { openStore } from './open';
export type { OpenStoreOptions } from './open';
export { startCompactor, COMPACT_REVISION_KEY } from './compactor';
export type { Compactor, CompactorOptions } from './compactor';
export { LeaseManager } from './lease-manager';
export type { LeaseManagerOptions } from './lease-manager';
