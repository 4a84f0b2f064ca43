// The node's heartbeat: a Lease in kube-node-lease named after the node, renewed every quarter of its
// duration, as component-helpers' lease controller: GET, create on 404 (owned by the Node once it exists),
// then PUT the last copy with a new renewTime; a conflict reads it again; an ensure that fails backs off
// from 200 ms to 7 s.
import { microTime } from '@cl/apimachinery';
import { Backoff, Timers } from './timers';
import { statusCode, type ApiClient, type Lease, type Node, type NodeLog } from './types';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Upstream's maxUpdateRetries. */
const UPDATE_TRIES = 5;

export interface NodeLeaseOptions {
  client: ApiClient;
  nodeName: string;
  durationSeconds: number;
  /** Default: a quarter of the duration (upstream's renewInterval fraction 0.25). */
  renewIntervalMs?: number;
  log: NodeLog;
  /** The Node, once registered, for the lease's owner reference (the lease goes when the Node is deleted). */
  node: () => Node | undefined;
  now?: () => Date;
}

export class NodeLease {
  private readonly timers = new Timers();
  private lease: Lease | undefined;
  private running: Promise<void> | undefined;
  private readonly path: string;
  private readonly now: () => Date;
  /** Renewals that reached the API server (for the agent's metrics and tests). */
  renewals = 0;

  constructor(private readonly o: NodeLeaseOptions) {
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
    this.now = o.now ?? (() => new Date());
  }

  start(): void {
    const interval = this.o.renewIntervalMs ?? this.o.durationSeconds * 250;
    // Upstream's jitter factor 0.04 spreads the renewals of many nodes.
    this.running = this.timers.loop(interval, () => this.renew(), (e) => this.o.log('Failed to update lease', { err: String((e as Error).message ?? e) }, 'E'), 0.04);
  }

  async stop(): Promise<void> {
    this.timers.stop();
    await this.running;
  }

  private async renew(): Promise<void> {
    if (!this.lease) {
      const before = this.renewals;
      this.lease = await this.ensureWithBackoff();
      // A lease just created is already renewed (upstream skips the update then).
      if (!this.lease || this.renewals > before) return;
    }
    for (let i = 0; i < UPDATE_TRIES && !this.timers.isStopped; i++) {
      try {
        this.lease = await this.o.client.update<Lease>(`${this.path}/${this.o.nodeName}`, this.renewed(this.lease));
        this.renewals++;
        return;
      } catch (e) {
        this.o.log('Failed to update lease', { err: (e as Error).message }, 'E');
        // A conflict or a lease deleted under us: read (or create) it again before the next try.
        if (statusCode(e) === 409 || statusCode(e) === 404) this.lease = await this.ensureWithBackoff();
        if (!this.lease) return;
      }
    }
    // Every try failed: start over from a fresh read next time.
    this.lease = undefined;
  }

  /** GET, or create on 404; retried with back-off until it works or the agent stops. */
  private async ensureWithBackoff(): Promise<Lease | undefined> {
    const backoff = new Backoff(200, 7000);
    while (!this.timers.isStopped) {
      try {
        return await this.ensure();
      } catch (e) {
        const wait = backoff.next();
        this.o.log('Failed to ensure lease exists, will retry', { interval: `${wait}ms`, err: (e as Error).message }, 'E');
        if (!(await this.timers.sleep(wait))) return undefined;
      }
    }
    return undefined;
  }

  private async ensure(): Promise<Lease> {
    try {
      return await this.o.client.get<Lease>(`${this.path}/${this.o.nodeName}`);
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
    const created = await this.o.client.create<Lease>(this.path, this.renewed({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.o.nodeName, namespace: NODE_LEASE_NAMESPACE }, spec: {} }));
    this.renewals++;
    return created;
  }

  /** The lease with this node as holder, renewed now, owned by the Node when it is known. */
  private renewed(base: Lease): Lease {
    const node = this.o.node();
    const owned = base.metadata.ownerReferences?.length || !node?.metadata.uid
      ? {}
      : { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.o.nodeName, uid: node.metadata.uid }] };
    return {
      ...base,
      metadata: { ...base.metadata, ...owned },
      spec: { ...base.spec, holderIdentity: this.o.nodeName, leaseDurationSeconds: this.o.durationSeconds, renewTime: microTime(this.now()) },
    };
  }
}
