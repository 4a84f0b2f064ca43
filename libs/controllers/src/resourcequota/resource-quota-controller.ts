// kube-controller-manager's resource quota controller (pkg/controller/resourcequota): every ResourceQuota's
// status.hard follows spec.hard and status.used is what the namespace's objects use, computed by @cl/api's quota
// evaluators (the ones the ResourceQuota admission plugin charges creates with). Admission raises usage as objects
// are created; this controller lowers it again: a namespace's quotas are recomputed when a quota is new or its
// limits change, when a counted object is deleted, when a pod finishes or its deletion grace period runs out, and
// on every resync (--resource-quota-sync-period). Status is written at the version read, so a newer admission
// charge is never overwritten (the conflict retries with the new version).
import { evaluatorFor, podCountsForCompute, quotaUsage, resourceTotals, toResourceList, type QuotaEvaluator, type QuotaObject } from '@cl/api';
import type { KubeObject } from '@cl/apimachinery';
import { handlersWhile, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { PeriodicLoop } from '../core-v1/loops';
import { collectionPath, discoverResources, supports } from '../discovery/api-resources';
import { errorMessage } from '../workloads/object-reference';
import { runWorkers, WorkQueue } from '../workloads/work-queue';

export interface ResourceQuotaControllerOptions {
  /** --resource-quota-sync-period (upstream 5 min). */
  resyncMs?: number;
  /** --concurrent-resource-quota-syncs (upstream 5). */
  workers?: number;
}

const QUOTAS_PATH = '/api/v1/resourcequotas';
const DEFAULT_RESYNC_MS = 5 * 60_000;

type Quota = QuotaObject & { metadata: { name?: string; namespace?: string; resourceVersion?: string } };
type Counted = KubeObject & { metadata: { name?: string; namespace?: string } };

/** Equal as resource lists: the same names with equal quantities, whatever their spelling ("1000m" is "1"). */
export function sameUsage(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!a || !b) return a === b;
  const x = resourceTotals(a);
  const y = resourceTotals(b);
  if (x.size !== y.size || Object.keys(a).length !== Object.keys(b).length) return false;
  for (const [k, q] of x) {
    const other = y.get(k);
    if (!other || other.cmp(q) !== 0) return false;
  }
  return true;
}

export class ResourceQuotaController implements Controller {
  private readonly client: KubeClient;
  private readonly ctx: ControllerContext;
  private readonly log: ControllerLog;
  private readonly quotas: Informer<Quota>;
  private readonly counted: Array<[QuotaEvaluator, Informer<Counted>]> = [];
  private readonly queue = new WorkQueue();
  private readonly resync: PeriodicLoop;
  private readonly workers: number;
  private running: Promise<void> | undefined;
  private live = false;
  private stopped = false;

  constructor(ctx: ControllerContext, options: ResourceQuotaControllerOptions = {}) {
    this.ctx = ctx;
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.workers = options.workers ?? 5;
    this.quotas = ctx.informers.informer<Quota>(QUOTAS_PATH);
    const needsSync = (q: Quota) => !q.status?.used || !sameUsage(q.status?.hard, q.spec?.hard ?? {});
    const queueIfStale = handlersWhile(() => this.live)((q: Quota) => needsSync(q) && this.enqueue(q));
    this.quotas.on('add', queueIfStale).on('update', queueIfStale);
    this.resync = new PeriodicLoop(options.resyncMs ?? DEFAULT_RESYNC_MS, () => this.enqueueAll(), (e) => this.log('Resync failed', { err: errorMessage(e) }));
  }

  async start(): Promise<void> {
    if (this.live || this.stopped) return;
    // Every namespaced resource quota can count (object counts), as upstream's quota monitors watch them all.
    const resources = (await discoverResources(this.client)).filter((r) => r.namespaced && supports(r, 'list', 'watch'));
    for (const r of resources) {
      const evaluator = evaluatorFor({ group: r.group, resource: r.resource });
      if (!evaluator || (r.group === '' && r.resource === 'resourcequotas')) continue;
      const inf = this.ctx.informers.informer<Counted>(collectionPath(r));
      const isPods = r.group === '' && r.resource === 'pods';
      const live = handlersWhile(() => this.live);
      inf.on('delete', live((o: Counted) => this.enqueue(o)));
      if (isPods) inf.on('update', live((o: Counted) => this.podChanged(o)));
      this.counted.push([evaluator, inf]);
    }
    this.counted.push([evaluatorFor({ group: '', resource: 'resourcequotas' })!, this.quotas as unknown as Informer<Counted>]);
    await Promise.all([this.quotas.start(), ...this.counted.map(([, i]) => i.start())]);
    if (this.stopped) return;
    this.live = true;
    this.running = runWorkers(this.queue, this.workers, (ns) => this.syncNamespace(ns), (ns, err) => this.log('Error syncing resource quota', { namespace: ns, err: errorMessage(err) }));
    this.resync.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.live = false;
    this.queue.shutDown();
    await this.resync.stop();
    await this.running;
  }

  private enqueue(o: { metadata: { namespace?: string } }): void {
    const ns = o.metadata.namespace;
    if (ns && this.quotasIn(ns).length) this.queue.add(ns);
  }

  private enqueueAll(): void {
    for (const q of this.quotas.list()) if (q.metadata.namespace) this.queue.add(q.metadata.namespace);
  }

  /** A finished pod stops counting for compute; one being deleted stops once its grace period has run out. */
  private podChanged(pod: Counted): void {
    const ns = pod.metadata.namespace;
    if (!ns || !this.quotasIn(ns).length) return;
    if (!podCountsForCompute(pod, Date.now())) return this.queue.add(ns);
    const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata as { deletionTimestamp?: string; deletionGracePeriodSeconds?: number | null };
    if (deletionTimestamp && typeof deletionGracePeriodSeconds === 'number') {
      this.queue.addAfter(ns, Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000 + 1000 - Date.now());
    }
  }

  private quotasIn(namespace: string): Quota[] {
    return this.quotas.listNamespace(namespace);
  }

  private async syncNamespace(namespace: string): Promise<void> {
    const now = Date.now();
    for (const q of this.quotasIn(namespace)) {
      const hard = q.spec?.hard ?? {};
      const names = Object.keys(hard);
      const objects: Array<[QuotaEvaluator, KubeObject[]]> = this.counted
        .filter(([e]) => e.matchingResources(names).length)
        .map(([e, inf]) => [e, inf.listNamespace(namespace)]);
      const used = toResourceList(quotaUsage(q, objects, now));
      if (sameUsage(q.status?.hard, hard) && sameUsage(q.status?.used, used)) continue;
      await this.client.update(resourcePath({ version: 'v1', resource: 'resourcequotas', namespace, name: q.metadata.name, subresource: 'status' }), { ...q, status: { hard: { ...hard }, used } });
    }
  }
}
