// kube-controller-manager's taint eviction controller (pkg/controller/tainteviction): pods on a node with NoExecute
// taints they do not tolerate are deleted at once; pods tolerating them for tolerationSeconds are deleted when
// that time is up; pods tolerating them without a limit stay. Before the delete, the pod gets the
// DisruptionTarget condition (reason DeletionByTaintManager), so whoever owns it can tell why it went; each
// deletion and each cancelled deletion is a `TaintManagerEviction` event on the pod.
import { createEventRecorder, eventSinkFor, handlersWhile, isNotFound, type EventRecorder, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { pause } from '../core-v1/loops';
import { DISRUPTION_TARGET, patchPodStatus, podPath, withPodCondition } from '../core-v1/pod-status';
import { podKey, type Node, type Pod, type Taint } from '../core-v1/types';
import { NODES_PATH, PODS_PATH } from '../core-v1/well-known';
import { evictionTime, noExecuteTaints } from './eviction-time';

export interface TaintEvictionOptions {
  /** The events' source component; upstream's name by default. */
  controllerName?: string;
}

export const TAINT_EVICTION_CONTROLLER_NAME = 'taint-eviction-controller';

/** Tries at deleting one pod, 10 ms apart (upstream's retries). */
const DELETE_TRIES = 5;
const DELETE_RETRY_PAUSE_MS = 10;

const errText = (e: unknown) => (e as Error)?.message ?? String(e);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** A pod's eviction: waiting on its timer, or (no timer) under way. */
interface Eviction {
  fireAt: number;
  timer?: NodeJS.Timeout;
}

export class TaintEvictionController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly name: string;
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly events: EventRecorder;
  /** Pod keys by node name, kept from the pod events. */
  private readonly podsOnNode = new Map<string, Set<string>>();
  /** The NoExecute taints of each node that has any. */
  private readonly taintedNodes = new Map<string, Taint[]>();
  private readonly evictions = new Map<string, Eviction>();
  private readonly deletions = new Set<Promise<void>>();
  private running = false;
  private stopped = false;

  constructor(ctx: ControllerContext, options: TaintEvictionOptions = {}) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.name = options.controllerName ?? TAINT_EVICTION_CONTROLLER_NAME;
    this.nodes = ctx.informers.informer<Node>(NODES_PATH);
    this.pods = ctx.informers.informer<Pod>(PODS_PATH);
    this.events = createEventRecorder(eventSinkFor(ctx.client), { component: this.name }, ctx.log ? { log: ctx.log } : {});
    const live = handlersWhile(() => this.running);
    this.nodes
      .on('add', live((n: Node) => this.nodeChanged(n.metadata.name ?? '')))
      .on('update', live((n: Node, old: Node) => {
        if (!sameJson(noExecuteTaints(n.spec?.taints), noExecuteTaints(old.spec?.taints))) this.nodeChanged(n.metadata.name ?? '');
      }))
      .on('delete', live((n: Node) => this.nodeChanged(n.metadata.name ?? '')));
    this.pods
      .on('add', live((p: Pod) => this.podChanged(p)))
      .on('update', live((p: Pod, old: Pod) => this.podChanged(p, old)))
      .on('delete', live((p: Pod) => this.podChanged(undefined, p)));
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.nodes.start(), this.pods.start()]);
    if (this.stopped) return;
    this.running = true;
    for (const p of this.pods.list()) this.index(p);
    for (const n of this.nodes.list()) this.nodeChanged(n.metadata.name ?? '');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    for (const e of this.evictions.values()) clearTimeout(e.timer);
    this.evictions.clear();
    while (this.deletions.size) await Promise.allSettled([...this.deletions]);
    await this.events.stop();
  }

  /** handleNodeUpdate: the node's NoExecute taints changed; every pod on it is judged again. */
  private nodeChanged(name: string) {
    const node = this.nodes.get(name);
    const taints = noExecuteTaints(node?.spec?.taints);
    if (taints.length) this.taintedNodes.set(name, taints);
    else this.taintedNodes.delete(name);
    const keys = [...(this.podsOnNode.get(name) ?? [])];
    if (!node || !taints.length) {
      for (const key of keys) this.cancel(key);
      return;
    }
    const now = Date.now();
    for (const key of keys) {
      const pod = this.pods.get(key);
      if (pod) this.judge(pod, name, now);
    }
  }

  /** handlePodUpdate: a pod came, went, moved, or changed its tolerations. */
  private podChanged(pod: Pod | undefined, old?: Pod) {
    if (old) this.unindex(old);
    if (!pod) {
      this.cancel(podKey(old!));
      return;
    }
    this.index(pod);
    if (old && old.spec?.nodeName === pod.spec?.nodeName && sameJson(old.spec?.tolerations, pod.spec?.tolerations)) return;
    const on = pod.spec?.nodeName;
    if (on && this.taintedNodes.has(on)) this.judge(pod, on, Date.now());
  }

  /** processPodOnNode: schedules, keeps or cancels the pod's eviction. */
  private judge(pod: Pod, nodeName: string, now: number) {
    const key = podKey(pod);
    const at = evictionTime(this.taintedNodes.get(nodeName) ?? [], pod.spec?.tolerations, now);
    if (at === undefined) {
      this.cancel(key);
      return;
    }
    const scheduled = this.evictions.get(key);
    // An eviction under way, or one due no later, stands (as upstream keeps the work it has).
    if (scheduled && (!scheduled.timer || scheduled.fireAt <= at)) return;
    if (scheduled) this.cancel(key);
    this.schedule(key, at, now);
  }

  private schedule(key: string, at: number, now: number) {
    const eviction: Eviction = { fireAt: at };
    this.evictions.set(key, eviction);
    const fire = () => {
      eviction.timer = undefined;
      const p = this.evict(key).finally(() => {
        if (this.evictions.get(key) === eviction) this.evictions.delete(key);
        this.deletions.delete(p);
      });
      this.deletions.add(p);
    };
    if (at <= now) fire();
    else {
      eviction.timer = setTimeout(fire, at - now);
      eviction.timer.unref();
    }
  }

  /** cancelWorkWithEvent: a waiting eviction is dropped with an event; one under way runs to its end. */
  private cancel(key: string) {
    const eviction = this.evictions.get(key);
    if (!eviction) return;
    this.evictions.delete(key);
    if (!eviction.timer) return;
    clearTimeout(eviction.timer);
    const [namespace, name] = splitKey(key);
    this.events.event({ apiVersion: 'v1', kind: 'Pod', namespace, name }, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  /** deletePodHandler: the event, then the DisruptionTarget condition and the delete, tried a few times. */
  private async evict(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    this.log('Deleting pod', { controller: this.name, pod: key });
    this.events.event({ apiVersion: 'v1', kind: 'Pod', namespace, name }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.addConditionAndDelete(namespace, name);
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (attempt >= DELETE_TRIES || this.stopped) {
          this.log('TaintEvictionController: timed worker failed', { pod: key, err: errText(e) });
          return;
        }
      }
      await pause(DELETE_RETRY_PAUSE_MS);
    }
  }

  private async addConditionAndDelete(namespace: string, name: string): Promise<void> {
    const pod = await this.client.get<Pod>(podPath({ metadata: { namespace, name } }));
    const { condition, changed } = withPodCondition(
      pod.status?.conditions,
      { type: DISRUPTION_TARGET, status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' },
      new Date(),
    );
    if (changed) await patchPodStatus(this.client, pod, { conditions: [condition] });
    // No delete options: the pod's own grace period applies, as upstream.
    await this.client.delete(podPath(pod));
  }

  private index(pod: Pod) {
    const on = pod.spec?.nodeName;
    if (!on) return;
    let keys = this.podsOnNode.get(on);
    if (!keys) this.podsOnNode.set(on, (keys = new Set()));
    keys.add(podKey(pod));
  }

  private unindex(pod: Pod) {
    const on = pod.spec?.nodeName;
    const keys = on ? this.podsOnNode.get(on) : undefined;
    if (!keys) return;
    keys.delete(podKey(pod));
    if (!keys.size) this.podsOnNode.delete(on!);
  }
}

function splitKey(key: string): [namespace: string, name: string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
