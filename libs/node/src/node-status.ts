// Registration and node status, as upstream's kubelet_node_status.go: register with the full status (on 409,
// read the Node and reconcile its default labels), then every `updateFrequency` compute the status from the
// provider's facts and the Node as the API server has it, and PATCH nodes/<name>/status only when something
// besides the heartbeat differs or `reportFrequency` has passed since the last report.
import { metaTime } from '@cl/apimachinery';
import { nodeConditions, type ConditionChange, type NodeHealth } from './node-conditions';
import { reconcileExisting } from './node-object';
import { Backoff, Timers } from './timers';
import { statusCode, type ApiClient, type ContainerImage, type Node, type NodeAddress, type NodeLog, type NodeStatus, type NodeSystemInfo, type ResourceList } from './types';

/** What the runtime side knows about the node, measured when asked. */
export interface NodeFacts extends NodeHealth {
  capacity: ResourceList;
  allocatable: ResourceList;
  addresses: NodeAddress[];
  nodeInfo: NodeSystemInfo;
  /** Largest first, at most nodeStatusMaxImages. */
  images: ContainerImage[];
  /** The agent's main server port, for status.daemonEndpoints. */
  daemonPort: number;
}

export interface NodeStatusOptions {
  client: ApiClient;
  /** The Node to register (registrationNode()); its name is the node's name. */
  node: Node;
  facts: () => Promise<NodeFacts>;
  /** Domain of the well-known labels registration reconciles (default kubernetes.io). */
  labelDomain?: string;
  /** --register-node: false only reports status for a Node someone else created. */
  register: boolean;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  log: NodeLog;
  /** Condition changes, for the NodeReady / NodeHasSufficientMemory ... events. */
  onConditionChange?: (node: Node, change: ConditionChange) => void;
  /** Called once the Node exists (created or found), with it. */
  onRegistered?: (node: Node) => void;
  /** Each read of the Node before a status update (what others changed on it: labels, annotations, taints). */
  onRead?: (node: Node) => void;
  now?: () => Date;
}

/** Upstream's nodeStatusUpdateRetry. */
const UPDATE_TRIES = 5;
const nodesPath = '/api/v1/nodes';

export class NodeStatusReporter {
  private readonly timers = new Timers();
  private readonly name: string;
  private lastReport = 0;
  private registered = false;
  private knownUid: string | undefined;
  private running: Promise<void> | undefined;
  private readonly now: () => Date;

  constructor(private readonly o: NodeStatusOptions) {
    this.name = o.node.metadata.name!;
    this.now = o.now ?? (() => new Date());
  }

  /** Starts registration and the status loop in the background. */
  start(): void {
    this.running = (async () => {
      if (this.o.register) await this.registerUntilDone();
      await this.timers.loop(this.o.updateFrequencyMs, () => this.sync(), (e) => this.o.log('Error updating node status, will retry', { err: errText(e) }, 'E'));
    })();
  }

  async stop(): Promise<void> {
    this.timers.stop();
    await this.running;
  }

  /** Status as it would be reported now (for the Node's first POST and for each update). */
  private async status(previous: Node | undefined): Promise<{ status: NodeStatus; changes: ConditionChange[] }> {
    const f = await this.o.facts();
    const { conditions, changes } = nodeConditions(f, previous?.status?.conditions, metaTime(this.now()));
    return {
      status: {
        capacity: f.capacity,
        allocatable: f.allocatable,
        conditions,
        addresses: f.addresses,
        daemonEndpoints: { kubeletEndpoint: { Port: f.daemonPort } },
        nodeInfo: f.nodeInfo,
        images: f.images,
      },
      changes,
    };
  }

  private async registerUntilDone(): Promise<void> {
    const backoff = new Backoff(100, 7000);
    while (!this.timers.isStopped) {
      try {
        await this.register();
        return;
      } catch (e) {
        this.o.log('Unable to register node with API server', { node: this.name, err: errText(e) }, 'E');
        if (!(await this.timers.sleep(backoff.next()))) return;
      }
    }
  }

  private async register(): Promise<void> {
    this.o.log('Attempting to register node', { node: this.name });
    const { status, changes } = await this.status(undefined);
    try {
      const created = await this.o.client.create<Node>(nodesPath, { ...this.o.node, status });
      this.lastReport = this.now().getTime();
      this.o.log('Successfully registered node', { node: this.name });
      this.markRegistered(created, changes);
      return;
    } catch (e) {
      if (statusCode(e) !== 409) throw e;
    }
    const existing = await this.o.client.get<Node>(`${nodesPath}/${this.name}`);
    const diff = reconcileExisting(existing, this.o.node, this.o.labelDomain);
    const updated = diff ? await this.o.client.patch<Node>(`${nodesPath}/${this.name}/status`, { metadata: diff }) : existing;
    this.o.log('Node was previously registered', { node: this.name });
    this.markRegistered(updated, []);
  }

  private markRegistered(node: Node, changes: ConditionChange[]): void {
    this.registered = true;
    this.knownUid = node.metadata.uid;
    for (const c of changes) this.o.onConditionChange?.(node, c);
    this.o.onRegistered?.(node);
  }

  /** One status update: up to five tries, each reading the Node again (upstream's updateNodeStatus). */
  async sync(): Promise<void> {
    if (this.o.register && !this.registered) return;
    let last: unknown;
    for (let i = 0; i < UPDATE_TRIES && !this.timers.isStopped; i++) {
      try {
        await this.tryUpdate();
        return;
      } catch (e) {
        last = e;
        if (statusCode(e) === 404 && this.o.register) {
          // The Node was deleted under us: register it again rather than failing every update.
          this.registered = false;
          await this.registerUntilDone();
          return;
        }
      }
    }
    throw new Error(`update node status exceeds retry count: ${errText(last)}`);
  }

  private async tryUpdate(): Promise<void> {
    const node = await this.o.client.get<Node>(`${nodesPath}/${this.name}`);
    // Without --register-node someone else made the Node: it is known from the first read (mirror pods and
    // the lease's owner need its uid); a re-created Node is known again.
    if (node.metadata.uid !== this.knownUid) {
      this.knownUid = node.metadata.uid;
      this.o.onRegistered?.(node);
    }
    this.o.onRead?.(node);
    const { status, changes } = await this.status(node);
    const due = this.now().getTime() - this.lastReport >= this.o.reportFrequencyMs;
    if (!due && !statusDiffers(node.status, status)) return;
    await this.o.client.patch(`${nodesPath}/${this.name}/status`, statusPatch(node.status, status));
    this.lastReport = this.now().getTime();
    for (const c of changes) this.o.onConditionChange?.(node, c);
  }
}

/**
 * Whether anything the agent owns differs, heartbeat times aside: its four conditions by type, the capacity,
 * allocatable and nodeInfo keys it sets, and the fields it alone writes. Others' conditions, extended
 * resources an admin added and key order are not differences (upstream compares its own changes only).
 */
export function statusDiffers(current: Partial<NodeStatus> | undefined, next: NodeStatus): boolean {
  const sameKeys = (have: Record<string, unknown> | undefined, want: Record<string, unknown>) =>
    Object.entries(want).every(([k, v]) => JSON.stringify(have?.[k]) === JSON.stringify(v));
  const sameConditions = next.conditions.every((c) => {
    const had = current?.conditions?.find((h) => h.type === c.type);
    return had !== undefined && had.status === c.status && had.reason === c.reason && had.message === c.message && had.lastTransitionTime === c.lastTransitionTime;
  });
  return !(
    sameConditions &&
    sameKeys(current?.capacity, next.capacity) &&
    sameKeys(current?.allocatable, next.allocatable) &&
    sameKeys(current?.nodeInfo as unknown as Record<string, unknown>, next.nodeInfo as unknown as Record<string, unknown>) &&
    JSON.stringify(current?.addresses) === JSON.stringify(next.addresses) &&
    JSON.stringify(current?.daemonEndpoints) === JSON.stringify(next.daemonEndpoints) &&
    JSON.stringify(current?.images ?? []) === JSON.stringify(next.images)
  );
}

/**
 * The strategic merge patch of status: the agent's conditions merged by type (others' conditions stay), and the
 * addresses replaced as a whole when they changed (a merge by type would keep an address that went away).
 */
export function statusPatch(current: Partial<NodeStatus> | undefined, next: NodeStatus): Record<string, unknown> {
  const status: Record<string, unknown> = {
    capacity: next.capacity,
    allocatable: next.allocatable,
    conditions: next.conditions,
    daemonEndpoints: next.daemonEndpoints,
    nodeInfo: next.nodeInfo,
    images: next.images,
  };
  if (JSON.stringify(current?.addresses) !== JSON.stringify(next.addresses)) status.addresses = [{ $patch: 'replace' }, ...next.addresses];
  return { status };
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
