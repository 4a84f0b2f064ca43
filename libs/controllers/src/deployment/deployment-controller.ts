// The Deployment controller (upstream's pkg/controller/deployment): Deployments, their ReplicaSets and pods
// come from shared informers; a change queues the Deployment it concerns; a sync claims the ReplicaSets the
// Deployment selects (adopting orphans, releasing what no longer matches) and runs one DeploymentSync pass. It
// never touches pods: the ReplicaSet controller makes each ReplicaSet's pods match its size.
import { jsonEqual, type LabelSelector } from '@cl/apimachinery';
import { createEventRecorder, eventSinkFor, handlersWhile, type EventRecorder, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { claimObjects, controllerOf, controllersSelecting, resolveControllerRef, selectorOf } from '../workloads/controller-ref';
import { errorMessage, objectReference } from '../workloads/object-reference';
import { OwnWrites } from '../workloads/own-writes';
import { keyOf, replicaSetPath, type Deployment, type OwnerReference, type Pod, type ReplicaSet } from '../workloads/types';
import { runWorkers, WorkQueue } from '../workloads/work-queue';
import { PODS_PATH, REPLICASETS_PATH } from '../replicaset/replicaset-controller';
import { deploymentPath, DeploymentSync } from './deployment-sync';
import { RECREATE } from './fenceposts';

export const DEPLOYMENTS_PATH = '/apis/apps/v1/deployments';

export interface DeploymentControllerOptions {
  /** Deployments synced at once (kube-controller-manager's --concurrent-deployment-syncs); default 5. */
  workers?: number;
  /** Where events go; by default a recorder of its own, source component `deployment-controller`. */
  events?: EventRecorder;
}

export class DeploymentController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly deployments: Informer<Deployment>;
  private readonly replicaSets: Informer<ReplicaSet>;
  private readonly pods: Informer<Pod>;
  private readonly queue = new WorkQueue();
  private readonly ownWrites = new OwnWrites();
  private readonly events: EventRecorder;
  private readonly ownEvents: boolean;
  private readonly workers: number;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(ctx: ControllerContext, opts: DeploymentControllerOptions = {}) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.workers = opts.workers ?? 5;
    this.deployments = ctx.informers.informer<Deployment>(DEPLOYMENTS_PATH);
    this.replicaSets = ctx.informers.informer<ReplicaSet>(REPLICASETS_PATH);
    this.pods = ctx.informers.informer<Pod>(PODS_PATH);
    this.ownEvents = !opts.events;
    this.events = opts.events ?? createEventRecorder(eventSinkFor(ctx.client), { component: 'deployment-controller' }, ctx.log ? { log: ctx.log } : {});
    this.watchInformers();
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.deployments.start(), this.replicaSets.start(), this.pods.start()]);
    if (this.stopped || this.running) return;
    for (const d of this.deployments.list()) this.queue.add(keyOf(d));
    this.running = runWorkers(this.queue, this.workers, (key) => this.sync(key), (key, err) => this.log('Error syncing deployment', { deployment: key, err: errorMessage(err) }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.shutDown();
    await this.running;
    if (this.ownEvents) await this.events.stop();
  }

  private watchInformers() {
    const live = handlersWhile(() => !this.stopped);
    const enqueue = (d: Deployment | undefined) => d && this.queue.add(keyOf(d));
    this.deployments
      .on('add', live(enqueue))
      .on('update', live((d: Deployment) => enqueue(d)))
      .on('delete', live((d: Deployment) => {
        this.ownWrites.forget(d.metadata.uid);
        enqueue(d);
      }));
    this.replicaSets
      .on('add', live((rs: ReplicaSet) => this.replicaSetAdded(rs)))
      .on('update', live((rs: ReplicaSet, old: ReplicaSet) => this.replicaSetUpdated(rs, old)))
      .on('delete', live((rs: ReplicaSet) => this.replicaSetDeleted(rs)));
    this.pods.on('delete', live((pod: Pod) => this.podDeleted(pod)));
  }

  private resolve(namespace: string | undefined, ref: OwnerReference): Deployment | undefined {
    return resolveControllerRef(this.deployments, 'Deployment', namespace, ref);
  }

  private replicaSetAdded(rs: ReplicaSet) {
    if (rs.metadata.deletionTimestamp) return this.replicaSetDeleted(rs);
    const ref = controllerOf(rs);
    if (ref) {
      const d = this.resolve(rs.metadata.namespace, ref);
      if (d) this.queue.add(keyOf(d));
      return;
    }
    for (const d of controllersSelecting(this.deployments.list(), rs)) this.queue.add(keyOf(d));
  }

  private replicaSetUpdated(rs: ReplicaSet, old: ReplicaSet) {
    if (rs.metadata.resourceVersion === old.metadata.resourceVersion) return;
    const ref = controllerOf(rs);
    const oldRef = controllerOf(old);
    const refChanged = !jsonEqual(ref ?? null, oldRef ?? null);
    if (refChanged && oldRef) {
      const previous = this.resolve(old.metadata.namespace, oldRef);
      if (previous) this.queue.add(keyOf(previous));
    }
    if (ref) {
      const d = this.resolve(rs.metadata.namespace, ref);
      if (d) this.queue.add(keyOf(d));
      return;
    }
    const labelsChanged = !jsonEqual(rs.metadata.labels ?? {}, old.metadata.labels ?? {});
    if (labelsChanged || refChanged) for (const d of controllersSelecting(this.deployments.list(), rs)) this.queue.add(keyOf(d));
  }

  private replicaSetDeleted(rs: ReplicaSet) {
    this.ownWrites.forget(rs.metadata.uid);
    const ref = controllerOf(rs);
    const d = ref && this.resolve(rs.metadata.namespace, ref);
    if (d) this.queue.add(keyOf(d));
  }

  /** A Recreate Deployment waits for its old pods to go: the last one going is its cue. */
  private podDeleted(pod: Pod) {
    const podRef = controllerOf(pod);
    if (!podRef || podRef.kind !== 'ReplicaSet') return;
    const rs = this.replicaSets.get(`${pod.metadata.namespace ?? ''}/${podRef.name}`);
    if (!rs || rs.metadata.uid !== podRef.uid) return;
    const rsRef = controllerOf(rs);
    const d = rsRef && this.resolve(rs.metadata.namespace, rsRef);
    if (!d || d.spec?.strategy?.type !== RECREATE) return;
    const owned = new Set(this.replicaSets.list().filter((r) => controllerOf(r)?.uid === d.metadata.uid).map((r) => r.metadata.uid));
    const remaining = this.pods.list().some((p) => p.metadata.namespace === d.metadata.namespace && owned.has(controllerOf(p)?.uid));
    if (!remaining) this.queue.add(keyOf(d));
  }

  private async sync(key: string): Promise<void> {
    const d = this.deployments.get(key);
    if (!d) return;
    // The informer still shows what our last pass replaced: the watch event of that write will queue this again.
    if (this.ownWrites.isStale(d)) return;
    const selector = selectorOf(d);
    if (!selector) {
      this.log('Invalid selector, the deployment selects nothing', { deployment: key });
      return;
    }
    if (selector.empty) {
      this.events.event(objectReference('apps/v1', 'Deployment', d), 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        await this.client.update(`${deploymentPath(d)}/status`, { ...d, apiVersion: 'apps/v1', kind: 'Deployment', status: { ...d.status, observedGeneration: d.metadata.generation } });
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d, selector);
    // Not `some`: each lagging ReplicaSet is checked, so the ones caught up are forgotten.
    if (rsList.filter((rs) => this.ownWrites.isStale(rs)).length > 0) return;
    const pass = new DeploymentSync({ client: this.client, ownWrites: this.ownWrites, events: this.events, log: this.log, now: Date.now }, d, rsList, this.podsByReplicaSet(d, selector, rsList));
    await pass.run();
    if (pass.recheckAfterMs !== undefined) this.queue.addAfter(key, Math.max(pass.recheckAfterMs, 1000));
  }

  /** getReplicaSetsForDeployment: the ReplicaSets of the namespace the Deployment controls, after adoption and release. */
  private claimReplicaSets(d: Deployment, selector: LabelSelector): Promise<ReplicaSet[]> {
    const inNamespace = this.replicaSets.listNamespace(d.metadata.namespace ?? '');
    return claimObjects(this.client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: d.metadata, path: deploymentPath(d) }, selector, inNamespace, replicaSetPath);
  }

  /** getPodMapForDeployment: the pods the Deployment selects, by the uid of the ReplicaSet controlling each. */
  private podsByReplicaSet(d: Deployment, selector: LabelSelector, rsList: readonly ReplicaSet[]): Map<string, Pod[]> {
    const byUid = new Map<string, Pod[]>(rsList.map((rs) => [rs.metadata.uid ?? '', []]));
    for (const pod of this.pods.list()) {
      if (pod.metadata.namespace !== d.metadata.namespace || !selector.matches(pod.metadata.labels ?? {})) continue;
      byUid.get(controllerOf(pod)?.uid ?? '\0')?.push(pod);
    }
    return byUid;
  }
}

