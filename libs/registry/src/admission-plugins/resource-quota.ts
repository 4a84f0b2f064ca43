// ResourceQuota (upstream apiserver/pkg/admission/plugin/resourcequota), validating: a create in a namespace with
// quotas must fit every quota that limits it, or it is refused (403) with upstream's message; when it fits, the
// quotas' status.used is raised before the object is stored, as kube-apiserver does, so back-to-back creates see
// each other. Creates in one namespace are checked one at a time; a status write that races another (the quota
// controller) is retried against the fresh quota. The quota controller corrects usage after deletes.
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { AdmissionPlugin } from '../admission';
import type { ResourceStore } from '../resource-store';
import { checkCreate, evaluatorFor, QuotaRefusal, type QuotaObject } from '@cl/api';

const RETRIES = 3;

export function resourceQuotaAdmission(quotas: ResourceStore, now: () => number = Date.now): AdmissionPlugin {
  // Quotas this plugin wrote, newer than the watch cache may be yet (upstream's updatedQuotas look-aside cache).
  const written = new Map<string, QuotaObject>();
  const queues = new Map<string, Promise<void>>();

  const rv = (o: KubeObject | undefined) => Number(o?.metadata?.resourceVersion ?? 0);
  const fromCache = (namespace: string): QuotaObject[] =>
    quotas.cache.list(quotas.key(namespace, '')).items.map(({ object }) => {
      const key = quotas.key(namespace, object.metadata?.name ?? '');
      const mine = written.get(key);
      if (mine && rv(mine) > rv(object)) return mine;
      written.delete(key);
      return object as QuotaObject;
    });

  /** Runs `task` after the namespace's earlier checks, so two creates never both take the last unit. */
  const serially = (namespace: string, task: () => Promise<void>): Promise<void> => {
    const previous = queues.get(namespace) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    queues.set(namespace, tail);
    void tail.then(() => {
      if (queues.get(namespace) === tail) queues.delete(namespace);
    });
    return next;
  };

  const writeStatus = async (q: QuotaObject, used: Record<string, string>) => {
    const namespace = q.metadata?.namespace ?? '';
    const name = q.metadata?.name ?? '';
    const { object } = await quotas.update(
      namespace,
      name,
      (current) => ({ ...current!, metadata: { ...current!.metadata, resourceVersion: q.metadata?.resourceVersion }, status: { hard: q.status?.hard, used } }),
      { subresource: 'status' },
    );
    written.set(quotas.key(namespace, name), object as QuotaObject);
    if (written.size > 100) written.delete(written.keys().next().value!);
  };

  return {
    name: 'ResourceQuota',
    async validate(a) {
      // Subresources and updates change no count this server tracks (upstream's evaluators handle creates).
      if (a.operation !== 'CREATE' || a.subresource !== '' || !a.namespace || !a.object) return;
      const evaluator = evaluatorFor(a.resource);
      // Most namespaces have no quota: they cost one cache look-up, no queueing.
      if (!evaluator || !quotas.cache.list(quotas.key(a.namespace, '')).items.length) return;
      await serially(a.namespace, async () => {
        let pending = fromCache(a.namespace);
        for (let attempt = 0; pending.length; attempt++) {
          let changes;
          try {
            changes = checkCreate(pending, evaluator, a.object!, now());
          } catch (e) {
            if (e instanceof QuotaRefusal) throw apiErrors.forbidden(a.resource, a.name, e.message);
            throw e;
          }
          if (!changes.length || a.dryRun) return;
          const failed = new Set<string>();
          let conflict: unknown;
          for (const c of changes) {
            await writeStatus(c.quota, c.used).catch((e: { code?: number }) => {
              if (e.code === 404) return; // deleted meanwhile: it limits nothing any more
              if (e.code !== 409) throw e;
              failed.add(c.quota.metadata?.name ?? '');
              conflict = e;
            });
          }
          if (!failed.size) return;
          if (attempt >= RETRIES) throw conflict;
          // Another writer (the quota controller) got there first: check the quotas that failed again, as stored now.
          pending = ((await quotas.list(a.namespace)).items as QuotaObject[]).filter((q) => failed.has(q.metadata?.name ?? ''));
        }
      });
    },
  };
}
