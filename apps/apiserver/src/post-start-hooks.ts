// Each `poststarthook/<name>` check fails with `not finished` until its step has run in this server. The
// steps run after the listener is up, as upstream runs its hooks after Serve, and each does real start-up
// work against the store (bootstrap objects, registrations), so a green /readyz means this start finished.
import { BootStep } from '@cl/healthz';
import { ConflictError, type Store } from '@cl/store';
import { reconcileBootstrapPolicy } from './authz/bootstrap-reconcile';
import {
  authenticationInfo,
  localApiService,
  systemNamespaces,
  systemPriorityClasses,
  type StoredObject,
} from './bootstrap-objects';

export interface GroupVersion {
  group: string;
  version: string;
}

export interface HookContext {
  store: Store;
  clientCA: string | null;
  /** Group versions this server serves; registered as local APIServices. */
  groupVersions: GroupVersion[];
  log: (line: string) => void;
  /** Extra start-up work other parts of the server attach to a hook (e.g. loading admission plugins). */
  extraSteps?: Partial<Record<HookName, () => Promise<void>>>;
}

/** The seed's hook order (healthz.md Profile A), minus `autoregister-completion`, which is a check of its own. */
export const HOOK_NAMES = [
  'start-cl-apiserver-admission-initializer',
  'generic-apiserver-start-informers',
  'start-apiextensions-informers',
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'bootstrap-controller',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'start-cluster-authentication-info-controller',
  'start-cl-aggregator-informers',
  'apiservice-registration-controller',
  'apiservice-status-available-controller',
  'cl-apiserver-autoregistration',
  'apiservice-openapi-controller',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

async function createIfAbsent(store: Store, objs: StoredObject[]): Promise<number> {
  let created = 0;
  for (const o of objs) {
    try {
      await store.put(o.key, JSON.stringify(o.object), { expectedRevision: 0 });
      created++;
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
    }
  }
  return created;
}

/** What the registration hooks leave behind: the APIServices this server answers for, and their state. */
export class ApiServiceRegistry {
  readonly registered = new Map<string, { group: string; version: string; available: boolean }>();
  discoveryDocument: { groups: string[] } | null = null;

  isComplete(expected: GroupVersion[]): boolean {
    return expected.every((gv) => this.registered.get(`${gv.version}.${gv.group}`)?.available === true);
  }
}

export function createPostStartHooks(ctx: HookContext, registry: ApiServiceRegistry) {
  const steps = new Map<HookName, BootStep>(HOOK_NAMES.map((n) => [n, new BootStep(`poststarthook/${n}`)]));
  const done = new Map<HookName, Promise<void>>();
  const after = (name: HookName) => done.get(name)!;
  const local = ctx.groupVersions.filter((gv) => gv.group !== '');

  const work: Record<HookName, () => Promise<void>> = {
    'start-cl-apiserver-admission-initializer': async () => undefined,
    'generic-apiserver-start-informers': async () => {
      const { revision } = await ctx.store.range('/', { limit: 1 });
      ctx.log(`store answers at revision ${revision}`);
    },
    'start-apiextensions-informers': async () => {
      await ctx.store.range('/apiextensions.k8s.io/customresourcedefinitions/');
    },
    'start-apiextensions-controllers': async () => {
      await after('start-apiextensions-informers');
    },
    'crd-informer-synced': async () => {
      await after('start-apiextensions-informers');
      await after('start-apiextensions-controllers');
    },
    'bootstrap-controller': async () => {
      await createIfAbsent(ctx.store, systemNamespaces());
    },
    'rbac/bootstrap-roles': async () => {
      const n = await reconcileBootstrapPolicy(ctx.store);
      if (n > 0) ctx.log(`reconciled ${n} bootstrap RBAC objects`);
    },
    'scheduling/bootstrap-system-priority-classes': async () => {
      await createIfAbsent(ctx.store, systemPriorityClasses());
    },
    'start-cluster-authentication-info-controller': async () => {
      const obj = authenticationInfo(ctx.clientCA);
      const existing = await ctx.store.get(obj.key);
      // Kept current: a changed --client-ca-file replaces the published CA.
      if (!existing || JSON.stringify(JSON.parse(existing.value.toString()).data) !== JSON.stringify(obj.object.data)) {
        await ctx.store.put(obj.key, JSON.stringify(obj.object));
      }
    },
    'start-cl-aggregator-informers': async () => {
      await ctx.store.range('/apiregistration.k8s.io/apiservices/');
    },
    'cl-apiserver-autoregistration': async () => {
      await after('start-cl-aggregator-informers');
      await createIfAbsent(ctx.store, local.map((gv) => localApiService(gv.group, gv.version)));
    },
    'apiservice-registration-controller': async () => {
      await after('cl-apiserver-autoregistration');
      const { kvs } = await ctx.store.range('/apiregistration.k8s.io/apiservices/');
      for (const kv of kvs) {
        const spec = JSON.parse(kv.value.toString()).spec as GroupVersion;
        registry.registered.set(`${spec.version}.${spec.group}`, { ...spec, available: false });
      }
    },
    'apiservice-status-available-controller': async () => {
      await after('apiservice-registration-controller');
      for (const entry of registry.registered.values()) entry.available = true;
    },
    'apiservice-openapi-controller': async () => {
      await after('apiservice-status-available-controller');
      registry.discoveryDocument = { groups: [...new Set([...registry.registered.values()].map((e) => e.group))].sort() };
    },
  };

  return {
    steps: [...steps.values()],
    /** Starts every hook at once; a failing hook is fatal, as upstream (klog.Fatalf). */
    run(onFatal: (name: string, err: Error) => void): Promise<void> {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      for (const name of HOOK_NAMES) {
        done.set(
          name,
          gate.then(async () => {
            await work[name]();
            await ctx.extraSteps?.[name]?.();
            steps.get(name)!.finish();
          }),
        );
      }
      release();
      return Promise.all(
        HOOK_NAMES.map((n) =>
          done.get(n)!.catch((e: Error) => {
            onFatal(`poststarthook/${n}`, e);
          }),
        ),
      ).then(() => undefined);
    },
  };
}
