// @cl/node: a node of the cluster for a runtime of your own (the node agent's is containerd through CRI).
export { NodeAgent, CONFIG_SOURCE_ANNOTATION } from './node-agent';
export type { NodeAgentOptions, PodRuntimeHost, EventSinkLike } from './node-agent';
export type { NodeFacts } from './node-status';
export { NodeStatusReporter, statusDiffers, statusPatch } from './node-status';
export { nodeConditions, OWN_CONDITION_TYPES } from './node-conditions';
export type { NodeHealth, ConditionChange } from './node-conditions';
export { registrationNode, reconcileExisting, goArch, wellKnownLabels } from './node-object';
export type { RegistrationOptions } from './node-object';
export { NodeLease, NODE_LEASE_NAMESPACE } from './node-lease';
export { PodStatusManager, contains as statusContains } from './pod-status-manager';
export { MirrorPods, mirrorPodOf, isMirrorPod, ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_HASH } from './mirror-pods';
export type * from './types';
export { statusCode } from './types';
