export { parseDuration, formatDuration, DurationError } from './duration';
export { types, parseGoBool, parseGoInt, splitCsv } from './values';
export type { ValueType } from './values';
export { FlagSet, normalizeFlagName } from './flagset';
export type { FlagDefinition, ParseResult } from './flagset';
export { goQuote } from './quote';
