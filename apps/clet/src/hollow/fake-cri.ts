// The runtime of a hollow node: the CRI calls the agent's pod runtime makes, answered from memory (kubemark's fake
// remote runtime). Sandboxes get an address from a private range and are ready at once; images are always
// present; containers run from StartContainer until StopContainer, and nothing executes. Everything above the CRI
// (the pod runtime, statuses, the sync loop, the node library) is the real agent's code, which is what a hollow
// node is for: load on the API server as real nodes make it, without containers.
import type {
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStatus,
  CriClient,
  ExecSyncResult,
  Image,
  ImageFsInfoResponse,
  ImageSpec,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatusResponse,
  StatusResponse,
  VersionResponse,
} from '@cl/cri';
import { CriError } from '@cl/cri';

const NOT_FOUND = 5;
const nowNanos = () => `${BigInt(Date.now()) * 1_000_000n}`;
const matches = (labels: Record<string, string>, selector: Record<string, string> | undefined) => !selector || Object.entries(selector).every(([k, v]) => labels[k] === v);

interface SandboxRecord {
  sandbox: PodSandbox;
  ip: string;
}

export class FakeCri {
  private readonly sandboxes = new Map<string, SandboxRecord>();
  private readonly containers = new Map<string, { container: Container; status: ContainerStatus }>();
  private next = 0;

  /** `subnet`: the first three octets of the pod addresses this node hands out ("10.64.3"). */
  constructor(private readonly subnet: string) {}

  /** How many containers run now (the hollow node's own metric). */
  get runningContainers(): number {
    let n = 0;
    for (const c of this.containers.values()) if (c.status.state === 'CONTAINER_RUNNING') n++;
    return n;
  }

  private id(): string {
    return (++this.next).toString(16).padStart(16, '0') + Math.random().toString(16).slice(2, 10);
  }

  private notFound(method: string, what: string): never {
    throw new CriError(method, NOT_FOUND, `an error occurred when try to find ${what}: not found`);
  }

  // ---- runtime ----

  async version(): Promise<VersionResponse> {
    return { version: '0.1.0', runtimeName: 'hollow', runtimeVersion: '0.1.0', runtimeApiVersion: 'v1' };
  }

  async status(): Promise<StatusResponse> {
    return { status: { conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: true, reason: '', message: '' }] }, info: {} };
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    const id = this.id();
    const host = (this.sandboxes.size % 250) + 2;
    this.sandboxes.set(id, {
      sandbox: { id, metadata: config.metadata, state: 'SANDBOX_READY', createdAt: nowNanos(), labels: config.labels ?? {}, annotations: config.annotations ?? {}, runtimeHandler: '' },
      ip: `${this.subnet}.${host}`,
    });
    return id;
  }

  async stopPodSandbox(id: string): Promise<void> {
    const s = this.sandboxes.get(id);
    if (!s) return;
    s.sandbox = { ...s.sandbox, state: 'SANDBOX_NOTREADY' };
    for (const c of this.containers.values()) if (c.container.podSandboxId === id) this.exit(c, 137, 'Error');
  }

  async removePodSandbox(id: string): Promise<void> {
    for (const [cid, c] of this.containers) if (c.container.podSandboxId === id) this.containers.delete(cid);
    this.sandboxes.delete(id);
  }

  async podSandboxStatus(id: string): Promise<PodSandboxStatusResponse> {
    const s = this.sandboxes.get(id) ?? this.notFound('PodSandboxStatus', `sandbox ${id}`);
    const { sandbox } = s;
    return {
      status: { ...sandbox, network: { ip: sandbox.state === 'SANDBOX_READY' ? s.ip : '', additionalIps: [] }, linux: { namespaces: { options: null } } },
      info: {},
    };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    return [...this.sandboxes.values()]
      .map((s) => s.sandbox)
      .filter((s) => (!filter?.id || s.id === filter.id) && (!filter?.state || s.state === filter.state.state) && matches(s.labels, filter?.labelSelector));
  }

  async createContainer(podSandboxId: string, config: ContainerConfig): Promise<string> {
    if (!this.sandboxes.has(podSandboxId)) this.notFound('CreateContainer', `sandbox ${podSandboxId}`);
    const id = this.id();
    const base = { id, metadata: config.metadata, image: config.image, imageRef: config.image.image, createdAt: nowNanos(), labels: config.labels ?? {}, annotations: config.annotations ?? {}, imageId: config.image.image };
    this.containers.set(id, {
      container: { ...base, podSandboxId, state: 'CONTAINER_CREATED' },
      status: { ...base, state: 'CONTAINER_CREATED', startedAt: '0', finishedAt: '0', exitCode: 0, reason: '', message: '', mounts: config.mounts ?? [], logPath: config.logPath ?? '' },
    });
    return id;
  }

  async startContainer(id: string): Promise<void> {
    const c = this.containers.get(id) ?? this.notFound('StartContainer', `container ${id}`);
    c.container = { ...c.container, state: 'CONTAINER_RUNNING' };
    c.status = { ...c.status, state: 'CONTAINER_RUNNING', startedAt: nowNanos() };
  }

  async stopContainer(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (c && c.status.state === 'CONTAINER_RUNNING') this.exit(c, 137, 'Error');
  }

  private exit(c: { container: Container; status: ContainerStatus }, exitCode: number, reason: string) {
    if (c.status.state === 'CONTAINER_EXITED') return;
    c.container = { ...c.container, state: 'CONTAINER_EXITED' };
    c.status = { ...c.status, state: 'CONTAINER_EXITED', finishedAt: nowNanos(), exitCode, reason };
  }

  async removeContainer(id: string): Promise<void> {
    this.containers.delete(id);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    return [...this.containers.values()]
      .map((c) => c.container)
      .filter((c) => (!filter?.id || c.id === filter.id) && (!filter?.podSandboxId || c.podSandboxId === filter.podSandboxId) && (!filter?.state || c.state === filter.state.state) && matches(c.labels, filter?.labelSelector));
  }

  async containerStatus(id: string): Promise<ContainerStatus> {
    return (this.containers.get(id) ?? this.notFound('ContainerStatus', `container ${id}`)).status;
  }

  async reopenContainerLog(): Promise<void> {
    // No log files: nothing to reopen.
  }

  async execSync(): Promise<ExecSyncResult> {
    // Nothing runs in a hollow container: an exec probe or hook succeeds, as kubemark's fake runtime answers.
    return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 };
  }

  async listContainerStats(): Promise<[]> {
    return [];
  }

  async listPodSandboxStats(): Promise<[]> {
    return [];
  }

  async updateRuntimeConfig(): Promise<void> {
    // Addresses come from the node's own range.
  }

  // ---- images: every image is present ----

  async imageStatus(image: ImageSpec): Promise<Image | null> {
    return { id: `sha256:${image.image}`, repoTags: [image.image], repoDigests: [], size: '1000000', uid: null, username: '', spec: image, pinned: false };
  }

  async listImages(): Promise<Image[]> {
    return [];
  }

  async pullImage(image: ImageSpec): Promise<string> {
    return `sha256:${image.image}`;
  }

  async removeImage(): Promise<void> {
    // Every image stays present.
  }

  async imageFsInfo(): Promise<ImageFsInfoResponse> {
    return { imageFilesystems: [], containerFilesystems: [] };
  }

  close(): void {
    // No connection to close.
  }

  /** This object where the agent's code expects a CRI client (the methods it calls are the ones above). */
  asClient(): CriClient {
    return this as unknown as CriClient;
  }
}
