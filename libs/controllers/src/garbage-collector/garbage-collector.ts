// kube-controller-manager's garbage collector (pkg/controller/garbagecollector) for ownerReferences: it watches
// every resource the server lets it list, watch and delete (events excepted, as upstream), keeps the owner graph,
// and
// - deletes an object whose owners are all gone (Background, or as the object's own finalizers ask),
// - drops references to gone owners from an object that still has a live one,
// - for an owner deleted with `orphan`: removes the reference from each dependent, then the finalizer,
// - for an owner deleted with `foregroundDeletion`: deletes its dependents (in the foreground when they have
//   dependents of their own) and removes the finalizer once no dependent with blockOwnerDeletion remains.
// An owner absent from the graph is looked up on the server before it is believed gone (informers lag, and kinds
// that cannot be watched are never in the graph), as upstream's virtual nodes are verified.
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, type OwnerReference } from '@cl/apimachinery';
import { isConflict, isNotFound, type Informer, type KubeClient, type SharedInformers } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { collectionPath, discoverResources, objectPath, supports, type ApiResource } from '../discovery/api-resources';
import { errorMessage } from '../workloads/object-reference';
import { runWorkers, WorkQueue } from '../workloads/work-queue';
import { blockingDependents, dependentAction, ownerState, type OwnerState } from './gc-decisions';
import { OwnerGraph, type GraphNode, type GraphObject } from './owner-graph';

export interface GarbageCollectorOptions {
  /** --concurrent-gc-syncs (upstream default 20). */
  workers?: number;
  /** group/resource pairs never collected (upstream ignores events). */
  ignoredResources?: Array<{ group: string; resource: string }>;
}

const IGNORED = [
  { group: '', resource: 'events' },
  { group: 'events.k8s.io', resource: 'events' },
];

export class GarbageCollector implements Controller {
  private readonly client: KubeClient;
  private readonly informers: SharedInformers;
  private readonly log: ControllerLog;
  private readonly graph = new OwnerGraph();
  private readonly queue = new WorkQueue();
  private readonly workers: number;
  private readonly ignored: Array<{ group: string; resource: string }>;
  private resources: ApiResource[] = [];
  private running: Promise<void> | undefined;
  private live = false;
  private stopped = false;

  constructor(ctx: ControllerContext, options: GarbageCollectorOptions = {}) {
    this.client = ctx.client;
    this.informers = ctx.informers;
    this.log = ctx.log ?? (() => undefined);
    this.workers = options.workers ?? 20;
    this.ignored = options.ignoredResources ?? IGNORED;
  }

  async start(): Promise<void> {
    if (this.live || this.stopped) return;
    this.resources = await discoverResources(this.client);
    const watched = this.resources.filter((r) => supports(r, 'list', 'watch', 'delete') && !this.ignored.some((i) => i.group === r.group && i.resource === r.resource));
    const informers = watched.map((r) => this.follow(r));
    await Promise.all(informers.map((i) => i.start()));
    if (this.stopped) return;
    this.live = true;
    // Everything already there is examined once: dependents whose owners went while no collector ran.
    for (const [r, inf] of watched.map((r, i) => [r, informers[i]] as const)) for (const o of inf.list()) this.observe(r, o);
    this.running = runWorkers(this.queue, this.workers, (uid) => this.sync(uid), (uid, err) => this.log('Error syncing item', { uid, err: errorMessage(err) }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    this.queue.shutDown();
    await this.running;
  }

  /** The graph's size (objects known), for tests and metrics. */
  get objects(): number {
    return this.graph.size;
  }

  private follow(r: ApiResource): Informer<GraphObject> {
    const inf = this.informers.informer<GraphObject>(collectionPath(r));
    inf
      .on('add', (o) => this.observe(r, o))
      .on('update', (o) => this.observe(r, o))
      .on('delete', (o) => this.forget(o));
    return inf;
  }

  /** processGraphChanges for an add or update: record it, then queue what the change may concern. */
  private observe(r: ApiResource, o: GraphObject): void {
    const before = this.graph.upsert(r, o);
    if (!this.live) return;
    const uid = o.metadata.uid;
    if (!uid) return;
    const node = this.graph.get(uid)!;
    if (node.owners.length) this.queue.add(uid);
    if (node.deleting && (node.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) || node.finalizers.includes(FINALIZER_DELETE_DEPENDENTS))) {
      this.queue.add(uid);
      // Its dependents learn that their owner now waits for them.
      if (!before?.deleting || !before.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) for (const d of this.graph.dependents(uid)) this.queue.add(d.uid);
    }
    // A dependent that started going (or dropped a reference) may have been what an owner waited for.
    if (before) for (const ref of before.owners) if (this.graph.get(ref.uid)?.deleting) this.queue.add(ref.uid);
  }

  private forget(o: GraphObject): void {
    const node = this.graph.remove(o.metadata.uid);
    if (!node || !this.live) return;
    for (const d of this.graph.dependents(node.uid)) this.queue.add(d.uid);
    for (const ref of node.owners) if (this.graph.get(ref.uid)?.deleting) this.queue.add(ref.uid);
  }

  private async sync(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (node.deleting && node.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)) return this.orphanDependents(node);
    if (node.deleting && node.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) return this.deleteDependentsFirst(node);
    if (!node.owners.length) return;
    const owners: Array<{ ref: OwnerReference; state: OwnerState }> = [];
    for (const ref of node.owners) owners.push({ ref, state: await this.judgeOwner(node, ref) });
    const decision = dependentAction({ deleting: node.deleting, finalizers: node.finalizers, hasDependents: this.graph.dependents(uid).length > 0, owners });
    if (decision.action === 'removeOwnerReferences') {
      await this.setOwnerReferences(node, node.owners.filter((r) => !decision.uids.includes(r.uid)));
    } else if (decision.action === 'delete') {
      this.log('Deleting item', { item: describe(node), propagationPolicy: decision.propagationPolicy });
      await this.deleteNode(node, decision.propagationPolicy);
    }
  }

  /** An owner not in the graph is asked for on the server (by name, then compared by uid). */
  private async judgeOwner(node: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const known = this.graph.get(ref.uid);
    if (known) return ownerState(known, ref);
    const resource = this.resourceOf(ref);
    if (!resource) return 'dangling';
    try {
      const owner = await this.client.get<GraphObject>(objectPath(resource, node.namespace, ref.name));
      return ownerState({ uid: owner.metadata.uid ?? '', deleting: !!owner.metadata.deletionTimestamp, finalizers: owner.metadata.finalizers ?? [] }, ref);
    } catch (e) {
      if (isNotFound(e)) return 'dangling';
      throw e;
    }
  }

  private resourceOf(ref: OwnerReference): ApiResource | undefined {
    const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion];
    return this.resources.find((r) => r.group === group && r.kind === ref.kind && r.version === version) ?? this.resources.find((r) => r.group === group && r.kind === ref.kind);
  }

  private async orphanDependents(owner: GraphNode): Promise<void> {
    const deps = this.graph.dependents(owner.uid);
    for (const d of deps) await this.setOwnerReferences(d, d.owners.filter((r) => r.uid !== owner.uid));
    await this.removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS);
    this.log('Orphaned dependents', { owner: describe(owner), dependents: deps.length });
  }

  private async deleteDependentsFirst(owner: GraphNode): Promise<void> {
    const deps = this.graph.dependents(owner.uid);
    for (const d of deps) if (!d.deleting) this.queue.add(d.uid);
    if (blockingDependents(owner.uid, deps).length === 0) await this.removeFinalizer(owner, FINALIZER_DELETE_DEPENDENTS);
  }

  private async deleteNode(node: GraphNode, propagationPolicy: string): Promise<void> {
    try {
      await this.client.delete(objectPath(node.resource, node.namespace, node.name), { propagationPolicy, preconditions: { uid: node.uid } });
    } catch (e) {
      // Gone already, or a different object of that name now: not ours to delete.
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  private async setOwnerReferences(node: GraphNode, ownerReferences: OwnerReference[]): Promise<void> {
    // A merge patch at the version the graph holds: a change made meanwhile is a conflict, retried with what the
    // informer then delivers, so another writer's reference is never lost.
    await this.patchMetadata(node, { ownerReferences: ownerReferences.length ? ownerReferences : null });
  }

  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const rest = node.finalizers.filter((f) => f !== finalizer);
    await this.patchMetadata(node, { finalizers: rest.length ? rest : null });
  }

  private async patchMetadata(node: GraphNode, fields: Record<string, unknown>): Promise<void> {
    try {
      await this.client.patch(objectPath(node.resource, node.namespace, node.name), { metadata: { ...fields, uid: node.uid, resourceVersion: node.resourceVersion } }, 'merge');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

const describe = (n: GraphNode) => `${n.resource.resource}${n.resource.group ? `.${n.resource.group}` : ''} ${n.namespace ? `${n.namespace}/` : ''}${n.name}`;
