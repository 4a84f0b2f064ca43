// @cl/scheduler: a pod scheduler with kube-scheduler's default filters, resource scores, binding, events and
// messages, as a library that an API server process (or any Node service) runs.
export { Scheduler, DEFAULT_SCHEDULER_NAME, type SchedulerOptions, type SchedulerLog } from './scheduler';
export { SchedulingQueue, QUEUE_DEFAULTS, type SchedulingQueueOptions, type QueuedPodInfo } from './scheduling-queue';
export { schedulePod, type ScheduleResult, type ScheduleOptions } from './schedule-pod';
export { nodeInfoFor, type NodeInfo } from './node-info';
export { HostPorts, hostPortsOf } from './host-ports';
export { podRequests, resourcesOf, amountsOf, DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST, type Resources, type Amounts, type PodRequestOptions } from './resources';
export { fitErrorMessage, truncateMessage, NO_NODES_AVAILABLE_MESSAGE } from './failure-message';
export { preemptionDryRun, PREEMPTION_NOT_HELPFUL, NO_PREEMPTION_VICTIMS, type PreemptionOutcome } from './preemption';
export { DEFAULT_FILTERS, runFilters, type FilterPlugin, type NodeStatus } from './filters';
export { nodeUnschedulable, NODE_UNSCHEDULABLE_REASON } from './filters/node-unschedulable';
export { taintToleration } from './filters/taint-toleration';
export { nodeAffinity, nodeSelectorTermsMatch, podMatchesNodeSelectorAndAffinity, NODE_AFFINITY_REASON } from './filters/node-affinity';
export { nodePorts, NODE_PORTS_REASON } from './filters/node-ports';
export { nodeResourcesFit, insufficientResources, TOO_MANY_PODS_REASON } from './filters/node-resources-fit';
export { toleratesTaint, firstUntoleratedTaint } from './filters/tolerations';
export { DEFAULT_SCORES, scoreNode, type ScorePlugin } from './scores';
export { leastAllocatedScore, leastRequestedScore } from './scores/least-allocated';
export { balancedAllocationScore, balancedResourceScore } from './scores/balanced-allocation';
export { MAX_NODE_SCORE, DEFAULT_SCORED_RESOURCES, type ScoredResource } from './scores/resource-scores';
export type { Pod, Node, Taint, Toleration, NodeSelectorTerm, NodeSelectorRequirement, Container, ContainerPort, ResourceList, NodeCondition, PodCondition } from './types';
