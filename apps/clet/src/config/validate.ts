// ValidateKubeletConfiguration: every check runs, every message is kept, in upstream's order.
import { parseDuration, type FeatureGate } from '@cl/flags';
import { checkEvictionThresholds } from './eviction';
import { isQualifiedName, isValidLabelValue } from './labels';
import type { CletConfiguration } from './types';
import { parseByteSize } from '../log';

const P = 'invalid configuration: ';
const ms = (d: string) => parseDuration(d);
/** `%v` of a metav1.Duration prints the struct: `{100ms}`. */
const goDurationStruct = (d: string) => `{${d}}`;

const TOPOLOGY_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'];
const ENFORCE_OPTIONS = ['pods', 'system-reserved', 'cl-reserved', 'kube-reserved', 'none'];

export interface ValidationContext {
  /** The process-wide gates merged with the configuration's (checked by the caller). */
  gates: FeatureGate;
  /** Whether the host runs cgroup v1 (the --fail-cgroupv1 check belongs to this step upstream). */
  cgroupV1: boolean;
}

export function validateCletConfiguration(kc: CletConfiguration, ctx: ValidationContext): string[] {
  const errs: string[] = [];
  const add = (m: string) => errs.push(P + m);
  const gate = (n: string) => ctx.gates.enabled(n);

  if (kc.nodeLeaseDurationSeconds <= 0) add('nodeLeaseDurationSeconds must be greater than 0');
  if (kc.systemCgroups !== '' && kc.cgroupRoot === '') {
    add('systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  }
  if (kc.eventBurst < 0) add(`eventBurst (--event-burst) ${kc.eventBurst} must not be a negative number`);
  if (kc.eventRecordQPS < 0) add(`eventRecordQPS (--event-qps) ${kc.eventRecordQPS} must not be a negative number`);
  if (kc.healthzPort !== 0 && (kc.healthzPort < 1 || kc.healthzPort > 65535)) {
    add(`healthzPort (--healthz-port) ${kc.healthzPort} must be between 1 and 65535, inclusive`);
  }
  const period = ms(kc.cpuCFSQuotaPeriod);
  if (!gate('CustomCPUCFSQuotaPeriod') && period !== 100) {
    add(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${goDurationStruct(kc.cpuCFSQuotaPeriod)} requires feature gate CustomCPUCFSQuotaPeriod`);
  }
  if (gate('CustomCPUCFSQuotaPeriod') && (period < 1 || period > 1000)) {
    add(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${goDurationStruct(kc.cpuCFSQuotaPeriod)} must be between 1ms and 1sec, inclusive`);
  }
  const high = kc.imageGCHighThresholdPercent;
  const low = kc.imageGCLowThresholdPercent;
  if (high < 0 || high > 100) add(`imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  if (low < 0 || low > 100) add(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  if (low >= high) {
    add(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  }
  const maxAge = ms(kc.imageMaximumGCAge);
  const minAge = ms(kc.imageMinimumGCAge);
  if (maxAge !== 0 && !gate('ImageMaximumGCAge')) add('ImageMaximumGCAge feature gate is required for Clet configuration option imageMaximumGCAge');
  if (minAge < 0) add(`imageMinimumGCAge ${kc.imageMinimumGCAge} must not be negative`);
  if (maxAge < 0) add(`imageMaximumGCAge ${kc.imageMaximumGCAge} must not be negative`);
  if (maxAge > 0 && maxAge <= minAge) {
    add(`imageMaximumGCAge ${kc.imageMaximumGCAge} must be greater than imageMinimumGCAge ${kc.imageMinimumGCAge}`);
  }
  if (kc.iptablesDropBit < 0 || kc.iptablesDropBit > 31) add(`iptablesDropBit (--iptables-drop-bit) ${kc.iptablesDropBit} must be between 0 and 31, inclusive`);
  if (kc.iptablesMasqueradeBit < 0 || kc.iptablesMasqueradeBit > 31) {
    add(`iptablesMasqueradeBit (--iptables-masquerade-bit) ${kc.iptablesMasqueradeBit} must be between 0 and 31, inclusive`);
  }
  if (kc.kubeAPIBurst < 0) add(`kubeAPIBurst (--cl-api-burst) ${kc.kubeAPIBurst} must not be a negative number`);
  if (kc.kubeAPIQPS < 0) add(`kubeAPIQPS (--cl-api-qps) ${kc.kubeAPIQPS} must not be a negative number`);
  if (kc.nodeStatusMaxImages < -1) add(`nodeStatusMaxImages (--node-status-max-images) ${kc.nodeStatusMaxImages} must be -1 or greater`);
  if (kc.maxOpenFiles < 0) add(`maxOpenFiles (--max-open-files) ${kc.maxOpenFiles} must not be a negative number`);
  if (kc.maxPods < 0) add(`maxPods (--max-pods) ${kc.maxPods} must not be a negative number`);
  if (kc.oomScoreAdj < -1000 || kc.oomScoreAdj > 1000) add(`oomScoreAdj (--oom-score-adj) ${kc.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  if (kc.podsPerCore < 0) add(`podsPerCore (--pods-per-core) ${kc.podsPerCore} must not be a negative number`);
  if (kc.port < 1 || kc.port > 65535) add(`port (--port) ${kc.port} must be between 1 and 65535, inclusive`);
  if (kc.readOnlyPort !== 0 && (kc.readOnlyPort < 0 || kc.readOnlyPort > 65535)) {
    add(`readOnlyPort (--read-only-port) ${kc.readOnlyPort} must be between 0 and 65535, inclusive`);
  }
  if (kc.registryBurst < 0) add(`registryBurst (--registry-burst) ${kc.registryBurst} must not be a negative number`);
  if (kc.registryPullQPS < 0) add(`registryPullQPS (--registry-qps) ${kc.registryPullQPS} must not be a negative number`);
  if (kc.maxParallelImagePulls !== undefined) {
    if (kc.maxParallelImagePulls < 1) add(`maxParallelImagePulls ${kc.maxParallelImagePulls} must be a positive number`);
    if (kc.serializeImagePulls && kc.maxParallelImagePulls > 1) {
      add('maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false');
    }
  }
  if (kc.serverTLSBootstrap && !gate('RotateCletServerCertificate')) {
    add(`serverTLSBootstrap ${kc.serverTLSBootstrap} requires feature gate RotateCletServerCertificate`);
  }
  for (const t of kc.registerWithTaints) {
    const bad = [...isQualifiedName(t.key), ...isValidLabelValue(t.value ?? '')];
    if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) bad.push(`invalid taint effect: ${t.effect}`);
    if (bad.length > 0) errs.push(`invalid taint: ${JSON.stringify(t)}: ${bad.join('; ')}`);
  }
  if (!TOPOLOGY_POLICIES.includes(kc.topologyManagerPolicy)) {
    add(`topologyManagerPolicy (--topology-manager-policy) ${JSON.stringify(kc.topologyManagerPolicy)} must be one of: [${TOPOLOGY_POLICIES.map((p) => JSON.stringify(p)).join(' ')}]`);
  }
  if (kc.topologyManagerScope !== 'container' && kc.topologyManagerScope !== 'pod') {
    add(`topologyManagerScope (--topology-manager-scope) ${JSON.stringify(kc.topologyManagerScope)} must be one of: "container", or "pod"`);
  }
  const grace = ms(kc.shutdownGracePeriod);
  const graceCritical = ms(kc.shutdownGracePeriodCriticalPods);
  if (graceCritical > grace) {
    add(`shutdownGracePeriodCriticalPods ${kc.shutdownGracePeriodCriticalPods} must be <= shutdownGracePeriod ${kc.shutdownGracePeriod}`);
  }
  if (grace < 0 || (grace > 0 && grace < 1000)) add(`shutdownGracePeriod ${kc.shutdownGracePeriod} must be either zero or otherwise >= 1 sec`);
  if (graceCritical < 0 || (graceCritical > 0 && graceCritical < 1000)) {
    add(`shutdownGracePeriodCriticalPods ${kc.shutdownGracePeriodCriticalPods} must be either zero or otherwise >= 1 sec`);
  }
  if ((grace > 0 || graceCritical > 0) && !gate('GracefulNodeShutdown')) {
    add('specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown');
  }
  if (kc.shutdownGracePeriodByPodPriority.length > 0 && grace > 0) {
    add('Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time');
  }
  const swap = kc.memorySwap.swapBehavior ?? '';
  if (!['', 'LimitedSwap', 'NoSwap'].includes(swap)) add(`memorySwap.swapBehavior ${JSON.stringify(swap)} must be one of: "", "LimitedSwap" or "NoSwap"`);
  if (swap !== '' && !gate('NodeSwap')) add('memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled');

  const seen = new Set<string>();
  for (const v of kc.enforceNodeAllocatable) {
    if (seen.has(v)) add(`duplicated enforcements ${JSON.stringify(v)} in enforceNodeAllocatable (--enforce-node-allocatable)`);
    seen.add(v);
    if (!ENFORCE_OPTIONS.includes(v)) {
      add(`option ${JSON.stringify(v)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "cl-reserved" or "none"`);
      continue;
    }
    if (v === 'system-reserved' && kc.systemReservedCgroup === '') {
      add('systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" included in enforceNodeAllocatable (--enforce-node-allocatable)');
    }
    if ((v === 'cl-reserved' || v === 'kube-reserved') && kc.kubeReservedCgroup === '') {
      add(`kubeReservedCgroup (--cl-reserved-cgroup) must be specified when "${v}" included in enforceNodeAllocatable (--enforce-node-allocatable)`);
    }
    if (v === 'none' && kc.enforceNodeAllocatable.length > 1) {
      add('enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified');
    }
    if (v !== 'none' && !kc.cgroupsPerQOS) {
      add(`cgroupsPerQOS (--cgroups-per-qos) must be set to true when ${JSON.stringify(v)} contained in enforceNodeAllocatable (--enforce-node-allocatable)`);
    }
  }
  if (!['none', 'hairpin-veth', 'promiscuous-bridge'].includes(kc.hairpinMode)) {
    add(`option ${JSON.stringify(kc.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`);
  }
  if (kc.reservedSystemCPUs !== '') {
    if (kc.systemReservedCgroup !== '' || kc.kubeReservedCgroup !== '') {
      add('can\'t use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--cl-reserved-cgroup)');
    }
    const cpuErr = checkCpuSet(kc.reservedSystemCPUs);
    if (cpuErr) add(`unable to parse reservedSystemCPUs (--reserved-cpus) ${kc.reservedSystemCPUs}, error: ${cpuErr}`);
  }
  const eviction = checkEvictionThresholds(kc.evictionHard, kc.evictionSoft, kc.evictionSoftGracePeriod, kc.evictionMinimumReclaim);
  if (eviction) add(eviction);
  // Upstream finds unknown policies and drivers when it builds the container manager, with these words.
  if (!['none', 'static'].includes(kc.cpuManagerPolicy)) errs.push(`failed to initialize cpu manager: unknown policy: "${kc.cpuManagerPolicy}"`);
  if (!['None', 'Static'].includes(kc.memoryManagerPolicy)) errs.push(`failed to initialize memory manager: unknown policy: "${kc.memoryManagerPolicy}"`);
  if (!['Get', 'Cache', 'Watch'].includes(kc.configMapAndSecretChangeDetectionStrategy)) {
    errs.push(`unknown configmap and secret manager mode: ${kc.configMapAndSecretChangeDetectionStrategy}`);
  }
  if (!['cgroupfs', 'systemd'].includes(kc.cgroupDriver)) add(`cgroupDriver (--cgroup-driver) ${JSON.stringify(kc.cgroupDriver)} must be one of: "cgroupfs", "systemd"`);
  if (ctx.cgroupV1 && kc.failCgroupV1) {
    errs.push('clet is configured to not run on a host using cgroup v1. cgroup v1 support is in maintenance mode');
  }
  if (gate('MemoryQoS') && (kc.memoryThrottlingFactor <= 0 || kc.memoryThrottlingFactor > 1)) {
    add(`memoryThrottlingFactor ${kc.memoryThrottlingFactor} must be greater than 0 and less than or equal to 1.0`);
  }
  if (kc.containerRuntimeEndpoint === '') add('the containerRuntimeEndpoint was not specified or empty');
  if (kc.enableSystemLogQuery && !gate('NodeLogQuery')) add('NodeLogQuery feature gate is required for enableSystemLogQuery');
  if (kc.enableSystemLogQuery && !kc.enableSystemLogHandler) add('enableSystemLogHandler is required for enableSystemLogQuery');
  if (kc.containerLogMaxWorkers < 1) add('containerLogMaxWorkers must be greater than or equal to 1');
  if (ms(kc.containerLogMonitorInterval) < 3000) add('containerLogMonitorInterval must be a positive time duration greater than or equal to 3s');
  if (kc.containerLogMaxFiles <= 1) add('containerLogMaxFiles must be greater than 1');
  if (kc.podLogsDir === '') add('podLogsDir was not specified');
  else if (!kc.podLogsDir.startsWith('/')) add(`pod logs path ${JSON.stringify(kc.podLogsDir)} must be absolute path`);
  else if (normalisePath(kc.podLogsDir) !== kc.podLogsDir) add(`pod logs path ${JSON.stringify(kc.podLogsDir)} must be normalized`);
  return errs;
}

/** filepath.Clean for absolute paths. */
function normalisePath(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return '/' + out.join('/');
}

/** cpuset.Parse: `0-3,7`. */
function checkCpuSet(s: string): string | null {
  for (const r of s.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(r);
    if (!m) return `strconv.Atoi: parsing ${JSON.stringify(r)}: invalid syntax`;
    if (m[2] !== undefined && Number(m[2]) < Number(m[1])) return `invalid range: ${r}`;
  }
  return null;
}

/** The logging section (logsapi.ValidateAndApplyAsField): printed after `initialize logging: `. */
export function validateLogging(kc: CletConfiguration, gates: FeatureGate): string[] {
  const errs: string[] = [];
  const l = kc.logging;
  if (l.format !== 'text' && l.format !== 'json') {
    errs.push(`logging.format: Unsupported value: ${JSON.stringify(l.format)}: supported values: "json", "text"`);
  } else if (l.format === 'json' && !gates.enabled('LoggingBetaOptions')) {
    errs.push('logging.format: Forbidden: Log format json is BETA and disabled, see LoggingBetaOptions feature');
  }
  if (ms(l.flushFrequency) <= 0) errs.push(`logging.flushFrequency: Invalid value: "${l.flushFrequency}": must be positive`);
  if (l.verbosity < 0) errs.push(`logging.verbosity: Invalid value: ${l.verbosity}: must be >= 0`);
  if (l.vmodule?.length && l.format !== 'text') errs.push(`logging.vmodule: Forbidden: Only supported for text log format`);
  for (const fmt of ['json', 'text'] as const) {
    const o = l.options[fmt];
    if (!gates.enabled('LoggingAlphaOptions')) {
      if (o.splitStream) errs.push(`logging.options.${fmt}.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled`);
      if (o.infoBufferSize !== '0' && o.infoBufferSize !== '') {
        errs.push(`logging.options.${fmt}.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled`);
      }
    }
    try {
      parseByteSize(o.infoBufferSize || '0');
    } catch {
      errs.push(`logging.options.${fmt}.infoBufferSize: Invalid value: ${JSON.stringify(o.infoBufferSize)}: quantities must be a whole number of bytes (512, 1K, 2Ki, 3M, 5Mi)`);
    }
  }
  return errs;
}

/** utilerrors.NewAggregate's text: one error alone, several in brackets, duplicates removed. */
export function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
