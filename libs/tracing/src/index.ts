export { createTracing } from './tracing';
export type { Tracing, TracingOptions, StartSpanOptions, ServerSpanOptions } from './tracing';
export { createSampler, GoTraceIdRatioSampler, ratioBound } from './sampler';
export { collectorTarget } from './endpoint';
export type { CollectorTarget } from './endpoint';
export { serverSpanName, isTracingTrusted, httpServerAttributes } from './http-server';
export type { RequestInfoLike } from './http-server';
export { apiServerID } from './instance-id';
