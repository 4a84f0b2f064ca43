// Two sets of defaults, as upstream has them: the config-file (v1beta1) defaults applied to a loaded file,
// and the command-line defaults (the same plus four legacy overrides) used when no --config is given.
import type { CletConfiguration } from './types';

export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'imagefs.available': '15%',
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
};

/** v1beta1 SetDefaults_KubeletConfiguration on an empty document. */
export function fileDefaults(): CletConfiguration {
  return {
    enableServer: true,
    staticPodPath: '',
    podLogsDir: '/var/log/pods',
    syncFrequency: '1m0s',
    fileCheckFrequency: '20s',
    httpCheckFrequency: '20s',
    staticPodURL: '',
    staticPodURLHeader: {},
    address: '0.0.0.0',
    port: 10250,
    readOnlyPort: 0,
    volumePluginDir: '/usr/libexec/cl/clet-plugins/volume/exec/',
    providerID: '',
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    tlsCipherSuites: [],
    tlsMinVersion: '',
    rotateCertificates: false,
    serverTLSBootstrap: false,
    authentication: {
      x509: { clientCAFile: '' },
      webhook: { enabled: true, cacheTTL: '2m0s' },
      anonymous: { enabled: false },
    },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    registryPullQPS: 5,
    registryBurst: 10,
    eventRecordQPS: 50,
    eventBurst: 100,
    enableDebuggingHandlers: true,
    enableContentionProfiling: false,
    healthzPort: 10248,
    healthzBindAddress: '127.0.0.1',
    oomScoreAdj: -999,
    clusterDomain: '',
    clusterDNS: [],
    streamingConnectionIdleTimeout: '4h0m0s',
    nodeStatusUpdateFrequency: '10s',
    nodeStatusReportFrequency: '5m0s',
    nodeLeaseDurationSeconds: 40,
    imageMinimumGCAge: '2m0s',
    imageMaximumGCAge: '0s',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    volumeStatsAggPeriod: '1m0s',
    kubeletCgroups: '',
    systemCgroups: '',
    cgroupRoot: '',
    cgroupsPerQOS: true,
    cgroupDriver: 'cgroupfs',
    cpuManagerPolicy: 'none',
    cpuManagerPolicyOptions: {},
    cpuManagerReconcilePeriod: '10s',
    memoryManagerPolicy: 'None',
    topologyManagerPolicy: 'none',
    topologyManagerScope: 'container',
    topologyManagerPolicyOptions: {},
    qosReserved: {},
    runtimeRequestTimeout: '2m0s',
    hairpinMode: 'promiscuous-bridge',
    maxPods: 110,
    podCIDR: '',
    podPidsLimit: -1,
    resolvConf: '/etc/resolv.conf',
    runOnce: false,
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    nodeStatusMaxImages: 50,
    maxOpenFiles: 1000000,
    contentType: 'application/vnd.cl.protobuf',
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    serializeImagePulls: true,
    evictionHard: { ...DEFAULT_EVICTION_HARD },
    evictionSoft: {},
    evictionSoftGracePeriod: {},
    evictionPressureTransitionPeriod: '5m0s',
    evictionMaxPodGracePeriod: 0,
    evictionMinimumReclaim: {},
    mergeDefaultEvictionSettings: false,
    podsPerCore: 0,
    enableControllerAttachDetach: true,
    protectKernelDefaults: false,
    makeIPTablesUtilChains: true,
    iptablesMasqueradeBit: 14,
    iptablesDropBit: 15,
    featureGates: {},
    failSwapOn: true,
    // The spec makes refusing cgroup v1 the default (upstream 1.33 still defaulted to false).
    failCgroupV1: true,
    memorySwap: {},
    containerLogMaxSize: '10Mi',
    containerLogMaxFiles: 5,
    containerLogMaxWorkers: 1,
    containerLogMonitorInterval: '10s',
    configMapAndSecretChangeDetectionStrategy: 'Watch',
    systemReserved: {},
    kubeReserved: {},
    reservedSystemCPUs: '',
    showHiddenMetricsForVersion: '',
    systemReservedCgroup: '',
    kubeReservedCgroup: '',
    enforceNodeAllocatable: ['pods'],
    allowedUnsafeSysctls: [],
    kernelMemcgNotification: false,
    logging: {
      format: 'text',
      flushFrequency: '5s',
      verbosity: 0,
      options: { json: { infoBufferSize: '0' }, text: { infoBufferSize: '0' } },
    },
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    shutdownGracePeriodByPodPriority: [],
    reservedMemory: [],
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    seccompDefault: false,
    memoryThrottlingFactor: 0.9,
    registerWithTaints: [],
    registerNode: true,
    localStorageCapacityIsolation: true,
    containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
    imageServiceEndpoint: '',
  };
}

/** NewKubeletConfiguration: what the flags default to. */
export function flagDefaults(): CletConfiguration {
  const c = fileDefaults();
  c.authentication.anonymous.enabled = true;
  c.authentication.webhook.enabled = false;
  c.authorization.mode = 'AlwaysAllow';
  c.readOnlyPort = 10255;
  return c;
}

// v1beta1 value (non-pointer) fields: a zero value in a file is replaced by the default. Every other field
// is a pointer upstream and keeps an explicit zero (`healthzPort: 0` disables the health server).
const DEFAULTED_WHEN_ZERO = new Set([
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'address',
  'port',
  'authentication.webhook.cacheTTL',
  'authorization.mode',
  'authorization.webhook.cacheAuthorizedTTL',
  'authorization.webhook.cacheUnauthorizedTTL',
  'registryBurst',
  'eventBurst',
  'healthzBindAddress',
  'streamingConnectionIdleTimeout',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'nodeLeaseDurationSeconds',
  'imageMinimumGCAge',
  'volumeStatsAggPeriod',
  'cgroupDriver',
  'cpuManagerPolicy',
  'cpuManagerReconcilePeriod',
  'memoryManagerPolicy',
  'topologyManagerPolicy',
  'topologyManagerScope',
  'runtimeRequestTimeout',
  'hairpinMode',
  'maxPods',
  'maxOpenFiles',
  'contentType',
  'kubeAPIBurst',
  'evictionPressureTransitionPeriod',
  'containerLogMaxSize',
  'containerLogMonitorInterval',
  'configMapAndSecretChangeDetectionStrategy',
  'volumePluginDir',
  'containerRuntimeEndpoint',
  'podLogsDir',
  'logging.format',
  'logging.flushFrequency',
  'logging.options.json.infoBufferSize',
  'logging.options.text.infoBufferSize',
  'evictionHard',
]);

const isZero = (v: unknown) =>
  v === undefined ||
  v === '' ||
  v === 0 ||
  v === '0s' ||
  (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/**
 * Applies the v1beta1 defaults to a decoded (schema-checked) document: absent fields get their default,
 * value fields holding a zero get it too, explicit zeros of pointer fields stay.
 */
export function applyFileDefaults(doc: Record<string, unknown>): CletConfiguration {
  const defaults = fileDefaults() as unknown as Record<string, unknown>;
  const merge = (d: Record<string, unknown>, v: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...v };
    for (const [k, dv] of Object.entries(d)) {
      const path = prefix ? `${prefix}.${k}` : k;
      const cur = v[k];
      const isStruct = dv !== null && typeof dv === 'object' && !Array.isArray(dv) && STRUCT_PATHS.has(path);
      if (isStruct) out[k] = merge(dv as Record<string, unknown>, (cur as Record<string, unknown>) ?? {}, path);
      else if (cur === undefined || (DEFAULTED_WHEN_ZERO.has(path) && isZero(cur))) out[k] = structuredClone(dv);
    }
    return out;
  };
  const c = merge(defaults, doc, '') as unknown as CletConfiguration;
  delete (c as unknown as Record<string, unknown>).apiVersion;
  delete (c as unknown as Record<string, unknown>).kind;
  if (doc.nodeStatusReportFrequency === undefined && doc.nodeStatusUpdateFrequency !== undefined) {
    c.nodeStatusReportFrequency = c.nodeStatusUpdateFrequency;
  }
  if (c.podPidsLimit < 0) c.podPidsLimit = -1;
  if (doc.serializeImagePulls === undefined && (c.maxParallelImagePulls ?? 0) >= 2) c.serializeImagePulls = false;
  if (c.mergeDefaultEvictionSettings) c.evictionHard = { ...DEFAULT_EVICTION_HARD, ...c.evictionHard };
  return c;
}

const STRUCT_PATHS = new Set([
  'authentication',
  'authentication.x509',
  'authentication.webhook',
  'authentication.anonymous',
  'authorization',
  'authorization.webhook',
  'logging',
  'logging.options',
  'logging.options.json',
  'logging.options.text',
  'memorySwap',
]);
