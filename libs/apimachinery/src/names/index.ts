export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1035Label,
  isQualifiedName,
  isValidLabelValue,
  isConfigMapKey,
  isValidPathSegmentName,
  maskTrailingDash,
  nameIsDNSSubdomain,
  nameIsDNSLabel,
  nameIsDNS1035Label,
  validateNamespaceName,
  maxLenError,
  regexError,
  emptyError,
  LABEL_VALUE_MAX_LENGTH,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  DNS1035_LABEL_MAX_LENGTH,
} from './validation';
export type { NameValidator } from './validation';
export {
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateLabels,
  validateLabelName,
  validateAnnotations,
  validateOwnerReferences,
  validateFinalizers,
  validateFinalizerName,
  FIELD_IMMUTABLE_ERROR_MSG,
  IS_NEGATIVE_ERROR_MSG,
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
  FINALIZER_ORPHAN_DEPENDENTS,
  FINALIZER_DELETE_DEPENDENTS,
} from './object-meta';
export type { ObjectMetaValidationOptions } from './object-meta';
export {
  generateName,
  randomSuffix,
  NAME_SUFFIX_ALPHABET,
  MAX_NAME_LENGTH,
  RANDOM_SUFFIX_LENGTH,
  MAX_GENERATED_NAME_BASE_LENGTH,
} from './generate';
export type { RandomIndex } from './generate';
