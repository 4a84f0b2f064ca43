// kube-controller-manager's node lifecycle controller (pkg/controller/nodelifecycle): every monitor period it
// looks at each node's heartbeats (the Ready condition the agent posts and the lease it renews in
// kube-node-lease); a node silent for longer than the grace period gets its conditions set Unknown through
// nodes/<name>/status, a `NodeNotReady` event, and its Ready pods marked not ready. Taints follow the Ready
// condition: NoSchedule ones from every condition on each node change (TaintNodesByCondition), and NoExecute
// not-ready / unreachable ones added per zone at a limited rate (TaintBasedEvictions) and removed once the node is
// Ready again. Pods are removed by the taint eviction controller, which reads those NoExecute taints.
import { createEventRecorder, eventSinkFor, handlersWhile, isNotFound, resourcePath, type EventRecorder, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { nodeReference } from '../core-v1/events';
import { forEachLimited, KeyQueue, pause, PeriodicLoop } from '../core-v1/loops';
import { definedOnly } from '../core-v1/options';
import { hasTaint } from '../core-v1/taints';
import { nodeCondition, podKey, timeOf, type Lease, type Node, type NodeCondition, type Pod } from '../core-v1/types';
import { LEASES_PATH, NODE_LEASE_NAMESPACE, NODES_PATH, PODS_PATH } from '../core-v1/well-known';
import { NOT_READY_NO_EXECUTE, noExecuteTaintFor, noScheduleTaintChanges, UNREACHABLE_NO_EXECUTE, type TaintChanges } from './condition-taints';
import { markPodsNotReady } from './mark-pods-not-ready';
import { gracePeriodFor, heartbeatExpired, observedReady, observeNodeHealth, READY, unknownConditions, type NodeHealth } from './node-health';
import { swapNodeTaints } from './node-taints';
import { computeZoneState, evictionRateFor, excludedFromDisruptionChecks, planDisruption, zoneKey, type ZoneState } from './zone-state';
import { ZoneTainter, type TaintAttempt } from './zone-tainter';

export interface NodeLifecycleOptions {
  /** --node-monitor-period: how often heartbeats are checked. */
  nodeMonitorPeriodMs?: number;
  /** --node-monitor-grace-period: how long a node that has posted Ready may stay silent. */
  nodeMonitorGracePeriodMs?: number;
  /** --node-startup-grace-period: how long a new node has to post its first Ready condition. */
  nodeStartupGracePeriodMs?: number;
  /** --node-eviction-rate: nodes per second, per zone, that get a NoExecute taint while the zone is healthy. */
  nodeEvictionRate?: number;
  /** --secondary-node-eviction-rate: the same in a partially disrupted zone of a large cluster. */
  secondaryNodeEvictionRate?: number;
  /** --large-cluster-size-threshold: partially disrupted zones up to this size stop tainting altogether. */
  largeClusterSizeThreshold?: number;
  /** --unhealthy-zone-threshold: share of not-ready nodes (more than two) that makes a zone partially disrupted. */
  unhealthyZoneThreshold?: number;
}

/**
 * kube-controller-manager 1.33's defaults. The grace period is 50 s since 1.32 (kubernetes#126287; it was 40 s
 * before), so that an agent gets five 10-second status attempts.
 */
export const NODE_LIFECYCLE_DEFAULTS: Required<NodeLifecycleOptions> = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
};

/** Events carry upstream's source component, so `kubectl describe node` reads the same. */
export const NODE_CONTROLLER_NAME = 'node-controller';

/** How often the zone tainters are given a chance (upstream's NodeEvictionPeriod). */
const TAINTING_PERIOD_MS = 100;
/** Attempts at writing one node's health in a pass, 20 ms apart (NodeHealthUpdateRetry, retrySleepTime). */
const HEALTH_UPDATE_TRIES = 5;
const HEALTH_RETRY_PAUSE_MS = 20;
/** Nodes whose health is worked on at once, and workers for the NoSchedule and pod queues. */
const NODE_WORKERS = 8;
const POD_WORKERS = 4;

const nodeName = (n: Node) => n.metadata.name ?? '';
const errText = (e: unknown) => (e as Error)?.message ?? String(e);

interface HealthResult {
  /** The node, with its status as written when this pass set it Unknown. */
  node: Node;
  /** Ready as the agent left it (a stand-in Unknown one for a node that never posted one). */
  observed: NodeCondition;
  /** Ready after this pass; undefined for a new node still within its startup grace. */
  current?: NodeCondition;
}

export class NodeLifecycleController implements Controller {
  private readonly opts: Required<NodeLifecycleOptions>;
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly nodes: Informer<Node>;
  private readonly leases: Informer<Lease>;
  private readonly pods: Informer<Pod>;
  private readonly events: EventRecorder;
  /** Nodes seen by the last pass (for RegisteredNode / RemovingNode). */
  private readonly known = new Map<string, Node>();
  private readonly health = new Map<string, NodeHealth>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();
  /** Nodes whose pods could not all be marked not ready; the next pass tries again. */
  private readonly nodesToRetry = new Set<string>();
  private readonly noScheduleQueue: KeyQueue;
  private readonly podQueue: KeyQueue;
  private readonly monitor: PeriodicLoop;
  private readonly tainting: PeriodicLoop;
  private stopped = false;
  private running = false;

  constructor(ctx: ControllerContext, options: NodeLifecycleOptions = {}) {
    this.opts = { ...NODE_LIFECYCLE_DEFAULTS, ...definedOnly(options) };
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.nodes = ctx.informers.informer<Node>(NODES_PATH);
    this.leases = ctx.informers.informer<Lease>(LEASES_PATH);
    this.pods = ctx.informers.informer<Pod>(PODS_PATH);
    this.events = createEventRecorder(eventSinkFor(ctx.client), { component: NODE_CONTROLLER_NAME }, ctx.log ? { log: ctx.log } : {});
    this.noScheduleQueue = new KeyQueue((name) => this.reconcileNoScheduleTaints(name), (name, e) => this.log('Failed to taint NoSchedule on node, requeue it', { node: name, err: errText(e) }), NODE_WORKERS);
    this.podQueue = new KeyQueue((key) => this.processPod(key), (key, e) => this.log('Unable to mark pod NotReady on node', { pod: key, err: errText(e) }), POD_WORKERS);
    const passFailed = (what: string) => (e: unknown) => this.log(what, { err: errText(e) });
    this.monitor = new PeriodicLoop(this.opts.nodeMonitorPeriodMs, () => this.monitorNodeHealth(), passFailed('Error monitoring node health'));
    this.tainting = new PeriodicLoop(TAINTING_PERIOD_MS, () => this.taintDueNodes(), passFailed('Error tainting nodes'));
    // Shared informers cannot drop handlers, so each one checks whether this controller still runs.
    const live = handlersWhile(() => this.running);
    this.nodes.on('add', live((n: Node) => this.noScheduleQueue.add(nodeName(n)))).on('update', live((n: Node) => this.noScheduleQueue.add(nodeName(n))));
    this.pods.on('add', live((p: Pod) => this.podAssigned(p))).on('update', live((p: Pod, old: Pod) => this.podAssigned(p, old)));
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.nodes.start(), this.leases.start(), this.pods.start()]);
    if (this.stopped) return;
    this.running = true;
    // The informers may have listed before our handlers were added.
    for (const n of this.nodes.list()) this.noScheduleQueue.add(nodeName(n));
    for (const p of this.pods.list()) this.podAssigned(p);
    this.monitor.start();
    this.tainting.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    await Promise.all([this.monitor.stop(), this.tainting.stop(), this.noScheduleQueue.stop(), this.podQueue.stop()]);
    await this.events.stop();
  }

  /** One monitor pass (monitorNodeHealth). */
  private async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodes.list();
    const seen = new Set(nodes.map(nodeName));
    for (const node of nodes) {
      this.tainterFor(node);
      if (this.known.has(nodeName(node))) continue;
      this.known.set(nodeName(node), node);
      this.nodeEvent(node, 'RegisteredNode', `Registered Node ${nodeName(node)} in Controller`);
      // A node is taken as reachable until a pass finds otherwise (this also clears taints a previous run left).
      await this.markNodeAsReachable(node).catch((e) => this.log('Failed to remove taints from node', { node: nodeName(node), err: errText(e) }));
    }
    for (const [name, node] of this.known) {
      if (seen.has(name)) continue;
      this.nodeEvent(node, 'RemovingNode', `Removing Node ${name} from Controller`);
      this.known.delete(name);
      this.health.delete(name);
      this.nodesToRetry.delete(name);
    }
    const podsByNode = new Map<string, Pod[]>();
    for (const pod of this.pods.list()) {
      const on = pod.spec?.nodeName;
      if (on) podsByNode.set(on, [...(podsByNode.get(on) ?? []), pod]);
    }
    const zoneReady = new Map<string, Array<NodeCondition | undefined>>();
    await forEachLimited(nodes, NODE_WORKERS, async (node) => {
      if (this.stopped) return;
      const result = await this.updateNodeHealth(node);
      if (!result) return;
      if (!excludedFromDisruptionChecks(result.node)) {
        const zone = zoneKey(result.node);
        zoneReady.set(zone, [...(zoneReady.get(zone) ?? []), result.current]);
      }
      if (result.current) await this.actOnReadiness(result, podsByNode.get(nodeName(node)) ?? []);
    });
    if (!this.stopped) await this.handleDisruption(zoneReady, nodes);
  }

  /** Judges one node's heartbeats, retrying a failed write against a fresh copy; undefined when it gave up. */
  private async updateNodeHealth(node: Node): Promise<HealthResult | undefined> {
    let current = node;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryUpdateNodeHealth(current);
      } catch (e) {
        if (attempt >= HEALTH_UPDATE_TRIES || this.stopped) {
          this.log('Update health of Node from Controller error, Skipping - no pods will be evicted', { node: nodeName(node), err: errText(e) });
          return undefined;
        }
      }
      await pause(HEALTH_RETRY_PAUSE_MS);
      try {
        current = await this.client.get<Node>(resourcePath({ version: 'v1', resource: 'nodes', name: nodeName(node) }));
      } catch (e) {
        this.log('Failed while getting a Node to retry updating node health. Probably Node was deleted', { node: nodeName(node), err: errText(e) });
        return undefined;
      }
    }
  }

  private async tryUpdateNodeHealth(node: Node): Promise<HealthResult> {
    const now = Date.now();
    const name = nodeName(node);
    const observed = observedReady(node);
    const lease = this.leases.get(`${NODE_LEASE_NAMESPACE}/${name}`);
    const health = observeNodeHealth(this.health.get(name), node, lease, now);
    this.health.set(name, health);
    const current = nodeCondition(node, READY);
    if (!heartbeatExpired(health, gracePeriodFor(node, this.opts), now)) return { node, observed, current };
    const conditions = unknownConditions(node, new Date(now));
    const ready = conditions.find((c) => c.type === READY)!;
    if (sameCondition(ready, observed)) return { node, observed, current: ready };
    const written = await this.client.update<Node>(resourcePath({ version: 'v1', resource: 'nodes', name, subresource: 'status' }), { ...node, status: { ...node.status, conditions } });
    this.health.set(name, { probeTimestamp: health.probeTimestamp, readyTransitionTimestamp: now, ready, leaseRenewTime: timeOf(lease?.spec?.renewTime) ?? health.leaseRenewTime });
    return { node: written, observed, current: ready };
  }

  /** The taints, event and pod marks that follow a node's Ready condition. */
  private async actOnReadiness(result: HealthResult, pods: Pod[]): Promise<void> {
    const { node, observed, current } = result;
    const name = nodeName(node);
    await this.processTaintBasedEviction(node, observed);
    const becameNotReady = current!.status !== 'True' && observed.status === 'True';
    // Upstream records the transition once, when this controller made it (the agent reports its own).
    if (becameNotReady) this.events.event(nodeReference(node), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    if (becameNotReady || (this.nodesToRetry.has(name) && observed.status !== 'True')) {
      try {
        await markPodsNotReady(this.client, this.events, pods, name, this.log);
      } catch (e) {
        this.log('Unable to mark all pods NotReady on node; queuing for retry', { node: name, err: errText(e) });
        this.nodesToRetry.add(name);
        return;
      }
    }
    this.nodesToRetry.delete(name);
  }

  /** processTaintBaseEviction: swap a NoExecute taint at once, queue a new one, or clear them for a ready node. */
  private async processTaintBasedEviction(node: Node, observed: NodeCondition): Promise<void> {
    const taints = node.spec?.taints;
    const swapFailed = (e: unknown) => this.log('Failed to instantly swap NoExecute taints. Will try again in the next cycle', { node: nodeName(node), err: errText(e) });
    switch (observed.status) {
      case 'False':
        if (hasTaint(taints, UNREACHABLE_NO_EXECUTE)) await swapNodeTaints(this.client, node, noExecuteTaintFor('False')).catch(swapFailed);
        else this.markNodeForTainting(node, NOT_READY_NO_EXECUTE);
        break;
      case 'Unknown':
        if (hasTaint(taints, NOT_READY_NO_EXECUTE)) await swapNodeTaints(this.client, node, noExecuteTaintFor('Unknown')).catch(swapFailed);
        else this.markNodeForTainting(node, UNREACHABLE_NO_EXECUTE);
        break;
      case 'True':
        await this.markNodeAsReachable(node).catch((e) => this.log('Failed to remove taints from node. Will retry in next iteration', { node: nodeName(node), err: errText(e) }));
        break;
    }
  }

  /** Queues the node for `wanted`; a node marked before but no longer carrying that taint is queued afresh. */
  private markNodeForTainting(node: Node, wanted: typeof NOT_READY_NO_EXECUTE): boolean {
    const tainter = this.tainterFor(node);
    if (!hasTaint(node.spec?.taints, wanted)) tainter.remove(nodeName(node));
    return tainter.add(nodeName(node), node.metadata.uid ?? '');
  }

  private async markNodeAsReachable(node: Node): Promise<boolean> {
    await swapNodeTaints(this.client, node, noExecuteTaintFor('True'));
    return this.tainterFor(node).remove(nodeName(node));
  }

  /** doNoExecuteTaintingPass: each zone taints its due nodes, as its rate allows. */
  private async taintDueNodes(): Promise<void> {
    for (const tainter of [...this.tainters.values()]) {
      if (this.stopped) return;
      await tainter.taintDue((name) => this.taintNode(name));
    }
  }

  private async taintNode(name: string): Promise<TaintAttempt> {
    const node = this.nodes.get(name);
    if (!node) return { done: true };
    const ready = nodeCondition(node, READY);
    if (!ready) return { done: false, retryAfterMs: 50 };
    // Ready again meanwhile: nothing to taint.
    if (ready.status !== 'False' && ready.status !== 'Unknown') return { done: true };
    try {
      await swapNodeTaints(this.client, node, noExecuteTaintFor(ready.status));
      return { done: true };
    } catch (e) {
      this.log('Failed to taint unresponsive node', { node: name, err: errText(e) });
      return { done: false, retryAfterMs: 0 };
    }
  }

  /** handleDisruption: zone states from this pass's Ready conditions, and what a change of them calls for. */
  private async handleDisruption(zoneReady: Map<string, Array<NodeCondition | undefined>>, nodes: Node[]): Promise<void> {
    const next = new Map([...zoneReady].map(([zone, ready]) => [zone, computeZoneState(ready, this.opts.unhealthyZoneThreshold).state]));
    const plan = planDisruption(this.zoneStates, next);
    for (const zone of [...this.zoneStates.keys()]) if (!next.has(zone)) this.zoneStates.delete(zone);
    const setZone = (zone: string, state: ZoneState) => {
      this.tainterFor(zone).setRate(evictionRateFor(state, zoneReady.get(zone)?.length ?? 0, this.opts));
      this.zoneStates.set(zone, state);
    };
    switch (plan.kind) {
      case 'enter-full-disruption':
        this.log('Controller detected that all Nodes are not-Ready. Entering master disruption mode');
        for (const node of nodes) await this.markNodeAsReachable(node).catch((e) => this.log('Failed to remove taints from Node', { node: nodeName(node), err: errText(e) }));
        for (const zone of next.keys()) {
          this.tainterFor(zone).setRate(0);
          this.zoneStates.set(zone, 'FullDisruption');
        }
        break;
      case 'exit-full-disruption': {
        this.log('Controller detected that some Nodes are Ready. Exiting master disruption mode');
        // Every node starts its grace afresh: their silence was (most likely) ours.
        const now = Date.now();
        for (const [name, h] of this.health) this.health.set(name, { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
        for (const [zone, state] of plan.states) setZone(zone, state);
        break;
      }
      case 'zone-changes':
        for (const [zone, state] of plan.states) {
          if (this.zoneStates.has(zone) && this.zoneStates.get(zone) !== 'Initial') this.log('Controller detected that zone is now in new state', { zone, newState: state });
          setZone(zone, state);
        }
        break;
    }
  }

  /** The zone's tainter (created with the zone, as addPodEvictorForNewZone). */
  private tainterFor(nodeOrZone: Node | string): ZoneTainter {
    const zone = typeof nodeOrZone === 'string' ? nodeOrZone : zoneKey(nodeOrZone);
    let tainter = this.tainters.get(zone);
    if (!tainter) {
      tainter = new ZoneTainter(this.opts.nodeEvictionRate);
      this.tainters.set(zone, tainter);
      this.zoneStates.set(zone, 'Initial');
    }
    return tainter;
  }

  /** doNoScheduleTaintingPass for one node, on each change of it. */
  private async reconcileNoScheduleTaints(name: string): Promise<void> {
    const node = this.nodes.get(name);
    if (!node) return;
    const changes: TaintChanges = noScheduleTaintChanges(node);
    if (!changes.add.length && !changes.remove.length) return;
    await swapNodeTaints(this.client, node, changes).catch((e) => {
      if (!isNotFound(e)) throw e;
    });
  }

  private podAssigned(pod: Pod, old?: Pod) {
    const on = pod.spec?.nodeName;
    if (on && (!old || old.spec?.nodeName !== on)) this.podQueue.add(podKey(pod));
  }

  /** processPod: a pod newly placed on a node that is not ready is marked not ready too. */
  private async processPod(key: string): Promise<void> {
    const pod = this.pods.get(key);
    const on = pod?.spec?.nodeName;
    if (!pod || !on) return;
    const health = this.health.get(on);
    if (!health) return;
    if (!this.nodes.get(on)) throw new Error(`node ${on} is not in the informer's store`);
    if (health.ready && health.ready.status !== 'True') await markPodsNotReady(this.client, this.events, [pod], on, this.log);
  }

  /** RecordNodeEvent's form: `Node <name> event: <what>`. */
  private nodeEvent(node: Node, reason: string, what: string) {
    this.events.event(nodeReference(node), 'Normal', reason, `Node ${nodeName(node)} event: ${what}`);
  }
}

/** apiequality.Semantic.DeepEqual for node conditions (every field, absent and empty alike). */
function sameCondition(a: NodeCondition, b: NodeCondition): boolean {
  const fields = ['type', 'status', 'reason', 'message', 'lastHeartbeatTime', 'lastTransitionTime'] as const;
  return fields.every((f) => (a[f] ?? '') === (b[f] ?? ''));
}
