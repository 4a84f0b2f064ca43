export { HealthChecks, HEALTH_ENDPOINTS, send, notFound } from './handler';
export type { HealthEndpoint, HealthChecksOptions, AddOptions } from './handler';
export { pingCheck, logCheck, BootStep, ShutdownCheck } from './checks';
export type { HealthCheck } from './checks';
export { healthSliMetrics } from './metrics';
export type { HealthResultSink } from './metrics';
export { parseGoQuery, splitTarget } from './query';
export { goQuote } from '@cl/flags';
