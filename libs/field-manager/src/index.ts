export { FieldSet, formatPath, comparePathKeys, fieldKey, keyKey, valueKey, indexKey, type PathKey } from './field-set';
export { shapeOf, type Schema, type Shape } from './shape';
export { toFieldSet, compare, merge, removeFields, withNamedFieldsAsMembers, MergeError, type Comparison } from './typed';
export {
  decodeManagedFields,
  encodeManagedFields,
  capUpdateManagers,
  identity,
  isReset,
  ManagedFieldsError,
  MAX_UPDATE_MANAGERS,
  ANCIENT_CHANGES,
  type ManagedFieldsEntry,
  type Managed,
  type Operation,
  type Writer,
} from './managed-fields';
export { ApplyConflictError, describeManager, type Conflict } from './conflicts';
export { FieldManager, InvalidApplyError, LAST_APPLIED_ANNOTATION, type FieldManagerOptions } from './field-manager';
export { managerFromUserAgent, validateFieldManager } from './manager-name';
