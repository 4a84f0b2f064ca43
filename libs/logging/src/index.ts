export { Logger } from './logger';
export type { LoggingOptions, LogSink, VModuleItem } from './logger';
export { formatValue, jsonLine, klogHeader, textLine } from './format';
export type { KeyValues, LogRecord, Severity } from './format';
