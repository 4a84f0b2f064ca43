export { Logger } from './logger';
export type { LoggingOptions, LogSink, VModuleItem } from './logger';
export { formatValue, jsonLine, textLine } from './format';
export type { KeyValues, LogRecord, Severity } from './format';
