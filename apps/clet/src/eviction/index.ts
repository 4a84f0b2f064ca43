// Node-pressure eviction (kubelet's eviction manager): thresholds, observations, ranking, messages, the manager.
export { EvictionManager, DEFAULT_MONITORING_PERIOD_MS, HARD_EVICTION_GRACE_SECONDS } from './eviction-manager';
export type { EvictionManagerOptions, EvictionRequest, NodePressure } from './eviction-manager';
export { parseThresholds, thresholdQuantity } from './thresholds';
export type { Threshold, EvictionSettings } from './thresholds';
export { hostMeasurements, observe, SIGNALS } from './signals';
export type { Measurements, Signal } from './signals';
export { podUsages } from './pod-usage';
export { evictionMessage, admissionMessage, EVICTED_REASON } from './messages';
export { rankPods, isCriticalPod } from './ranking';
