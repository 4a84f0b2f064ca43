// The shape of a KubeletConfiguration document, used to decode files the way Go's json decoder does:
// wrong types are errors naming the Go field, unknown fields are reported separately (strict decoding).
import { formatDuration as formatGo, parseDuration } from '@cl/flags';

export type Kind =
  | 'int32'
  | 'int64'
  | 'float64'
  | 'bool'
  | 'string'
  | 'duration'
  | 'stringList'
  | 'stringMap'
  | 'stringListMap'
  | 'boolMap'
  | { struct: string; fields: Record<string, Kind> }
  | { list: Kind; goType: string };

const taint: Kind = { struct: 'Taint', fields: { key: 'string', value: 'string', effect: 'string', timeAdded: 'string' } };
const reservedMemory: Kind = { struct: 'MemoryReservation', fields: { numaNode: 'int32', limits: 'stringMap' } };
const shutdownByPriority: Kind = {
  struct: 'ShutdownGracePeriodByPodPriority',
  fields: { priority: 'int32', shutdownGracePeriodSeconds: 'int64' },
};
const vmodule: Kind = { struct: 'VModuleItem', fields: { filePattern: 'string', verbosity: 'int32' } };
const streamOptions = (name: string): Kind => ({
  struct: name,
  fields: { infoBufferSize: 'string', splitStream: 'bool' },
});

export const KUBELET_CONFIGURATION: Kind = {
  struct: 'KubeletConfiguration',
  fields: {
    apiVersion: 'string',
    kind: 'string',
    enableServer: 'bool',
    staticPodPath: 'string',
    podLogsDir: 'string',
    syncFrequency: 'duration',
    fileCheckFrequency: 'duration',
    httpCheckFrequency: 'duration',
    staticPodURL: 'string',
    staticPodURLHeader: 'stringListMap',
    address: 'string',
    port: 'int32',
    readOnlyPort: 'int32',
    volumePluginDir: 'string',
    providerID: 'string',
    tlsCertFile: 'string',
    tlsPrivateKeyFile: 'string',
    tlsCipherSuites: 'stringList',
    tlsMinVersion: 'string',
    rotateCertificates: 'bool',
    serverTLSBootstrap: 'bool',
    authentication: {
      struct: 'KubeletAuthentication',
      fields: {
        x509: { struct: 'KubeletX509Authentication', fields: { clientCAFile: 'string' } },
        webhook: { struct: 'KubeletWebhookAuthentication', fields: { enabled: 'bool', cacheTTL: 'duration' } },
        anonymous: { struct: 'KubeletAnonymousAuthentication', fields: { enabled: 'bool' } },
      },
    },
    authorization: {
      struct: 'KubeletAuthorization',
      fields: {
        mode: 'string',
        webhook: {
          struct: 'KubeletWebhookAuthorization',
          fields: { cacheAuthorizedTTL: 'duration', cacheUnauthorizedTTL: 'duration' },
        },
      },
    },
    registryPullQPS: 'int32',
    registryBurst: 'int32',
    eventRecordQPS: 'int32',
    eventBurst: 'int32',
    enableDebuggingHandlers: 'bool',
    enableContentionProfiling: 'bool',
    healthzPort: 'int32',
    healthzBindAddress: 'string',
    oomScoreAdj: 'int32',
    clusterDomain: 'string',
    clusterDNS: 'stringList',
    streamingConnectionIdleTimeout: 'duration',
    nodeStatusUpdateFrequency: 'duration',
    nodeStatusReportFrequency: 'duration',
    nodeLeaseDurationSeconds: 'int32',
    imageMinimumGCAge: 'duration',
    imageMaximumGCAge: 'duration',
    imageGCHighThresholdPercent: 'int32',
    imageGCLowThresholdPercent: 'int32',
    volumeStatsAggPeriod: 'duration',
    kubeletCgroups: 'string',
    systemCgroups: 'string',
    cgroupRoot: 'string',
    cgroupsPerQOS: 'bool',
    cgroupDriver: 'string',
    cpuManagerPolicy: 'string',
    cpuManagerPolicyOptions: 'stringMap',
    cpuManagerReconcilePeriod: 'duration',
    memoryManagerPolicy: 'string',
    topologyManagerPolicy: 'string',
    topologyManagerScope: 'string',
    topologyManagerPolicyOptions: 'stringMap',
    qosReserved: 'stringMap',
    runtimeRequestTimeout: 'duration',
    hairpinMode: 'string',
    maxPods: 'int32',
    podCIDR: 'string',
    podPidsLimit: 'int64',
    resolvConf: 'string',
    runOnce: 'bool',
    cpuCFSQuota: 'bool',
    cpuCFSQuotaPeriod: 'duration',
    nodeStatusMaxImages: 'int32',
    maxOpenFiles: 'int64',
    contentType: 'string',
    kubeAPIQPS: 'int32',
    kubeAPIBurst: 'int32',
    serializeImagePulls: 'bool',
    maxParallelImagePulls: 'int32',
    evictionHard: 'stringMap',
    evictionSoft: 'stringMap',
    evictionSoftGracePeriod: 'stringMap',
    evictionPressureTransitionPeriod: 'duration',
    evictionMaxPodGracePeriod: 'int32',
    evictionMinimumReclaim: 'stringMap',
    mergeDefaultEvictionSettings: 'bool',
    podsPerCore: 'int32',
    enableControllerAttachDetach: 'bool',
    protectKernelDefaults: 'bool',
    makeIPTablesUtilChains: 'bool',
    iptablesMasqueradeBit: 'int32',
    iptablesDropBit: 'int32',
    featureGates: 'boolMap',
    failSwapOn: 'bool',
    failCgroupV1: 'bool',
    memorySwap: { struct: 'MemorySwapConfiguration', fields: { swapBehavior: 'string' } },
    containerLogMaxSize: 'string',
    containerLogMaxFiles: 'int32',
    containerLogMaxWorkers: 'int32',
    containerLogMonitorInterval: 'duration',
    configMapAndSecretChangeDetectionStrategy: 'string',
    systemReserved: 'stringMap',
    kubeReserved: 'stringMap',
    reservedSystemCPUs: 'string',
    showHiddenMetricsForVersion: 'string',
    systemReservedCgroup: 'string',
    kubeReservedCgroup: 'string',
    enforceNodeAllocatable: 'stringList',
    allowedUnsafeSysctls: 'stringList',
    kernelMemcgNotification: 'bool',
    logging: {
      struct: 'LoggingConfiguration',
      fields: {
        format: 'string',
        flushFrequency: 'duration',
        verbosity: 'int32',
        vmodule: { list: vmodule, goType: '[]VModuleItem' },
        options: {
          struct: 'FormatOptions',
          fields: { json: streamOptions('JSONOptions'), text: streamOptions('TextOptions') },
        },
      },
    },
    enableSystemLogHandler: 'bool',
    enableSystemLogQuery: 'bool',
    shutdownGracePeriod: 'duration',
    shutdownGracePeriodCriticalPods: 'duration',
    shutdownGracePeriodByPodPriority: { list: shutdownByPriority, goType: '[]ShutdownGracePeriodByPodPriority' },
    reservedMemory: { list: reservedMemory, goType: '[]MemoryReservation' },
    enableProfilingHandler: 'bool',
    enableDebugFlagsHandler: 'bool',
    seccompDefault: 'bool',
    memoryThrottlingFactor: 'float64',
    registerWithTaints: { list: taint, goType: '[]Taint' },
    registerNode: 'bool',
    localStorageCapacityIsolation: 'bool',
    containerRuntimeEndpoint: 'string',
    imageServiceEndpoint: 'string',
  },
};

export interface DecodeOutcome {
  value: Record<string, unknown>;
  /** Go json type errors: fatal. */
  typeErrors: string[];
  /** Unknown fields (strict decoding): fatal only for strict kinds. */
  unknownFields: string[];
}

const INT_RANGE: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/**
 * Checks a decoded document against the schema, normalises Go durations (`60s` -> `1m0s`), drops unknown
 * fields (recording them) and nulls (absent, as Go leaves them zero).
 */
export function decodeWithSchema(doc: Record<string, unknown>): DecodeOutcome {
  const typeErrors: string[] = [];
  const unknownFields: string[] = [];
  const walk = (v: unknown, kind: Kind, goPath: string, path: string): unknown => {
    const typeError = (goType: string) =>
      typeErrors.push(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${goPath} of type ${goType}`);
    if (typeof kind === 'object' && 'struct' in kind) {
      if (jsonKind(v) !== 'object') return typeError(`v1beta1.${kind.struct}`);
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const field = kind.fields[k];
        if (!field) {
          unknownFields.push(path ? `${path}.${k}` : k);
          continue;
        }
        if (child === null) continue;
        const r = walk(child, field, `${goPath}.${k}`, path ? `${path}.${k}` : k);
        if (r !== undefined) out[k] = r;
      }
      return out;
    }
    if (typeof kind === 'object') {
      if (jsonKind(v) !== 'array') return typeError(kind.goType);
      return (v as unknown[]).map((x, i) => walk(x, kind.list, goPath, `${path}[${i}]`));
    }
    switch (kind) {
      case 'int32':
      case 'int64': {
        const [min, max] = INT_RANGE[kind];
        if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
          return typeError(kind);
        }
        return v;
      }
      case 'float64':
        return typeof v === 'number' ? v : typeError('float64');
      case 'bool':
        return typeof v === 'boolean' ? v : typeError('bool');
      case 'string':
        return typeof v === 'string' ? v : typeError('string');
      case 'duration':
        if (typeof v !== 'string') return typeError('v1.Duration');
        try {
          return normaliseDuration(v);
        } catch (e) {
          typeErrors.push((e as Error).message);
          return undefined;
        }
      case 'stringList':
        if (jsonKind(v) !== 'array' || (v as unknown[]).some((x) => typeof x !== 'string')) return typeError('[]string');
        return v;
      case 'stringMap':
        if (jsonKind(v) !== 'object' || Object.values(v as object).some((x) => typeof x !== 'string')) {
          return typeError('map[string]string');
        }
        return v;
      case 'boolMap':
        if (jsonKind(v) !== 'object' || Object.values(v as object).some((x) => typeof x !== 'boolean')) {
          return typeError('map[string]bool');
        }
        return v;
      case 'stringListMap':
        if (
          jsonKind(v) !== 'object' ||
          Object.values(v as object).some((x) => !Array.isArray(x) || x.some((y) => typeof y !== 'string'))
        ) {
          return typeError('http.Header');
        }
        return v;
    }
  };
  const value = walk(doc, KUBELET_CONFIGURATION, 'KubeletConfiguration', '') as Record<string, unknown> | undefined;
  return { value: value ?? {}, typeErrors, unknownFields };
}

/** A Go duration as Go prints it back (`60s` -> `1m0s`); throws Go's parse error. */
export function normaliseDuration(text: string): string {
  return formatGo(parseDuration(text));
}

