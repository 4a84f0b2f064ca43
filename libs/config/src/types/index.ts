export * from './meta';
export * from './authentication';
export * from './authorization';
export * from './egress';
export * from './tracing';
export * from './admission';
