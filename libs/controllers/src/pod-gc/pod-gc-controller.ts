// kube-controller-manager's pod garbage collector (pkg/controller/podgc): every check period it force-deletes
// (grace period 0) the pods nothing else will ever remove: terminated pods beyond --terminated-pod-gc-threshold,
// terminating pods on out-of-service nodes, pods bound to nodes that are gone, and terminating pods that were
// never scheduled. A pod that has not finished is first set Failed, so whoever waits for it sees it end; an
// orphan also gets the DisruptionTarget condition (reason DeletionByPodGC).
//
// A node missing from the informer is only believed gone after a quarantine and a GET that says 404: a node
// registered a moment ago may not have reached the informer yet, and its pods must not be lost for that.
import { isNotFound, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { forEachLimited, PeriodicLoop } from '../core-v1/loops';
import { definedOnly } from '../core-v1/options';
import { DISRUPTION_TARGET, patchPodStatus, podPath, withPodCondition } from '../core-v1/pod-status';
import { podKey, type Node, type Pod, type PodCondition } from '../core-v1/types';
import { NODES_PATH, PODS_PATH } from '../core-v1/well-known';
import { missingNodes, terminatedPodsToDelete, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './pod-gc-decisions';

export interface PodGCOptions {
  /** --terminated-pod-gc-threshold: terminated pods kept before the oldest go; 0 keeps them all. */
  terminatedPodThreshold?: number;
  /** How often the collector runs (upstream's gcCheckPeriod). */
  gcCheckPeriodMs?: number;
  /** How long a node must stay missing before its pods are orphans (upstream's quarantineTime). */
  quarantineMs?: number;
}

export const POD_GC_DEFAULTS: Required<PodGCOptions> = {
  terminatedPodThreshold: 12_500,
  gcCheckPeriodMs: 20_000,
  quarantineMs: 40_000,
};

/** Deletes under way at once (the client's rate limit spaces them anyway). */
const DELETE_WORKERS = 8;

const errText = (e: unknown) => (e as Error)?.message ?? String(e);

export class PodGCController implements Controller {
  private readonly opts: Required<PodGCOptions>;
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly nodes: Informer<Node>;
  private readonly pods: Informer<Pod>;
  private readonly loop: PeriodicLoop;
  /** Nodes seen missing, and when to ask the API server whether they really are gone. */
  private readonly quarantine = new Map<string, number>();
  private stopped = false;

  constructor(ctx: ControllerContext, options: PodGCOptions = {}) {
    this.opts = { ...POD_GC_DEFAULTS, ...definedOnly(options) };
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.nodes = ctx.informers.informer<Node>(NODES_PATH);
    this.pods = ctx.informers.informer<Pod>(PODS_PATH);
    this.loop = new PeriodicLoop(this.opts.gcCheckPeriodMs, () => this.gc(), (e) => this.log('Pod GC pass failed', { err: errText(e) }));
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    await Promise.all([this.nodes.start(), this.pods.start()]);
    if (!this.stopped) this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /** One pass, over one snapshot of pods and nodes. */
  private async gc(): Promise<void> {
    const pods = this.pods.list();
    const nodes = new Map(this.nodes.list().map((n) => [n.metadata.name ?? '', n]));
    const terminated = terminatedPodsToDelete(pods, this.opts.terminatedPodThreshold);
    if (terminated.length) {
      this.log('Garbage collecting pods', { numPods: terminated.length });
      await this.deleteAll(terminated);
    }
    await this.deleteAll(terminatingOnOutOfServiceNodes(pods, nodes));
    await this.gcOrphaned(pods, nodes);
    for (const pod of unscheduledTerminating(pods)) {
      if (await this.markFailedAndDelete(pod)) this.log('Forced deletion of unscheduled terminating Pod succeeded', { pod: podKey(pod) });
    }
  }

  private async gcOrphaned(pods: Pod[], nodes: ReadonlyMap<string, Node>): Promise<void> {
    const now = Date.now();
    for (const name of missingNodes(pods, new Set(nodes.keys()))) {
      const due = this.quarantine.get(name);
      // As a delaying queue's AddAfter: a node already waiting keeps the earlier time.
      if (due === undefined || due > now + this.opts.quarantineMs) this.quarantine.set(name, now + this.opts.quarantineMs);
    }
    const gone = new Set<string>();
    for (const [name, due] of [...this.quarantine]) {
      if (due > now || this.stopped) continue;
      this.quarantine.delete(name);
      if (nodes.has(name)) continue;
      try {
        await this.client.get(resourcePath({ version: 'v1', resource: 'nodes', name }));
      } catch (e) {
        if (isNotFound(e)) gone.add(name);
        // Any other error: the node is quarantined again on a later pass, if its pods still point at it.
        else this.log('Error while getting node', { node: name, err: errText(e) });
      }
    }
    const condition = { type: DISRUPTION_TARGET, status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };
    for (const pod of pods) {
      if (!gone.has(pod.spec?.nodeName ?? '')) continue;
      if (await this.markFailedAndDelete(pod, condition)) this.log('Forced deletion of orphaned Pod succeeded', { pod: podKey(pod) });
    }
  }

  private deleteAll(pods: Pod[]): Promise<void> {
    return forEachLimited(pods, DELETE_WORKERS, async (pod) => void (await this.markFailedAndDelete(pod)));
  }

  /** Sets a pod that has not finished Failed (with `condition`, if given), then deletes it with no grace. */
  private async markFailedAndDelete(pod: Pod, condition?: Omit<PodCondition, 'lastTransitionTime'>): Promise<boolean> {
    if (this.stopped) return false;
    this.log('PodGC is force deleting Pod', { pod: podKey(pod) });
    try {
      const phase = pod.status?.phase;
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        const status: { phase: string; conditions?: PodCondition[] } = { phase: 'Failed' };
        if (condition) status.conditions = [withPodCondition(pod.status?.conditions, condition, new Date()).condition];
        await patchPodStatus(this.client, pod, status);
      }
      await this.client.delete(podPath(pod), { gracePeriodSeconds: 0 });
      return true;
    } catch (e) {
      if (!isNotFound(e)) this.log('Failed to delete pod', { pod: podKey(pod), err: errText(e) });
      return false;
    }
  }
}
