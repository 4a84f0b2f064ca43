// The scheduler's control loop (upstream's scheduleOne and its event handlers): the nodes and pods informers feed
// the cache and the queue; one pod at a time is taken from the queue and decided against a snapshot of the cache;
// a placed pod is assumed at once and bound through pods/<name>/binding while the next decision runs; a pod that
// fits nowhere gets a FailedScheduling event and condition and waits for a change in the cluster.
import { metaTime } from '@cl/apimachinery';
import { createEventRecorder, eventSinkFor, handlersWhile, resourcePath, SharedInformers, type EventRecorder, type Informer, type KubeClient, type ObjectReference } from '@cl/kube-client';
import { ClusterCache } from './cluster-cache';
import { truncateMessage } from './failure-message';
import { schedulePod } from './schedule-pod';
import { SchedulingQueue, type QueuedPodInfo, type SchedulingQueueOptions } from './scheduling-queue';
import { podKey, podPriority, type Node, type Pod, type PodCondition } from './types';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export type SchedulerLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface SchedulerOptions {
  client: KubeClient;
  /** Pods whose spec.schedulerName is this are ours; also the events' source component. Default `default-scheduler`. */
  schedulerName?: string;
  log?: SchedulerLog;
  /** Where Scheduled and FailedScheduling go; by default a recorder of the client's own, stopped with the scheduler. */
  events?: EventRecorder;
  /** The process's shared informers (nodes and pods are taken from them); by default the scheduler's own. */
  informers?: SharedInformers;
  /** Back-off and waiting times; upstream's defaults (1 s, 10 s, 5 min) unless set. */
  queue?: SchedulingQueueOptions;
}

/** How long the scheduler decides per event-loop turn before letting the loop serve others (see run()). */
const DECISION_SLICE_MS = 10;

const NODES = '/api/v1/nodes';
const PODS = '/api/v1/pods';

const isTerminated = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** What in a node can change a filter's or a score's answer; heartbeats and images do not. */
function schedulingView(node: Node): string {
  return JSON.stringify([
    node.metadata.labels ?? {},
    node.spec?.unschedulable ?? false,
    node.spec?.taints ?? [],
    node.status?.allocatable ?? {},
    (node.status?.conditions ?? []).map((c) => [c.type, c.status]),
  ]);
}

/** A change of the pod itself that may change where it fits (upstream's isPodUpdated, roughly: spec and labels). */
const podChanged = (pod: Pod, old: Pod) => JSON.stringify([pod.spec, pod.metadata.labels]) !== JSON.stringify([old.spec, old.metadata.labels]);

export class Scheduler {
  readonly schedulerName: string;
  private readonly client: KubeClient;
  private readonly log: SchedulerLog;
  private readonly cache = new ClusterCache();
  private readonly queue: SchedulingQueue;
  private readonly informers: SharedInformers;
  private readonly ownInformers: boolean;
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly events: EventRecorder;
  private readonly ownEvents: boolean;
  /** Bindings and status writes under way, awaited by stop(). */
  private readonly writes = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** Where the next decision's filters start (upstream's nextStartNodeIndex): after the nodes the last one saw. */
  private nextStartNodeIndex = 0;

  constructor(opts: SchedulerOptions) {
    this.client = opts.client;
    this.schedulerName = opts.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    this.log = opts.log ?? (() => undefined);
    this.queue = new SchedulingQueue(opts.queue);
    this.ownInformers = !opts.informers;
    this.informers = opts.informers ?? new SharedInformers(opts.client, { log: opts.log });
    this.nodes = this.informers.informer<Node>(NODES);
    this.pods = this.informers.informer<Pod>(PODS);
    this.ownEvents = !opts.events;
    // Upstream names each profile's recorder after its scheduler name: `kubectl describe` shows it under "From".
    this.events = opts.events ?? createEventRecorder(eventSinkFor(opts.client), { component: this.schedulerName }, opts.log ? { log: opts.log } : {});
    this.watchInformers();
  }

  /** Starts the informers (when they are its own) and the loop; resolves once both have listed. */
  async start(): Promise<void> {
    if (this.loop || this.stopped) return;
    await (this.ownInformers ? this.informers.start() : Promise.all([this.nodes.start(), this.pods.start()]));
    if (this.stopped) return;
    // Shared informers may have synced before our handlers were added; these calls are idempotent.
    for (const n of this.nodes.list()) this.cache.setNode(n);
    for (const p of this.pods.list()) this.onPod(p);
    this.loop = this.run();
  }

  /** Stops deciding, waits for bindings under way, then stops what it owns (informers, event recorder). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    await this.loop;
    await Promise.allSettled([...this.writes]);
    if (this.ownInformers) this.informers.stop();
    if (this.ownEvents) await this.events.stop();
  }

  private watchInformers() {
    // Shared informers cannot drop handlers, so each one checks whether this scheduler still runs.
    const live = handlersWhile(() => !this.stopped);
    this.nodes
      .on('add', live((n: Node) => {
        this.cache.setNode(n);
        this.queue.moveAllToActiveOrBackoff();
      }))
      .on('update', live((n: Node, old: Node) => {
        this.cache.setNode(n);
        if (schedulingView(n) !== schedulingView(old)) this.queue.moveAllToActiveOrBackoff();
      }))
      .on('delete', live((n: Node) => this.cache.removeNode(n.metadata.name ?? '')));
    this.pods
      .on('add', live((p: Pod) => this.onPod(p)))
      .on('update', live((p: Pod, old: Pod) => this.onPod(p, old)))
      .on('delete', live((p: Pod) => {
        const key = podKey(p);
        this.cache.removePod(key);
        this.queue.delete(key);
        // A pod that held room on a node frees it.
        if (p.spec?.nodeName) this.queue.moveAllToActiveOrBackoff();
      }));
  }

  private isOurs(pod: Pod): boolean {
    return (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME) === this.schedulerName && !pod.metadata.deletionTimestamp;
  }

  private onPod(pod: Pod, old?: Pod) {
    const key = podKey(pod);
    this.cache.setPod(pod);
    if (pod.spec?.nodeName) {
      this.queue.delete(key);
      if (old && !isTerminated(old) && isTerminated(pod)) this.queue.moveAllToActiveOrBackoff();
      return;
    }
    // Pods with scheduling gates wait outside the queue until the gates are removed (upstream's SchedulingGates).
    if (!this.isOurs(pod) || (pod.spec?.schedulingGates?.length ?? 0) > 0) {
      this.queue.delete(key);
      return;
    }
    if (this.cache.isAssumed(key)) return;
    if (!old || !this.queue.has(key)) this.queue.add(key, podPriority(pod));
    else if (podChanged(pod, old)) this.queue.podChanged(key, podPriority(pod));
  }

  private async run(): Promise<void> {
    for (;;) {
      let info = await this.queue.pop();
      if (!info || this.stopped) return;
      // Decisions for up to DECISION_SLICE_MS per event-loop turn, then the watches deliver what changed. One
      // decision per turn starved the scheduler when it shares a busy API server's loop (each turn then carries
      // hundreds of requests: ~20 pods/s at 500 nodes in bench/density); decisions within a slice see each
      // other's assumptions, as upstream's sequential cycles do.
      const sliceEnd = performance.now() + DECISION_SLICE_MS;
      while (info && !this.stopped) {
        try {
          this.scheduleOne(info);
        } catch (e) {
          this.log('Error scheduling pod', { pod: info.key, err: (e as Error)?.message ?? String(e) });
          this.queue.requeue(info.key, false);
        }
        info = performance.now() < sliceEnd ? this.queue.tryPop() : undefined;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private scheduleOne(info: QueuedPodInfo) {
    const pod = this.pods.get(info.key);
    if (!pod || pod.spec?.nodeName || !this.isOurs(pod) || this.cache.isAssumed(info.key)) {
      this.queue.done(info.key);
      return;
    }
    const result = schedulePod(pod, this.cache.snapshot(), { startIndex: this.nextStartNodeIndex });
    if (result.nodeName !== undefined) this.nextStartNodeIndex += result.processedNodes;
    if (result.nodeName === undefined) {
      this.queue.requeue(info.key, result.reason === 'Unschedulable');
      this.recordFailure(pod, result.reason, result.message);
      return;
    }
    this.cache.assume(pod, result.nodeName);
    const placed = this.queue.done(info.key) ?? info;
    this.track(this.bind(pod, result.nodeName, placed));
  }

  private async bind(pod: Pod, nodeName: string, info: QueuedPodInfo): Promise<void> {
    const { namespace = '', name = '', uid } = pod.metadata;
    const path = resourcePath({ version: 'v1', resource: 'pods', namespace, name, subresource: 'binding' });
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, ...(uid ? { uid } : {}) }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } };
    try {
      await this.client.create(path, binding);
    } catch (e) {
      const message = (e as Error)?.message ?? String(e);
      this.log('Failed to bind pod', { pod: info.key, node: nodeName, err: message });
      this.cache.forget(info.key);
      // The room the assumption held is free again, for any pod.
      this.queue.moveAllToActiveOrBackoff();
      const current = this.pods.get(info.key);
      if (this.stopped || !current || current.spec?.nodeName || !this.isOurs(current)) return;
      this.queue.retry(info);
      this.recordFailure(current, 'SchedulerError', message);
      return;
    }
    this.log('Successfully bound pod to node', { pod: info.key, node: nodeName });
    this.events.event(podReference(pod), 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${nodeName}`);
  }

  /** The FailedScheduling event, and the PodScheduled=False condition `kubectl describe` shows (if it changed). */
  private recordFailure(pod: Pod, reason: 'Unschedulable' | 'SchedulerError', message: string) {
    const msg = truncateMessage(message);
    this.log('Unable to schedule pod', { pod: podKey(pod), reason, err: msg });
    this.events.event(podReference(pod), 'Warning', 'FailedScheduling', msg);
    const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === reason && current.message === msg) return;
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason,
      message: msg,
      lastProbeTime: null,
      lastTransitionTime: current?.status === 'False' ? (current.lastTransitionTime ?? metaTime()) : metaTime(),
    };
    const { namespace = '', name = '', uid } = pod.metadata;
    const path = resourcePath({ version: 'v1', resource: 'pods', namespace, name, subresource: 'status' });
    // The uid makes a pod deleted and created again under the same name refuse the patch.
    const patch = { metadata: uid ? { uid } : {}, status: { conditions: [condition] } };
    this.track(
      this.client.patch(path, patch, 'strategic').then(
        () => undefined,
        (e: Error) => this.log('Error updating pod condition', { pod: podKey(pod), err: e?.message ?? String(e) }),
      ),
    );
  }

  private track(p: Promise<void>) {
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p));
  }
}

function podReference(pod: Pod): ObjectReference {
  const { namespace, name = '', uid, resourceVersion } = pod.metadata;
  return { kind: 'Pod', apiVersion: 'v1', namespace, name, uid, resourceVersion };
}
