// Flags and feature gates whose non-default values this agent cannot honour: refused at start (with the
// other start-up refusals, all at once) instead of being accepted without effect. Each row says what the
// setting would have to do and why it does not here; defaults are always accepted.
import type { FeatureGate } from '@cl/flags';
import type { CletConfiguration, CletFlags } from '../config/types';

const notHere = (setting: string, why: string) => `${setting} is not supported by this agent: ${why}`;
const isSet = (v: Record<string, unknown> | unknown[]) => (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
const goMap = (m: Record<string, string>) => `map[${Object.keys(m).sort().map((k) => `${k}:${m[k]}`).join(' ')}]`;

/** The refusals for flags (and their configuration fields), in the order of the flag table. */
export function checkInertSettings(kc: CletConfiguration, flags: CletFlags, defaults: CletConfiguration): string[] {
  const errs: string[] = [];
  const rows: Array<[boolean, string]> = [
    [flags.cloudProvider !== '', notHere(`--cloud-provider=${flags.cloudProvider}`, 'it has no cloud provider integration (no uninitialized taint, no cloud node name); leave it empty')],
    [kc.enableContentionProfiling, notHere('--contention-profiling', 'it serves no profiling endpoints to collect block profiles from; leave it false')],
    [kc.volumePluginDir !== defaults.volumePluginDir, notHere(`--volume-plugin-dir=${kc.volumePluginDir}`, 'it runs no FlexVolume plugins; leave the default')],
    [kc.volumeStatsAggPeriod !== defaults.volumeStatsAggPeriod, notHere(`--volume-stats-agg-period=${kc.volumeStatsAggPeriod}`, 'it does not aggregate volume usage on a period; leave the default')],
    [flags.experimentalMounterPath !== '', notHere(`--experimental-mounter-path=${flags.experimentalMounterPath}`, 'it mounts no volumes through a mounter binary; leave it empty')],
    // Upstream's none policy refuses options with these words.
    [isSet(kc.cpuManagerPolicyOptions) && kc.cpuManagerPolicy === 'none',
      `failed to initialize cpu manager: None policy: received unsupported options=${goMap(kc.cpuManagerPolicyOptions)}`],
    [kc.cpuManagerReconcilePeriod !== defaults.cpuManagerReconcilePeriod, notHere(`--cpu-manager-reconcile-period=${kc.cpuManagerReconcilePeriod}`, 'with the only CPU manager policy it runs (none) there is nothing to reconcile; leave the default')],
    [isSet(kc.topologyManagerPolicyOptions), notHere('--topology-manager-policy-options', 'with the only topology manager policy it runs (none) no option applies; leave them empty')],
    [kc.topologyManagerScope !== defaults.topologyManagerScope, notHere(`--topology-manager-scope=${kc.topologyManagerScope}`, 'with the only topology manager policy it runs (none) no scope applies; leave the default')],
    [kc.reservedSystemCPUs !== '', notHere(`--reserved-cpus=${kc.reservedSystemCPUs}`, 'it neither pins CPUs nor derives the reserved CPU count from a CPU list; use --system-reserved/--cl-reserved cpu=')],
    [isSet(kc.reservedMemory), notHere('--reserved-memory', 'it runs no memory manager Static policy to reserve NUMA memory for; leave it empty')],
    [isSet(kc.qosReserved), notHere('--qos-reserved', 'it does not reserve memory at the QoS cgroup level; leave it empty')],
    [flags.experimentalAllocatableIgnoreEviction, notHere('--experimental-allocatable-ignore-eviction', 'node allocatable always subtracts the hard eviction thresholds here; leave it false')],
    [kc.kernelMemcgNotification, notHere('--kernel-memcg-notification', 'the eviction manager polls memory usage and does not use memcg threshold notifications; leave it false')],
    [[kc.evictionHard, kc.evictionSoft].some((m) => m && 'allocatableMemory.available' in m),
      notHere('the eviction signal allocatableMemory.available', "its eviction manager does not measure the pods' memory against node allocatable; use memory.available")],
  ];
  for (const [refused, message] of rows) if (refused) errs.push(message);
  return errs;
}

/**
 * Gates whose value this agent's behaviour does not follow: its behaviour is fixed at the value listed, so
 * the other value is refused. Gates the node agent does not consult upstream either (API server,
 * scheduler, controller, proxy gates) are accepted as upstream accepts them.
 */
export const FIXED_GATES: Readonly<Record<string, { value: boolean; why: string }>> = {
  SidecarContainers: { value: true, why: 'restartable init containers always run as sidecars' },
  PodLifecycleSleepAction: { value: true, why: 'sleep lifecycle hooks always run' },
  PodReadyToStartContainersCondition: { value: true, why: 'the PodReadyToStartContainers condition is always reported' },
  InPlacePodVerticalScaling: { value: false, why: 'it does not resize running containers' },
  PodLevelResources: { value: false, why: 'it does not apply pod-level resources' },
  UserNamespacesSupport: { value: false, why: 'it does not run pods in user namespaces' },
  SupplementalGroupsPolicy: { value: false, why: 'it does not apply supplementalGroupsPolicy' },
  ImageVolume: { value: false, why: 'it does not mount images as volumes' },
  EventedPLEG: { value: false, why: 'it relists containers and does not consume CRI container events' },
  CletInUserNamespace: { value: false, why: 'it does not adapt to running in a user namespace' },
  CletCrashLoopBackOffMax: { value: false, why: 'its crash loop back-off maximum is fixed at 5m' },
  PodAndContainerStatsFromCRI: { value: false, why: 'its stats come from the cgroups, not the CRI stats calls' },
  DynamicResourceAllocation: { value: false, why: 'it prepares no dynamically allocated resources' },
  ResourceHealthStatus: { value: false, why: 'it reports no device health' },
  MemoryQoS: { value: false, why: 'it writes no memory.high/memory.min limits' },
  PodLifecycleSleepActionAllowZero: { value: false, why: 'a sleep hook of 0 seconds is refused as without the gate' },
  PodObservedGenerationTracking: { value: false, why: 'it does not report observedGeneration' },
  CletPodResourcesGet: { value: false, why: 'it serves no pod resources API' },
  CletPodResourcesDynamicResources: { value: false, why: 'it serves no pod resources API' },
};

export function checkFixedGates(gates: FeatureGate): string[] {
  const errs: string[] = [];
  for (const [name, { value, why }] of Object.entries(FIXED_GATES)) {
    if (gates.enabled(name) !== value) errs.push(`feature gate ${name}=${!value} is not supported by this agent: ${why}; leave it ${value}`);
  }
  return errs;
}
