// The ReplicaSet controller (upstream's pkg/controller/replicaset): for each ReplicaSet, the active pods of its
// namespace that it controls, after adopting matching orphans and releasing pods that no longer match; as many
// pods created (in slow-start batches) or deleted (least useful first) as make the count right; and the status
// written through the status subresource when it changed. Informer events of ReplicaSets and pods queue the
// ReplicaSets they concern; expectations keep a sync from acting on a pod list that lags its own writes.
import { jsonEqual, type LabelSelector } from '@cl/apimachinery';
import { createEventRecorder, eventSinkFor, handlersWhile, isNotFound, resourcePath, type EventRecorder, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { claimObjects, controllerOf, controllersSelecting, resolveControllerRef, selectorOf } from '../workloads/controller-ref';
import { isNamespaceTerminating } from '../core-v1/namespace-terminating';
import { errorMessage, objectReference } from '../workloads/object-reference';
import { isPodActive, isPodReady } from '../workloads/pod-state';
import { keyOf, replicaSetPath, specReplicas, type OwnerReference, type Pod, type ReplicaSet, type ReplicaSetStatus } from '../workloads/types';
import { runWorkers, WorkQueue } from '../workloads/work-queue';
import { PodExpectations } from './expectations';
import { podFromTemplate } from './pod-from-template';
import { podsToDelete } from './pods-to-delete';
import { calculateReplicaSetStatus, replicaSetStatusUnchanged } from './replicaset-status';
import { slowStartBatch, SLOW_START_INITIAL_BATCH_SIZE } from './slow-start';

export const REPLICASETS_PATH = '/apis/apps/v1/replicasets';
export const PODS_PATH = '/api/v1/pods';

export interface ReplicaSetControllerOptions {
  /** ReplicaSets synced at once (kube-controller-manager's --concurrent-replicaset-syncs); default 5. */
  workers?: number;
  /** Pods created or deleted by one sync at most (upstream's BurstReplicas); default 500. */
  burstReplicas?: number;
  /** Where events go; by default a recorder of its own, source component `replicaset-controller`. */
  events?: EventRecorder;
}

const podKey = keyOf;

export class ReplicaSetController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly replicaSets: Informer<ReplicaSet>;
  private readonly pods: Informer<Pod>;
  private readonly queue = new WorkQueue();
  private readonly expectations = new PodExpectations();
  private readonly events: EventRecorder;
  private readonly ownEvents: boolean;
  private readonly workers: number;
  private readonly burstReplicas: number;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(ctx: ControllerContext, opts: ReplicaSetControllerOptions = {}) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.workers = opts.workers ?? 5;
    this.burstReplicas = opts.burstReplicas ?? 500;
    this.replicaSets = ctx.informers.informer<ReplicaSet>(REPLICASETS_PATH);
    this.pods = ctx.informers.informer<Pod>(PODS_PATH);
    this.ownEvents = !opts.events;
    this.events = opts.events ?? createEventRecorder(eventSinkFor(ctx.client), { component: 'replicaset-controller' }, ctx.log ? { log: ctx.log } : {});
    this.watchInformers();
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.replicaSets.start(), this.pods.start()]);
    if (this.stopped || this.running) return;
    // Shared informers may have listed before our handlers were added.
    for (const rs of this.replicaSets.list()) this.queue.add(keyOf(rs));
    this.running = runWorkers(this.queue, this.workers, (key) => this.sync(key), (key, err) => this.log('Error syncing ReplicaSet', { replicaSet: key, err: errorMessage(err) }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.shutDown();
    await this.running;
    if (this.ownEvents) await this.events.stop();
  }

  private watchInformers() {
    // Shared informers cannot drop handlers, so each one checks whether this controller still runs.
    const live = handlersWhile(() => !this.stopped);
    this.replicaSets
      .on('add', live((rs: ReplicaSet) => this.queue.add(keyOf(rs))))
      .on('update', live((rs: ReplicaSet, old: ReplicaSet) => {
        // Deleted and created again under the same name between two events: the old one's expectations go.
        if (rs.metadata.uid !== old.metadata.uid) this.expectations.delete(keyOf(old));
        this.queue.add(keyOf(rs));
      }))
      .on('delete', live((rs: ReplicaSet) => {
        this.expectations.delete(keyOf(rs));
        this.queue.add(keyOf(rs));
      }));
    this.pods
      .on('add', live((pod: Pod) => this.podAdded(pod)))
      .on('update', live((pod: Pod, old: Pod) => this.podUpdated(pod, old)))
      .on('delete', live((pod: Pod) => this.podDeleted(pod)));
  }

  /** The ReplicaSet a controller reference names, if it still exists with that uid. */
  private resolve(namespace: string | undefined, ref: OwnerReference): ReplicaSet | undefined {
    return resolveControllerRef(this.replicaSets, 'ReplicaSet', namespace, ref);
  }

  private podAdded(pod: Pod) {
    // Seen for the first time already being deleted (after a restart): not a creation.
    if (pod.metadata.deletionTimestamp) return this.podDeleted(pod);
    const ref = controllerOf(pod);
    if (ref) {
      const rs = this.resolve(pod.metadata.namespace, ref);
      if (!rs) return;
      this.expectations.creationObserved(keyOf(rs));
      this.queue.add(keyOf(rs));
      return;
    }
    // An orphan: whoever selects it may adopt it. Not a creation anyone waits for.
    for (const rs of controllersSelecting(this.replicaSets.list(), pod)) this.queue.add(keyOf(rs));
  }

  private podUpdated(pod: Pod, old: Pod) {
    if (pod.metadata.resourceVersion === old.metadata.resourceVersion) return;
    const labelsChanged = !jsonEqual(pod.metadata.labels ?? {}, old.metadata.labels ?? {});
    if (pod.metadata.deletionTimestamp) {
      // A graceful delete starts: the ReplicaSet should replace the pod now, not once it is gone.
      this.podDeleted(pod);
      if (labelsChanged) this.podDeleted(old);
      return;
    }
    const ref = controllerOf(pod);
    const oldRef = controllerOf(old);
    const refChanged = !jsonEqual(ref ?? null, oldRef ?? null);
    if (refChanged && oldRef) {
      const previous = this.resolve(old.metadata.namespace, oldRef);
      if (previous) this.queue.add(keyOf(previous));
    }
    if (ref) {
      const rs = this.resolve(pod.metadata.namespace, ref);
      if (!rs) return;
      this.queue.add(keyOf(rs));
      // The pod counts as available minReadySeconds after it became ready; look again then (one second more, for
      // clock skew, as upstream).
      const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(pod) && minReadySeconds > 0) this.queue.addAfter(keyOf(rs), (minReadySeconds + 1) * 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rs of controllersSelecting(this.replicaSets.list(), pod)) this.queue.add(keyOf(rs));
  }

  private podDeleted(pod: Pod) {
    const ref = controllerOf(pod);
    if (!ref) return;
    const rs = this.resolve(pod.metadata.namespace, ref);
    if (!rs) return;
    this.expectations.deletionObserved(keyOf(rs), podKey(pod));
    this.queue.add(keyOf(rs));
  }

  /** One pass over the ReplicaSet `key` (upstream's syncReplicaSet); throws to be retried with back-off. */
  private async sync(key: string): Promise<void> {
    const rs = this.replicaSets.get(key);
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const selector = selectorOf(rs);
    if (!selector) {
      this.log('Invalid selector, the ReplicaSet selects no pods', { replicaSet: key });
      return;
    }
    const namespace = rs.metadata.namespace;
    const active = this.pods.listNamespace(namespace ?? '').filter((p) => isPodActive(p));
    const owned = await this.claimPods(rs, selector, active);
    let manageError: Error | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(owned, rs);
      } catch (e) {
        manageError = e instanceof Error ? e : new Error(String(e));
      }
    }
    const now = Date.now();
    const written = await this.writeStatus(rs, calculateReplicaSetStatus(rs, owned, manageError, now));
    // Pods become available minReadySeconds after they are ready, with no event to say so: look again then.
    const minReadySeconds = written.spec?.minReadySeconds ?? 0;
    const want = specReplicas(written);
    if (!manageError && minReadySeconds > 0 && written.status?.readyReplicas === want && written.status?.availableReplicas !== want) {
      this.queue.addAfter(key, minReadySeconds * 1000);
    }
    if (manageError) throw manageError;
  }

  /** The active pods the ReplicaSet controls once orphans it selects are adopted and others released (ClaimPods). */
  private claimPods(rs: ReplicaSet, selector: LabelSelector, pods: readonly Pod[]): Promise<Pod[]> {
    return claimObjects(this.client, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: rs.metadata, path: replicaSetPath(rs) }, selector, pods, podPath);
  }

  /** Creates or deletes pods so that `pods` (the active pods it owns) reach spec.replicas. */
  private async manageReplicas(pods: readonly Pod[], rs: ReplicaSet): Promise<void> {
    const key = keyOf(rs);
    const diff = pods.length - specReplicas(rs);
    if (diff < 0) {
      const count = Math.min(-diff, this.burstReplicas);
      this.expectations.expectCreations(key, count);
      this.log('Too few replicas', { replicaSet: key, need: specReplicas(rs), creating: count });
      const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, () =>
        // In a terminating namespace every create fails; there is nothing to retry.
        this.createPod(rs).catch((e: unknown) => {
          if (!isNamespaceTerminating(e)) throw e;
        }),
      );
      // Pods never created will never be observed.
      for (let i = successes; i < count; i++) this.expectations.creationObserved(key);
      if (error) throw error;
    } else if (diff > 0) {
      const count = Math.min(diff, this.burstReplicas);
      this.log('Too many replicas', { replicaSet: key, need: specReplicas(rs), deleting: count });
      const victims = podsToDelete(pods, this.indirectlyRelatedPods(rs), count);
      this.expectations.expectDeletions(key, victims.map(podKey));
      const errors = await Promise.all(
        victims.map(async (pod) => {
          try {
            await this.deletePod(rs, pod);
            return undefined;
          } catch (e) {
            this.expectations.deletionObserved(key, podKey(pod));
            return isNotFound(e) ? undefined : e;
          }
        }),
      );
      const error = errors.find((e) => e !== undefined);
      if (error) throw error;
    }
  }

  /** Pods of every ReplicaSet with the same controller as `rs` (a Deployment's): they rank pods doubled up on a node. */
  private indirectlyRelatedPods(rs: ReplicaSet): Pod[] {
    const ref = controllerOf(rs);
    if (!ref) return [];
    const seen = new Set<string>();
    const related: Pod[] = [];
    const siblings = this.replicaSets.list().filter((r) => controllerOf(r)?.uid === ref.uid);
    for (const sibling of siblings) {
      const selector = selectorOf(sibling);
      if (!selector) continue;
      for (const pod of this.pods.list()) {
        if (pod.metadata.namespace !== sibling.metadata.namespace || !selector.matches(pod.metadata.labels ?? {})) continue;
        const uid = pod.metadata.uid ?? podKey(pod);
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }

  private async createPod(rs: ReplicaSet): Promise<void> {
    const ref = objectReference('apps/v1', 'ReplicaSet', rs);
    try {
      const created = await this.client.create<Pod>(resourcePath({ version: 'v1', resource: 'pods', namespace: rs.metadata.namespace }), podFromTemplate(rs));
      this.events.event(ref, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (e) {
      // A terminating namespace refuses every pod; that is no news worth an event.
      if (!isNamespaceTerminating(e)) this.events.event(ref, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(e)}`);
      throw e;
    }
  }

  private async deletePod(rs: ReplicaSet, pod: Pod): Promise<void> {
    const ref = objectReference('apps/v1', 'ReplicaSet', rs);
    try {
      await this.client.delete(podPath(pod));
    } catch (e) {
      if (isNotFound(e)) throw e;
      this.events.event(ref, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(e)}`);
      throw new Error(`unable to delete pods: ${errorMessage(e)}`, { cause: e });
    }
    this.events.event(ref, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }

  /**
   * Writes `status` through the status subresource unless nothing changed, with the generation it was computed
   * from as observedGeneration; a failed write is tried once more on a fresh read (updateReplicaSetStatus).
   */
  private async writeStatus(rs: ReplicaSet, status: ReplicaSetStatus): Promise<ReplicaSet> {
    if (replicaSetStatusUnchanged(rs, status)) return rs;
    const next: ReplicaSetStatus = { ...status, observedGeneration: rs.metadata.generation };
    const path = `${replicaSetPath(rs)}/status`;
    let current = rs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client.update<ReplicaSet>(path, { ...current, apiVersion: 'apps/v1', kind: 'ReplicaSet', status: next });
      } catch (e) {
        if (attempt >= 1) throw e;
        current = await this.client.get<ReplicaSet>(replicaSetPath(rs));
      }
    }
  }
}

/** The ReplicaSet's selector, or undefined for one that cannot be parsed (it then selects nothing). */

function podPath(pod: Pod): string {
  return resourcePath({ version: 'v1', resource: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name });
}
