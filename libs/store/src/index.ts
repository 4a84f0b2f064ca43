export { ConflictError, prefixEnd } from './store';
export type { Store, KeyValue, PutOptions, RangeOptions } from './store';
export { SqliteStore } from './sqlite-store';
export { EtcdStore } from './etcd-store';
export type { EtcdStoreOptions } from './etcd-store';
export { storeHealthCheck } from './health';
export type { StoreHealthCheckOptions } from './health';
export { openStore } from './open';
export type { OpenStoreOptions } from './open';
