// The CRI calls the debugging and stats handlers need and @cl/cri's subset does not carry: ExecSync
// (/run), Exec/Attach/PortForward (streaming URLs for /exec, /attach, /portForward) and the stats lists
// (/stats/summary, /metrics/resource, /metrics/cadvisor). The messages are declared here as a protobuf
// JSON descriptor (field names and numbers of runtime.v1), so no .proto file has to travel with dist/.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CriError, endpointToTarget } from '@cl/cri';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated'; keyType?: string }>;
const f = (type: string, id: number, rule?: 'repeated'): Fields[string] => (rule ? { type, id, rule } : { type, id });
const map = (id: number): Fields[string] => ({ type: 'string', keyType: 'string', id });

const MESSAGES: Record<string, { fields: Fields }> = {
  ExecSyncRequest: { fields: { container_id: f('string', 1), cmd: f('string', 2, 'repeated'), timeout: f('int64', 3) } },
  ExecSyncResponse: { fields: { stdout: f('bytes', 1), stderr: f('bytes', 2), exit_code: f('int32', 3) } },
  ExecRequest: {
    fields: { container_id: f('string', 1), cmd: f('string', 2, 'repeated'), tty: f('bool', 3), stdin: f('bool', 4), stdout: f('bool', 5), stderr: f('bool', 6) },
  },
  ExecResponse: { fields: { url: f('string', 1) } },
  AttachRequest: { fields: { container_id: f('string', 1), stdin: f('bool', 2), tty: f('bool', 3), stdout: f('bool', 4), stderr: f('bool', 5) } },
  AttachResponse: { fields: { url: f('string', 1) } },
  PortForwardRequest: { fields: { pod_sandbox_id: f('string', 1), port: f('int32', 2, 'repeated') } },
  PortForwardResponse: { fields: { url: f('string', 1) } },
  UInt64Value: { fields: { value: f('uint64', 1) } },
  ContainerMetadata: { fields: { name: f('string', 1), attempt: f('uint32', 2) } },
  PodSandboxMetadata: { fields: { name: f('string', 1), uid: f('string', 2), namespace: f('string', 3), attempt: f('uint32', 4) } },
  ContainerAttributes: { fields: { id: f('string', 1), metadata: f('ContainerMetadata', 2), labels: map(3), annotations: map(4) } },
  PodSandboxAttributes: { fields: { id: f('string', 1), metadata: f('PodSandboxMetadata', 2), labels: map(3), annotations: map(4) } },
  CpuUsage: { fields: { timestamp: f('int64', 1), usage_core_nano_seconds: f('UInt64Value', 2), usage_nano_cores: f('UInt64Value', 3) } },
  MemoryUsage: {
    fields: {
      timestamp: f('int64', 1),
      working_set_bytes: f('UInt64Value', 2),
      available_bytes: f('UInt64Value', 3),
      usage_bytes: f('UInt64Value', 4),
      rss_bytes: f('UInt64Value', 5),
      page_faults: f('UInt64Value', 6),
      major_page_faults: f('UInt64Value', 7),
    },
  },
  SwapUsage: { fields: { timestamp: f('int64', 1), swap_available_bytes: f('UInt64Value', 2), swap_usage_bytes: f('UInt64Value', 3) } },
  FilesystemIdentifier: { fields: { mountpoint: f('string', 1) } },
  FilesystemUsage: { fields: { timestamp: f('int64', 1), fs_id: f('FilesystemIdentifier', 2), used_bytes: f('UInt64Value', 3), inodes_used: f('UInt64Value', 4) } },
  ContainerStats: {
    fields: { attributes: f('ContainerAttributes', 1), cpu: f('CpuUsage', 2), memory: f('MemoryUsage', 3), writable_layer: f('FilesystemUsage', 4), swap: f('SwapUsage', 5) },
  },
  ContainerStatsFilter: { fields: { id: f('string', 1), pod_sandbox_id: f('string', 2), label_selector: map(3) } },
  ListContainerStatsRequest: { fields: { filter: f('ContainerStatsFilter', 1) } },
  ListContainerStatsResponse: { fields: { stats: f('ContainerStats', 1, 'repeated') } },
  NetworkInterfaceUsage: {
    fields: { name: f('string', 1), rx_bytes: f('UInt64Value', 2), rx_errors: f('UInt64Value', 3), tx_bytes: f('UInt64Value', 4), tx_errors: f('UInt64Value', 5) },
  },
  NetworkUsage: { fields: { timestamp: f('int64', 1), default_interface: f('NetworkInterfaceUsage', 2), interfaces: f('NetworkInterfaceUsage', 3, 'repeated') } },
  ProcessUsage: { fields: { timestamp: f('int64', 1), process_count: f('UInt64Value', 2) } },
  LinuxPodSandboxStats: {
    fields: { cpu: f('CpuUsage', 1), memory: f('MemoryUsage', 2), network: f('NetworkUsage', 3), process: f('ProcessUsage', 4), containers: f('ContainerStats', 5, 'repeated') },
  },
  PodSandboxStats: { fields: { attributes: f('PodSandboxAttributes', 1), linux: f('LinuxPodSandboxStats', 2) } },
  PodSandboxStatsFilter: { fields: { id: f('string', 1), label_selector: map(2) } },
  ListPodSandboxStatsRequest: { fields: { filter: f('PodSandboxStatsFilter', 1) } },
  ListPodSandboxStatsResponse: { fields: { stats: f('PodSandboxStats', 1, 'repeated') } },
  CheckpointContainerRequest: { fields: { container_id: f('string', 1), location: f('string', 2), timeout: f('int64', 3) } },
  CheckpointContainerResponse: { fields: {} },
};

const METHODS = {
  ExecSync: ['ExecSyncRequest', 'ExecSyncResponse'],
  Exec: ['ExecRequest', 'ExecResponse'],
  Attach: ['AttachRequest', 'AttachResponse'],
  PortForward: ['PortForwardRequest', 'PortForwardResponse'],
  ListContainerStats: ['ListContainerStatsRequest', 'ListContainerStatsResponse'],
  ListPodSandboxStats: ['ListPodSandboxStatsRequest', 'ListPodSandboxStatsResponse'],
  CheckpointContainer: ['CheckpointContainerRequest', 'CheckpointContainerResponse'],
} as const;

// ---- shapes as proto-loader hands them over (lowerCamelCase, 64-bit integers as decimal strings) ----
export interface UInt64 { value: string }
export interface CpuUsage { timestamp: string; usageCoreNanoSeconds: UInt64 | null; usageNanoCores: UInt64 | null }
export interface MemoryUsage {
  timestamp: string; workingSetBytes: UInt64 | null; availableBytes: UInt64 | null; usageBytes: UInt64 | null;
  rssBytes: UInt64 | null; pageFaults: UInt64 | null; majorPageFaults: UInt64 | null;
}
export interface SwapUsage { timestamp: string; swapAvailableBytes: UInt64 | null; swapUsageBytes: UInt64 | null }
export interface FilesystemUsage { timestamp: string; fsId: { mountpoint: string } | null; usedBytes: UInt64 | null; inodesUsed: UInt64 | null }
export interface ContainerStats {
  attributes: { id: string; metadata: { name: string; attempt: number } | null; labels: Record<string, string>; annotations: Record<string, string> } | null;
  cpu: CpuUsage | null; memory: MemoryUsage | null; writableLayer: FilesystemUsage | null; swap: SwapUsage | null;
}
export interface NetworkInterfaceUsage { name: string; rxBytes: UInt64 | null; rxErrors: UInt64 | null; txBytes: UInt64 | null; txErrors: UInt64 | null }
export interface PodSandboxStats {
  attributes: { id: string; metadata: { name: string; uid: string; namespace: string; attempt: number } | null; labels: Record<string, string> } | null;
  linux: {
    cpu: CpuUsage | null; memory: MemoryUsage | null;
    network: { timestamp: string; defaultInterface: NetworkInterfaceUsage | null; interfaces: NetworkInterfaceUsage[] } | null;
    process: { timestamp: string; processCount: UInt64 | null } | null;
    containers: ContainerStats[];
  } | null;
}
export interface ExecSyncResult { stdout: Buffer; stderr: Buffer; exitCode: number }
export interface StreamOptions { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }

type Unary = (req: object, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

let ctor: grpc.ServiceClientConstructor | undefined;
function serviceConstructor(): grpc.ServiceClientConstructor {
  if (!ctor) {
    const methods = Object.fromEntries(Object.entries(METHODS).map(([name, [requestType, responseType]]) => [name, { requestType, responseType, comment: '' }]));
    // fromJSON keeps field names as given; the wire only uses the numbers, so use the loader's camelCase.
    const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    const messages = Object.fromEntries(
      Object.entries(MESSAGES).map(([name, m]) => [name, { fields: Object.fromEntries(Object.entries(m.fields).map(([k, v]) => [camel(k), v])) }]),
    );
    const def = protoLoader.fromJSON(
      { nested: { runtime: { nested: { v1: { nested: { ...messages, RuntimeService: { methods } } } } } } },
      { keepCase: false, longs: String, enums: String, defaults: true, arrays: true, objects: false, oneofs: false },
    );
    const pkg = grpc.loadPackageDefinition(def) as unknown as { runtime: { v1: { RuntimeService: grpc.ServiceClientConstructor } } };
    ctor = pkg.runtime.v1.RuntimeService;
  }
  return ctor;
}

/** The runtime service calls behind the debugging and stats endpoints. */
export class CriDebugClient {
  private readonly client: grpc.Client & Record<string, Unary>;

  constructor(endpoint: string, private readonly timeoutMs: number) {
    this.client = new (serviceConstructor())(endpointToTarget(endpoint), grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 16 * 1024 * 1024,
      'grpc.default_authority': 'localhost',
    }) as grpc.Client & Record<string, Unary>;
  }

  close(): void {
    this.client.close();
  }

  private call<T>(method: keyof typeof METHODS, req: object, timeoutMs: number | null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const opts: grpc.CallOptions = timeoutMs === null ? {} : { deadline: Date.now() + timeoutMs };
      this.client[method].call(this.client, req, new grpc.Metadata(), opts, (err, res) => {
        if (err) reject(new CriError(method, err.code, err.details));
        else resolve(res as T);
      });
    });
  }

  /**
   * Runs a command to completion. `timeoutSeconds` 0 means no limit in the runtime; the call itself is
   * then bounded by the runtime request timeout, as the kubelet's remote runtime does.
   */
  async execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<ExecSyncResult> {
    const deadline = timeoutSeconds > 0 ? timeoutSeconds * 1000 + this.timeoutMs : this.timeoutMs;
    const r = await this.call<{ stdout: Buffer; stderr: Buffer; exitCode: number }>('ExecSync', { containerId, cmd, timeout: timeoutSeconds }, deadline);
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exitCode: r.exitCode };
  }

  async exec(containerId: string, cmd: string[], o: StreamOptions): Promise<string> {
    return (await this.call<{ url: string }>('Exec', { containerId, cmd, ...o }, this.timeoutMs)).url;
  }

  async attach(containerId: string, o: StreamOptions): Promise<string> {
    return (await this.call<{ url: string }>('Attach', { containerId, ...o }, this.timeoutMs)).url;
  }

  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    return (await this.call<{ url: string }>('PortForward', { podSandboxId, port: ports }, this.timeoutMs)).url;
  }

  /** Writes a checkpoint archive of the container to `location`; `timeoutSeconds` 0 uses the call timeout. */
  async checkpointContainer(containerId: string, location: string, timeoutSeconds: number): Promise<void> {
    await this.call('CheckpointContainer', { containerId, location, timeout: timeoutSeconds }, timeoutSeconds > 0 ? timeoutSeconds * 1000 : this.timeoutMs);
  }

  async listContainerStats(): Promise<ContainerStats[]> {
    return (await this.call<{ stats: ContainerStats[] }>('ListContainerStats', {}, this.timeoutMs)).stats;
  }

  async listPodSandboxStats(): Promise<PodSandboxStats[]> {
    return (await this.call<{ stats: PodSandboxStats[] }>('ListPodSandboxStats', {}, this.timeoutMs)).stats;
  }
}
