export { SelectorError } from './errors';
export {
  parseLabelSelector,
  labelSelectorFromMeta,
  requirementMatches,
  requirementToString,
  everythingLabelSelector,
  nothingLabelSelector,
} from './label-selector';
export type {
  LabelSelector,
  Requirement,
  Operator,
  MetaLabelSelector,
  MetaLabelSelectorRequirement,
} from './label-selector';
export { parseFieldSelector, escapeFieldValue, unescapeFieldValue, everythingFieldSelector } from './field-selector';
export type { FieldSelector, FieldRequirement } from './field-selector';
