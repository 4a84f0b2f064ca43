// A node of the cluster, as one object: it registers the Node and keeps its status and lease, watches the pods
// bound to it, hands them to a runtime, writes back the runtime's pod statuses and mirrors its static pods.
// The runtime (containerd through CRI in the node agent, a hollow one for scale tests, or any Node service's
// own) sees only PodRuntimeHost and calls the three report methods: the shape of virtual-kubelet's node
// library and its providers.
import { jsonEqual } from '@cl/apimachinery';
import { Informer, type KubeClient } from '@cl/kube-client';
import { NodeLease } from './node-lease';
import { registrationNode, type RegistrationOptions } from './node-object';
import { NodeStatusReporter, type NodeFacts } from './node-status';
import { isMirrorPod, MirrorPods } from './mirror-pods';
import { readinessNeedsSync } from './readiness-gates';
import { PodStatusManager } from './pod-status-manager';
import type { ApiClient, Node, NodeLog, Pod, PodStatus } from './types';

/** What the node needs of a runtime: the desired API pods. Everything else flows back through NodeAgent's methods. */
export interface PodRuntimeHost {
  /**
   * The pods the API server binds to this node (mirror pods left out), the whole set on every change. A pod
   * whose spec, labels, annotations and deletion did not change since it was last handed over (its status
   * did, often by the agent's own write) comes as that earlier copy with the new status: same resourceVersion,
   * so the runtime need not sync it again (upstream's pod config: a RECONCILE, not an UPDATE).
   */
  setApiPods(pods: Pod[]): void;
}

/** Where node and pod events go (`@cl/kube-client`'s event recorder). */
export interface EventSinkLike {
  event(ref: { kind: string; apiVersion?: string; namespace?: string; name: string; uid?: string; fieldPath?: string }, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface NodeAgentOptions extends RegistrationOptions {
  client: KubeClient;
  /** Node status and lease writes (upstream's heartbeat client, not rate-limited); default `client`. */
  heartbeatClient?: ApiClient;
  /** --register-node. */
  register: boolean;
  facts: () => Promise<NodeFacts>;
  statusUpdateFrequencyMs: number;
  statusReportFrequencyMs: number;
  leaseDurationSeconds: number;
  runtime: PodRuntimeHost;
  log: NodeLog;
  events?: EventSinkLike;
  /** Tuning for tests: lease renew interval (default a quarter of the duration) and write retry delay. */
  leaseRenewIntervalMs?: number;
  retryMs?: number;
}

export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
const key = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;

export class NodeAgent {
  private node: Node | undefined;
  private readonly status: NodeStatusReporter;
  private readonly lease: NodeLease;
  private readonly mirrors: MirrorPods;
  readonly podStatus: PodStatusManager;
  private readonly pods: Informer<Pod>;
  private readonly apiByUid = new Map<string, Pod>();
  /** The copy of each API pod last handed to the runtime, by uid. */
  private handed = new Map<string, Pod>();
  /** Static pods' last statuses by namespace/name, written to their mirrors once those exist. */
  private readonly staticStatus = new Map<string, { pod: Pod; status: PodStatus }>();
  private flushScheduled = false;
  private stopped = false;

  constructor(private readonly o: NodeAgentOptions) {
    const name = o.nodeName;
    const nodeRef = { kind: 'Node', name, uid: name };
    const heartbeat = o.heartbeatClient ?? o.client;
    this.status = new NodeStatusReporter({
      client: heartbeat,
      node: registrationNode(o),
      facts: o.facts,
      register: o.register,
      labelDomain: o.labelDomain,
      updateFrequencyMs: o.statusUpdateFrequencyMs,
      reportFrequencyMs: o.statusReportFrequencyMs,
      log: o.log,
      onRegistered: (node) => {
        this.node = node;
        this.mirrors.reconcile();
      },
      onRead: (node) => {
        this.node = node;
      },
      onConditionChange: (_node, change) => o.events?.event(nodeRef, 'Normal', change.event, `Node ${name} status is now: ${change.event}`),
    });
    this.lease = new NodeLease({ client: heartbeat, nodeName: name, durationSeconds: o.leaseDurationSeconds, renewIntervalMs: o.leaseRenewIntervalMs, log: o.log, node: () => this.node });
    this.mirrors = new MirrorPods({ client: o.client, nodeName: name, node: () => this.node, log: o.log, retryMs: o.retryMs });
    this.podStatus = new PodStatusManager({ client: o.client, log: o.log, retryMs: o.retryMs });
    this.pods = new Informer<Pod>(o.client, { path: '/api/v1/pods', fieldSelector: `spec.nodeName=${name}`, log: (msg, fields) => o.log(msg, fields) });
    this.pods.on('add', (p) => this.podChanged(p)).on('update', (p) => this.podChanged(p)).on('delete', (p) => this.podDeleted(p));
  }

  /** Registers (in the background, retrying) and starts the lease and the pod watch; resolves once the first pod list arrived. */
  async start(): Promise<void> {
    this.o.events?.event({ kind: 'Node', name: this.o.nodeName, uid: this.o.nodeName }, 'Normal', 'Starting', 'Starting clet.');
    this.status.start();
    this.lease.start();
    await this.pods.start();
    this.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.pods.stop();
    this.podStatus.stop();
    await Promise.all([this.status.stop(), this.lease.stop(), this.mirrors.stop()]);
  }

  /** The registered Node, once it is, as the last node status update read it. */
  registeredNode(): Node | undefined {
    return this.node;
  }

  get leaseRenewals(): number {
    return this.lease.renewals;
  }

  // ---- what the runtime reports ----

  /** The runtime computed a pod's status (its own copy of the pod: an API pod or a static one). */
  reportStatus(pod: Pod, status: PodStatus): void {
    if (isStatic(pod)) {
      this.staticStatus.set(key(pod), { pod, status });
      const mirror = this.mirrors.mirrorOf(pod);
      if (mirror) this.podStatus.setStatus(mirror, status);
      return;
    }
    const api = this.apiByUid.get(pod.metadata.uid!);
    if (api) this.podStatus.setStatus(api, status);
  }

  /** The runtime stopped every container of a pod the API server is deleting. */
  reportTerminated(pod: Pod): void {
    const api = this.apiByUid.get(pod.metadata.uid!);
    if (api?.metadata.deletionTimestamp) this.podStatus.terminated(api);
  }

  /** The static pods the runtime runs now (the whole set). */
  reportStaticPods(pods: Pod[]): void {
    const names = new Set(pods.map(key));
    for (const k of [...this.staticStatus.keys()]) if (!names.has(k)) this.staticStatus.delete(k);
    this.mirrors.setStaticPods(pods);
  }

  // ---- the pod watch ----

  private podChanged(p: Pod): void {
    if (!isMirrorPod(p)) {
      this.apiByUid.set(p.metadata.uid!, p);
      this.podStatus.observe(p);
    }
    this.scheduleFlush();
  }

  private podDeleted(p: Pod): void {
    this.apiByUid.delete(p.metadata.uid!);
    this.podStatus.forget(p.metadata.uid!);
    this.scheduleFlush();
  }

  /** Many watch events (a first list of hundreds of pods) make one hand-over to the runtime. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.stopped) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.stopped) return;
    const all = this.pods.list();
    const mirrors = all.filter(isMirrorPod);
    const handed = new Map<string, Pod>();
    for (const p of all) {
      if (isMirrorPod(p)) continue;
      const before = this.handed.get(p.metadata.uid!);
      // Every status write of the agent comes back as a new resourceVersion: without this, one more sync each. A pod
      // whose readiness gate condition another controller changed is synced, so that its Ready condition follows.
      const statusOnly = before && before !== p && !differsSemantically(before, p) && !readinessNeedsSync(p);
      handed.set(p.metadata.uid!, statusOnly ? { ...before, status: p.status } : p);
    }
    this.handed = handed;
    this.o.runtime.setApiPods([...handed.values()]);
    this.mirrors.setMirrorPods(mirrors);
    // A mirror that appeared gets its static pod's last status.
    for (const { pod, status } of this.staticStatus.values()) {
      const mirror = this.mirrors.mirrorOf(pod);
      if (mirror) this.podStatus.setStatus(mirror, status);
    }
  }
}

/** Upstream's podsDifferSemantically: what the runtime acts on changed (spec, labels, annotations, deletion). */
export function differsSemantically(a: Pod, b: Pod): boolean {
  const ma = a.metadata;
  const mb = b.metadata;
  return ma.deletionTimestamp !== mb.deletionTimestamp || ma.deletionGracePeriodSeconds !== mb.deletionGracePeriodSeconds
    || !jsonEqual(ma.labels ?? {}, mb.labels ?? {}) || !jsonEqual(ma.annotations ?? {}, mb.annotations ?? {}) || !jsonEqual(a.spec, b.spec);
}

function isStatic(p: Pod): boolean {
  const source = p.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== 'api';
}
