// Test support shared by the integration suites: real peers started on free loopback ports.
export { freePort, waitFor } from './ports';
export { startEtcd } from './etcd';
export type { EtcdServer } from './etcd';
export { startTinyproxy } from './tinyproxy';
export type { Tinyproxy } from './tinyproxy';
export { startSquid } from './squid';
export type { Squid } from './squid';
export { startCollector } from './otlp-collector';
export type { Collector, ReceivedSpan } from './otlp-collector';
export { KUBECTL } from './kubectl';
