// Test support shared by the integration suites: real peers started on free loopback ports.
export { freePort, waitFor } from './ports';
export { startEtcd } from './etcd';
export type { EtcdServer } from './etcd';
export { KUBECTL } from './kubectl';
