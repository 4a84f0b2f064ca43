export { parseDuration, formatDuration, DurationError } from './duration';
export {
  types,
  parseGoBool,
  parseGoInt,
  splitCsv,
  ipType,
  levelType,
  configurationMap,
  langleSeparatedMap,
  noSplitMap,
  colonSeparatedMultimap,
  featureGateMap,
} from './values';
export type { ValueType } from './values';
export { FlagSet, normalizeFlagName } from './flagset';
export type { FlagDefinition, ParseResult, UsageOptions } from './flagset';
export { FeatureGate, ALL_ALPHA_GATE, ALL_BETA_GATE } from './featuregate';
export type { FeatureSpec, FeatureStage } from './featuregate';
export { goQuote } from './quote';
