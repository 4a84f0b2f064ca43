export { defineKind, apiVersionOf, definitionName, STANDARD_VERBS } from './kind';
export type { KindDefinition, KindInput } from './kind';
export * as schema from './schema';
export { labelSelector, objectMeta } from './schema';
export { decode, parseFieldValidation, DecodeError } from './decode';
export { decodeProtobuf, PROTOBUF_CONTENT_TYPE } from './protobuf';
export type { Decoded, FieldValidation } from './decode';
export { duplicateFields } from './duplicate-fields';
export { patchStrategyAt } from './patch-strategy';
export { patchShapeError, goPrint } from './patch-shape';
export type { ListPatchStrategy } from './patch-strategy';
export { openApiV3, openApiV2 } from './openapi';
export { openApiV2Protobuf, OPENAPI_V2_PROTOBUF } from './openapi-v2-protobuf';
export type { SubresourceDocument } from './openapi';
export { namespace, configMap, secret, serviceAccount, event, NAMESPACE_FINALIZER } from './kinds/core-v1';
export { lease } from './kinds/coordination-v1';
export { eventV1 } from './kinds/events-v1';
export { pod, podSpec, container } from './kinds/pod-v1';
export type { Pod, PodSpec, Container } from './kinds/pod-v1';
export { node } from './kinds/node-v1';
export { priorityClass } from './kinds/scheduling-v1';
export { limitRange, resourceQuota } from './kinds/quota-v1';
export type { LimitRange, LimitRangeItem, ResourceQuota } from './kinds/quota-v1';
export { deployment, replicaSet, podTemplateSpec, setPodTemplateDefaults } from './kinds/apps-v1';
export type { Deployment, ReplicaSet, PodTemplateSpec } from './kinds/apps-v1';
export { scale } from './kinds/autoscaling-v1';
export type { Scale } from './kinds/autoscaling-v1';
export type { CsrCondition } from './kinds/certificates-v1';
export { role, clusterRole, roleBinding, clusterRoleBinding } from './kinds/rbac-v1';
export { ALL_KINDS } from './kinds/all';
export { qosClass, type QOSClass } from './quota/qos';
export { resourceTotals, addInto, podResourceTotals, type ResourceTotals } from './quota/pod-resources';
export * from './quota/resource-names';
export {
  evaluatorFor,
  podEvaluator,
  podCountsForCompute,
  podMatchesScope,
  objectCountName,
  quotaUsage,
  quotaMatches,
  quotaScopes,
  checkCreate,
  toResourceList,
  prettyPrint,
  QuotaRefusal,
  type QuotaEvaluator,
  type QuotaObject,
  type ScopeRequirement,
} from './quota/quota-evaluation';
