// kube-controller-manager's namespace controller (pkg/controller/namespace): a namespace being deleted (its
// deletionTimestamp set, `kubernetes` still in spec.finalizers) is emptied of every namespaced resource the
// server serves (found through discovery: deletecollection where a resource has it, else a delete per object),
// its conditions tell what remains and why, and once nothing remains `kubernetes` is removed through /finalize,
// which completes the deletion. While pods are still terminating it checks again after their grace period, as
// upstream estimates it; unlike upstream it also checks as soon as the last pod of such a namespace is gone
// (the pods informer is shared in this process anyway), so an emptied namespace goes without waiting it out.
import { NAMESPACE_FINALIZER } from '@cl/api';
import { handlersWhile, isConflict, isNotFound, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { NAMESPACES_PATH, PODS_PATH } from '../core-v1/well-known';
import { collectionPath, discoverResources, objectPath, supports, type ApiResource } from '../discovery/api-resources';
import { errorMessage } from '../workloads/object-reference';
import { runWorkers, WorkQueue } from '../workloads/work-queue';
import { mergeConditions, namespaceConditions, type ContentReport, type NamespaceCondition } from './namespace-conditions';

export { NAMESPACE_FINALIZER };
/** How long to wait for content with finalizers before looking again (upstream's finalizerEstimateSeconds). */
const FINALIZER_ESTIMATE_SECONDS = 15;
const DEFAULT_POD_GRACE_SECONDS = 30;
const DISCOVERY_TTL_MS = 30_000;

export interface NamespaceControllerOptions {
  /** --concurrent-namespace-syncs (upstream default 10). */
  workers?: number;
}

interface NamespaceObject {
  metadata: { name?: string; namespace?: string; deletionTimestamp?: string; finalizers?: string[]; resourceVersion?: string; uid?: string };
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

interface PodObject {
  metadata: { name?: string; namespace?: string; deletionTimestamp?: string; finalizers?: string[] };
  spec?: { terminationGracePeriodSeconds?: number };
  status?: { phase?: string };
}

interface ItemList {
  items?: Array<{ metadata?: { name?: string; finalizers?: string[] } }>;
}

export class NamespaceController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly namespaces: Informer<NamespaceObject>;
  private readonly pods: Informer<PodObject>;
  private readonly queue = new WorkQueue();
  private readonly workers: number;
  private discovered: { at: number; resources: ApiResource[] } | undefined;
  private running: Promise<void> | undefined;
  private live = false;

  constructor(ctx: ControllerContext, options: NamespaceControllerOptions = {}) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.workers = options.workers ?? 10;
    this.namespaces = ctx.informers.informer<NamespaceObject>(NAMESPACES_PATH);
    this.pods = ctx.informers.informer<PodObject>(PODS_PATH);
    const live = handlersWhile(() => this.live);
    const queueIfDeleting = live((ns: NamespaceObject) => {
      if (ns.metadata.deletionTimestamp && ns.metadata.name) this.queue.add(ns.metadata.name);
    });
    this.namespaces.on('add', queueIfDeleting).on('update', queueIfDeleting);
    this.pods.on('delete', live((pod: PodObject) => {
      const ns = pod.metadata.namespace ? this.namespaces.get(pod.metadata.namespace) : undefined;
      if (ns?.metadata.deletionTimestamp && !this.pods.list().some((p) => p.metadata.namespace === ns.metadata.name)) this.queue.add(ns.metadata.name!);
    }));
  }

  async start(): Promise<void> {
    if (this.live) return;
    await Promise.all([this.namespaces.start(), this.pods.start()]);
    this.live = true;
    for (const ns of this.namespaces.list()) if (ns.metadata.deletionTimestamp && ns.metadata.name) this.queue.add(ns.metadata.name);
    this.running = runWorkers(this.queue, this.workers, (name) => this.sync(name), (name, err) => this.log('Error syncing namespace', { namespace: name, err: errorMessage(err) }));
  }

  async stop(): Promise<void> {
    this.live = false;
    this.queue.shutDown();
    await this.running;
  }

  private async sync(name: string): Promise<void> {
    let ns: NamespaceObject;
    try {
      ns = await this.client.get<NamespaceObject>(resourcePath({ version: 'v1', resource: 'namespaces', name }));
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if (ns.status?.phase !== 'Terminating') ns = await this.writeStatus(ns, { ...ns.status, phase: 'Terminating' });
    if (!(ns.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) return;

    const { report, estimateSeconds } = await this.deleteAllContent(ns);
    const conditions = mergeConditions(ns.status?.conditions, namespaceConditions(report), new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    if (conditions) ns = await this.writeStatus(ns, { ...ns.status, conditions });
    if (report.discoveryFailures.length || report.deletionFailures.length) {
      throw new Error(`content of namespace ${name} not deleted: ${[...report.discoveryFailures, ...report.deletionFailures].join('; ')}`);
    }
    if (report.remainingResources.size > 0) {
      // Content is going away on its own schedule (graceful pod termination, finalizers): look again then.
      this.queue.addAfter(name, Math.max(1, estimateSeconds) * 1000);
      return;
    }
    await this.finalize(ns);
    this.log('Namespace has been deleted', { namespace: name });
  }

  private async deleteAllContent(ns: NamespaceObject): Promise<{ report: ContentReport; estimateSeconds: number }> {
    const name = ns.metadata.name!;
    const report: ContentReport = { discoveryFailures: [], deletionFailures: [], remainingResources: new Map(), remainingFinalizers: new Map() };
    let resources: ApiResource[];
    try {
      resources = await this.resources();
    } catch (e) {
      report.discoveryFailures.push(errorMessage(e));
      return { report, estimateSeconds: 0 };
    }
    let estimateSeconds = 0;
    const deletedAt = Date.parse(ns.metadata.deletionTimestamp!);
    for (const r of resources.filter((x) => x.namespaced && supports(x, 'delete'))) {
      const gr = `${r.resource}.${r.group}`;
      try {
        let estimate = r.group === '' && r.resource === 'pods' ? this.podGraceEstimate(name) : 0;
        // A grace period that has run out since the namespace was deleted is no reason to wait any longer.
        if (estimate > 0 && Date.now() - deletedAt >= estimate * 1000) estimate = 0;
        if (supports(r, 'deletecollection')) await this.client.delete(collectionPath(r, name), { propagationPolicy: 'Background' });
        else if (supports(r, 'list')) for (const item of (await this.client.get<ItemList>(collectionPath(r, name))).items ?? []) await this.deleteOne(r, name, item.metadata?.name ?? '');
        if (!supports(r, 'list')) continue;
        const left = (await this.client.get<ItemList>(collectionPath(r, name))).items ?? [];
        if (left.length === 0) continue;
        report.remainingResources.set(gr, left.length);
        const finalizers = left.flatMap((i) => i.metadata?.finalizers ?? []);
        for (const f of finalizers) report.remainingFinalizers.set(f, (report.remainingFinalizers.get(f) ?? 0) + 1);
        if (estimate > 0) estimateSeconds = Math.max(estimateSeconds, estimate);
        else if (finalizers.length > 0) estimateSeconds = Math.max(estimateSeconds, FINALIZER_ESTIMATE_SECONDS);
        else report.deletionFailures.push(`unexpected items still remain in namespace: ${name} for gvr: ${r.group}/${r.version}, Resource=${r.resource}`);
      } catch (e) {
        report.deletionFailures.push(`${gr}: ${errorMessage(e)}`);
      }
    }
    return { report, estimateSeconds };
  }

  private async deleteOne(r: ApiResource, namespace: string, name: string): Promise<void> {
    try {
      await this.client.delete(objectPath(r, namespace, name), { propagationPolicy: 'Background' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** The longest grace period of the namespace's pods still running (upstream's estimateGracefulTerminationForPods). */
  private podGraceEstimate(namespace: string): number {
    let estimate = 0;
    for (const p of this.pods.list()) {
      if (p.metadata.namespace !== namespace || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      estimate = Math.max(estimate, p.spec?.terminationGracePeriodSeconds ?? DEFAULT_POD_GRACE_SECONDS);
    }
    return estimate;
  }

  private async resources(): Promise<ApiResource[]> {
    if (!this.discovered || Date.now() - this.discovered.at > DISCOVERY_TTL_MS) this.discovered = { at: Date.now(), resources: await discoverResources(this.client) };
    return this.discovered.resources;
  }

  private async writeStatus(ns: NamespaceObject, status: NonNullable<NamespaceObject['status']>): Promise<NamespaceObject> {
    return this.client.update<NamespaceObject>(resourcePath({ version: 'v1', resource: 'namespaces', name: ns.metadata.name, subresource: 'status' }), { ...ns, status });
  }

  private async finalize(ns: NamespaceObject): Promise<void> {
    const path = resourcePath({ version: 'v1', resource: 'namespaces', name: ns.metadata.name, subresource: 'finalize' });
    let current = ns;
    for (;;) {
      const finalizers = (current.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
      try {
        await this.client.update(path, { ...current, spec: { ...current.spec, finalizers } });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e)) throw e;
        // Someone else wrote it meanwhile (another finalizer went): read it again and retry, as upstream does.
        try {
          current = await this.client.get<NamespaceObject>(resourcePath({ version: 'v1', resource: 'namespaces', name: ns.metadata.name }));
        } catch (e2) {
          if (isNotFound(e2)) return;
          throw e2;
        }
      }
    }
  }
}
