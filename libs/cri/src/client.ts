import * as grpc from '@grpc/grpc-js';
import { serviceClientsFromJson, type ProtoJson } from './service-from-json';
import type {
  AuthConfig, Container, ContainerConfig, ContainerFilter, ContainerStats, ContainerStatus, ExecSyncResult, Image,
  ImageFsInfoResponse, ImageSpec, PodSandbox, PodSandboxConfig, PodSandboxFilter, PodSandboxStats, PodSandboxStatusResponse,
  StatusResponse, StreamOptions, VersionResponse,
} from './types';

/** The CRI version string the client announces in Version, as the kubelet does. */
export const CRI_CLIENT_API_VERSION = '0.1.0';
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface CriClientOptions {
  /** `unix:///path/to.sock` (the only scheme on Linux, as upstream). */
  runtimeEndpoint: string;
  /** Defaults to runtimeEndpoint. */
  imageEndpoint?: string;
  /** Deadline of every call except PullImage (upstream `--runtime-request-timeout`, default 2m). */
  timeoutMs?: number;
}

/** A failed CRI call, printed the way Go's gRPC status errors print. */
export class CriError extends Error {
  constructor(readonly method: string, readonly code: grpc.status, readonly details: string) {
    super(`rpc error: code = ${grpcCodeName(code)} desc = ${details}`);
    this.name = 'CriError';
  }
}

export function grpcCodeName(code: grpc.status): string {
  const name = grpc.status[code] ?? String(code);
  // Go spells the names in CamelCase (DEADLINE_EXCEEDED -> DeadlineExceeded).
  return name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());
}

/** Turns `unix:///run/x.sock` into a grpc-js target; anything else is refused with a clear message. */
export function endpointToTarget(endpoint: string): string {
  const m = /^unix:\/\/(\/.*)$/.exec(endpoint);
  if (m) return `unix://${m[1]}`;
  if (endpoint.startsWith('/')) return `unix://${endpoint}`; // upstream accepts a bare path with a deprecation warning
  const scheme = /^([a-z0-9+.-]+):\/\//i.exec(endpoint)?.[1];
  throw new Error(scheme
    ? `protocol "${scheme}" not supported`
    : `endpoint "${endpoint}" must be of the form unix:///path/to/socket`);
}

type Unary = (req: object, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;
type ServiceClient = grpc.Client & Record<string, Unary>;

let services: Record<'RuntimeService' | 'ImageService', grpc.ServiceClientConstructor> | undefined;
function serviceCtor(name: 'RuntimeService' | 'ImageService'): grpc.ServiceClientConstructor {
  if (!services) {
    // src/ and dist/ both sit one level below the library root, next to proto/ (the JSON is made from the
    // .proto by tools/proto-json.js; a test keeps the two equal). A require, so a bundler takes the file in.
    const json = require('../proto/cri-subset.json') as ProtoJson;
    // 64-bit integers as decimal strings and enums by name, every field present: the shapes in types.ts.
    const conversion = { longs: String, enums: String, defaults: true, arrays: true, objects: false, oneofs: false };
    const [RuntimeService, ImageService] = serviceClientsFromJson(json, ['runtime.v1.RuntimeService', 'runtime.v1.ImageService'], conversion);
    services = { RuntimeService, ImageService };
  }
  return services[name];
}

/**
 * A typed CRI v1 client: RuntimeService and ImageService over unix sockets. Each method is one RPC;
 * deadlines follow the kubelet (RunPodSandbox 2x the timeout, StopContainer its grace period plus the
 * timeout, PullImage none).
 */
export class CriClient {
  private readonly runtime: ServiceClient;
  private readonly image: ServiceClient;
  readonly timeoutMs: number;

  constructor(opts: CriClientOptions) {
    const channelOpts: grpc.ClientOptions = {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
      'grpc.default_authority': 'localhost',
    };
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    const runtimeTarget = endpointToTarget(opts.runtimeEndpoint);
    const imageTarget = endpointToTarget(opts.imageEndpoint || opts.runtimeEndpoint);
    this.runtime = new (serviceCtor('RuntimeService'))(runtimeTarget, grpc.credentials.createInsecure(), channelOpts) as ServiceClient;
    this.image = new (serviceCtor('ImageService'))(imageTarget, grpc.credentials.createInsecure(), channelOpts) as ServiceClient;
  }

  /** Creates a client and checks both services answer, with upstream's error wording. */
  static async connect(opts: CriClientOptions): Promise<CriClient> {
    const c = new CriClient(opts);
    try {
      await c.version();
    } catch (e) {
      c.close();
      throw new Error(`validate service connection: validate CRI v1 runtime API for endpoint "${opts.runtimeEndpoint}": ${(e as Error).message}`);
    }
    try {
      await c.imageFsInfo();
    } catch (e) {
      c.close();
      throw new Error(`validate service connection: validate CRI v1 image API for endpoint "${opts.imageEndpoint || opts.runtimeEndpoint}": ${(e as Error).message}`);
    }
    return c;
  }

  close(): void {
    this.runtime.close();
    this.image.close();
  }

  private call<T>(svc: ServiceClient, method: string, req: object, timeoutMs: number | null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const opts: grpc.CallOptions = timeoutMs === null ? {} : { deadline: Date.now() + timeoutMs };
      svc[method].call(svc, req, new grpc.Metadata(), opts, (err, res) => {
        if (err) reject(new CriError(method, err.code, err.details));
        else resolve(res as T);
      });
    });
  }

  // ---- RuntimeService ----

  /**
   * Runs a command to completion. `timeoutSeconds` 0 means no limit in the runtime; the call itself is then
   * bounded by the runtime request timeout, as the kubelet's remote runtime does.
   */
  async execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<ExecSyncResult> {
    const deadline = timeoutSeconds > 0 ? timeoutSeconds * 1000 + this.timeoutMs : this.timeoutMs;
    const r = await this.call<{ stdout: Buffer; stderr: Buffer; exitCode: number }>(this.runtime, 'ExecSync', { containerId, cmd, timeout: timeoutSeconds }, deadline);
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exitCode: r.exitCode };
  }

  /** The runtime's streaming URL for an exec session. */
  async exec(containerId: string, cmd: string[], o: StreamOptions): Promise<string> {
    return (await this.call<{ url: string }>(this.runtime, 'Exec', { containerId, cmd, ...o }, this.timeoutMs)).url;
  }

  async attach(containerId: string, o: StreamOptions): Promise<string> {
    return (await this.call<{ url: string }>(this.runtime, 'Attach', { containerId, ...o }, this.timeoutMs)).url;
  }

  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    return (await this.call<{ url: string }>(this.runtime, 'PortForward', { podSandboxId, port: ports }, this.timeoutMs)).url;
  }

  /** Writes a checkpoint archive of the container to `location`; `timeoutSeconds` 0 uses the call timeout. */
  async checkpointContainer(containerId: string, location: string, timeoutSeconds: number): Promise<void> {
    await this.call(this.runtime, 'CheckpointContainer', { containerId, location, timeout: timeoutSeconds }, timeoutSeconds > 0 ? timeoutSeconds * 1000 : this.timeoutMs);
  }

  async listContainerStats(): Promise<ContainerStats[]> {
    return (await this.call<{ stats: ContainerStats[] }>(this.runtime, 'ListContainerStats', {}, this.timeoutMs)).stats;
  }

  async listPodSandboxStats(): Promise<PodSandboxStats[]> {
    return (await this.call<{ stats: PodSandboxStats[] }>(this.runtime, 'ListPodSandboxStats', {}, this.timeoutMs)).stats;
  }

  version(): Promise<VersionResponse> {
    return this.call(this.runtime, 'Version', { version: CRI_CLIENT_API_VERSION }, this.timeoutMs);
  }

  /** Tells the runtime the node's pod CIDR (the kubelet's --pod-cidr in standalone mode). */
  async updateRuntimeConfig(podCidr: string): Promise<void> {
    await this.call(this.runtime, 'UpdateRuntimeConfig', { runtimeConfig: { networkConfig: { podCidr } } }, this.timeoutMs);
  }

  status(verbose = false): Promise<StatusResponse> {
    return this.call(this.runtime, 'Status', { verbose }, this.timeoutMs);
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const res = await this.call<{ podSandboxId: string }>(this.runtime, 'RunPodSandbox', { config, runtimeHandler }, 2 * this.timeoutMs);
    return res.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call(this.runtime, 'StopPodSandbox', { podSandboxId }, this.timeoutMs);
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call(this.runtime, 'RemovePodSandbox', { podSandboxId }, this.timeoutMs);
  }

  podSandboxStatus(podSandboxId: string, verbose = false): Promise<PodSandboxStatusResponse> {
    return this.call(this.runtime, 'PodSandboxStatus', { podSandboxId, verbose }, this.timeoutMs);
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const res = await this.call<{ items: PodSandbox[] }>(this.runtime, 'ListPodSandbox', filter ? { filter } : {}, this.timeoutMs);
    return res.items;
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const res = await this.call<{ containerId: string }>(this.runtime, 'CreateContainer', { podSandboxId, config, sandboxConfig }, this.timeoutMs);
    return res.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.call(this.runtime, 'StartContainer', { containerId }, this.timeoutMs);
  }

  /** `timeoutSeconds` is the grace period before the runtime kills the container. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call(this.runtime, 'StopContainer', { containerId, timeout: timeoutSeconds }, timeoutSeconds * 1000 + this.timeoutMs);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.call(this.runtime, 'RemoveContainer', { containerId }, this.timeoutMs);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const res = await this.call<{ containers: Container[] }>(this.runtime, 'ListContainers', filter ? { filter } : {}, this.timeoutMs);
    return res.containers;
  }

  async containerStatus(containerId: string, verbose = false): Promise<ContainerStatus> {
    const res = await this.call<{ status: ContainerStatus | null }>(this.runtime, 'ContainerStatus', { containerId, verbose }, this.timeoutMs);
    if (!res.status) throw new CriError('ContainerStatus', grpc.status.INTERNAL, `status of container "${containerId}" is missing`);
    return res.status;
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.call(this.runtime, 'ReopenContainerLog', { containerId }, this.timeoutMs);
  }

  // ---- ImageService ----

  async listImages(image?: ImageSpec): Promise<Image[]> {
    const res = await this.call<{ images: Image[] }>(this.image, 'ListImages', image ? { filter: { image } } : {}, this.timeoutMs);
    return res.images;
  }

  /** The image, or null when the runtime does not have it. */
  async imageStatus(image: ImageSpec): Promise<Image | null> {
    const res = await this.call<{ image: Image | null }>(this.image, 'ImageStatus', { image }, this.timeoutMs);
    return res.image && res.image.id ? res.image : null;
  }

  /** Pulls have no deadline (they can legitimately take long); returns the image reference. */
  async pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const res = await this.call<{ imageRef: string }>(this.image, 'PullImage', { image, auth, sandboxConfig }, null);
    return res.imageRef;
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.call(this.image, 'RemoveImage', { image }, this.timeoutMs);
  }

  imageFsInfo(): Promise<ImageFsInfoResponse> {
    return this.call(this.image, 'ImageFsInfo', {}, this.timeoutMs);
  }
}

/** Nanoseconds since the epoch (as the CRI reports them) to a Date; 0 or empty gives null. */
export function nanosToDate(ns: string | number): Date | null {
  const n = typeof ns === 'number' ? BigInt(Math.trunc(ns)) : BigInt(ns || '0');
  if (n <= 0n) return null;
  return new Date(Number(n / 1_000_000n));
}
