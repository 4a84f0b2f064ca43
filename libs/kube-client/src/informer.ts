// One collection kept in memory by list+watch, as client-go's reflector feeding a shared informer's store:
// list (from the watch cache: resourceVersion=0), then watch from the list's resourceVersion with bookmarks and
// a random timeout of 5-10 minutes; a clean end re-watches from the last resourceVersion; a broken connection
// (the API server restarting) retries the watch with the reflector's backoff, still from the last resourceVersion,
// so nothing is listed again; a 410 (the resourceVersion fell out of the server's history) relists and hands the
// handlers the difference against the store. Handlers run synchronously, once per change, in the server's order.
import { ApiError, isGone } from './api-error';
import { Backoff, sleep } from './backoff';
import type { KubeClient } from './kube-client';
import type { Query } from './resource-path';
import { ClientClosedError } from './token-bucket';
import type { WatchEventType, WatchHandle } from './watch-stream';

export interface InformerObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
}

export type InformerLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface InformerOptions {
  /** The collection: '/api/v1/pods', '/api/v1/namespaces/ns/configmaps', '/apis/coordination.k8s.io/v1/leases'. */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  log?: InformerLog;
  /** Page size of a consistent relist (resourceVersion ""); default 500, as the reflector's pager. */
  pageSize?: number;
  /** Watch timeouts are random in [min, 2 min) seconds; default 300, as the reflector's minWatchTimeout. */
  minWatchTimeoutSeconds?: number;
}

/** The store key of an object: "namespace/name", or "name" for a cluster-scoped one (MetaNamespaceKeyFunc). */
export function objectKey(obj: InformerObject): string {
  const { namespace, name = '' } = obj.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

type Handlers<T> = { add: Array<(obj: T) => void>; update: Array<(obj: T, old: T) => void>; delete: Array<(obj: T) => void> };

/** How a watch ended, for the run loop. */
type WatchOutcome = 'relist-now' | 'relist-after-backoff' | 'stopped';

const VERY_SHORT_WATCH_MS = 1000;

export class Informer<T extends InformerObject> {
  private readonly items = new Map<string, T>();
  /** The store by namespace (client-go's default namespace indexer): a controller's per-namespace list is O(its objects). */
  private readonly byNamespace = new Map<string, Map<string, T>>();
  private readonly handlers: Handlers<T> = { add: [], update: [], delete: [] };
  private readonly stopping = new AbortController();
  private readonly backoff = new Backoff();
  private readonly log: InformerLog;
  private rv = '';
  private synced = false;
  private running = false;
  private current: WatchHandle | null = null;
  private readonly syncedPromise: Promise<void>;
  private markSynced!: () => void;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: InformerOptions,
  ) {
    this.log = opts.log ?? (() => undefined);
    this.syncedPromise = new Promise((resolve) => (this.markSynced = resolve));
  }

  on(event: 'add', fn: (obj: T) => void): this;
  on(event: 'update', fn: (obj: T, old: T) => void): this;
  on(event: 'delete', fn: (obj: T) => void): this;
  on(event: keyof Handlers<T>, fn: (obj: T, old: T) => void): this {
    (this.handlers[event] as Array<(obj: T, old: T) => void>).push(fn);
    return this;
  }

  /** Starts list+watch; resolves once the first list has been delivered to the handlers (or on stop()). */
  start(): Promise<void> {
    if (!this.running && !this.stopping.signal.aborted) {
      this.running = true;
      void this.run();
    }
    return this.syncedPromise;
  }

  stop(): void {
    this.stopping.abort();
    this.current?.stop();
    this.markSynced();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion of the last list, event or bookmark seen. */
  get lastSyncResourceVersion(): string {
    return this.rv;
  }

  list(): T[] {
    return [...this.items.values()];
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  /** The objects of one namespace (a lister's `Pods(ns).List()`). */
  listNamespace(namespace: string): T[] {
    const m = this.byNamespace.get(namespace);
    return m ? [...m.values()] : [];
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async run(): Promise<void> {
    // The reflector lists from the watch cache first ("0"), later from the last resourceVersion it saw; "" (a
    // consistent read) only when the server says that one is gone.
    let relistFrom = '0';
    while (!this.stopped) {
      try {
        await this.relist(relistFrom);
      } catch (e) {
        if (this.stopped || e instanceof ClientClosedError) break;
        this.log('Failed to list', { path: this.opts.path, err: (e as Error).message });
        await sleep(this.backoff.next(), this.stopping.signal);
        continue;
      }
      const outcome = await this.watchUntilRelist();
      if (outcome === 'stopped') break;
      if (outcome === 'relist-after-backoff') await sleep(this.backoff.next(), this.stopping.signal);
      relistFrom = this.rv;
    }
    this.running = false;
  }

  /** Lists at `rv` and delivers the difference to the store; an expired rv falls back to a consistent paged list. */
  private async relist(rv: string): Promise<void> {
    const selectors = { fieldSelector: this.opts.fieldSelector, labelSelector: this.opts.labelSelector };
    const pageSize = this.opts.pageSize ?? 500;
    // As the reflector: rv "0" is served whole from the cache (limit is ignored there); a later rv is listed
    // unpaged so the cache can serve it too; "" pages through the store.
    const query = (at: string): Query => ({ ...selectors, resourceVersion: at, limit: at === '' || at === '0' ? pageSize : undefined });
    let result;
    try {
      result = await this.client.list<T>(this.opts.path, query(rv));
    } catch (e) {
      if (!(isGone(e) || isTooLargeResourceVersion(e)) || rv === '') throw e;
      this.log('Listing again at the latest resourceVersion', { path: this.opts.path, resourceVersion: rv, err: (e as Error).message });
      result = await this.client.list<T>(this.opts.path, query(''));
    }
    if (this.stopped) return;
    this.replace(result.items, result.metadata.resourceVersion);
    if (!this.synced) {
      this.synced = true;
      this.markSynced();
    }
  }

  /** Watches from the last resourceVersion until a relist is due or the informer stops. */
  private async watchUntilRelist(): Promise<WatchOutcome> {
    const min = this.opts.minWatchTimeoutSeconds ?? 300;
    for (let first = true; !this.stopped; first = false) {
      const started = performance.now();
      let events = 0;
      const handle = this.client.watch(
        this.opts.path,
        {
          fieldSelector: this.opts.fieldSelector,
          labelSelector: this.opts.labelSelector,
          resourceVersion: this.rv,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.floor(min + Math.random() * min),
        },
        (type, object: T) => {
          events++;
          this.apply(type, object);
        },
      );
      this.current = handle;
      const err = await handle.done;
      this.current = null;
      if (this.stopped) return 'stopped';
      if (err instanceof ClientClosedError) return 'stopped';
      if (!err) {
        // A clean end is the server's timeout: watch again at once; a watch that ends at once with nothing in
        // it would loop hot, so it waits (the reflector relists there; resuming is cheaper and as correct).
        if (events === 0 && performance.now() - started < VERY_SHORT_WATCH_MS) await sleep(this.backoff.next(), this.stopping.signal);
        continue;
      }
      if (isGone(err)) {
        this.log('Watch expired, relisting', { path: this.opts.path, resourceVersion: this.rv, err: err.message });
        // Expired right after a list, with nothing in between: relisting at once again would loop hot.
        return first && events === 0 ? 'relist-after-backoff' : 'relist-now';
      }
      if (err instanceof ApiError && !(err.code === 429 || err.code >= 500)) {
        this.log('Watch failed, relisting after backoff', { path: this.opts.path, code: err.code, err: err.message });
        return 'relist-after-backoff';
      }
      // Connection refused or reset, 429, 5xx: the server is restarting or busy. The resourceVersion stays good,
      // so watch again from it; right away if this watch delivered something (its next attempt tells), otherwise
      // after the backoff.
      this.log('Watch failed, retrying from the last resourceVersion', { path: this.opts.path, resourceVersion: this.rv, err: err.message });
      if (events === 0) await sleep(this.backoff.next(), this.stopping.signal);
    }
    return 'stopped';
  }

  private apply(type: WatchEventType, obj: T) {
    if (type !== 'ERROR' && !obj?.metadata) {
      this.log('Watch event without metadata ignored', { path: this.opts.path, type });
      return;
    }
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        this.put(obj);
        break;
      case 'DELETED':
        this.remove(objectKey(obj), obj);
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR':
        // The watch ends with it (handle.done); the run loop decides.
        return;
    }
    const rv = obj?.metadata?.resourceVersion;
    if (rv) this.rv = rv;
  }

  /** A list's result against the store: adds, updates where the resourceVersion changed, then deletes. */
  private replace(items: T[], rv: string) {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      if (!old || old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.put(obj);
    }
    for (const [key, old] of [...this.items]) if (!seen.has(key)) this.remove(key, old);
    this.rv = rv;
  }

  private put(obj: T) {
    const key = objectKey(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    (this.byNamespace.get(ns) ?? this.byNamespace.set(ns, new Map()).get(ns)!).set(key, obj);
    if (old) this.emit('update', obj, old);
    else this.emit('add', obj);
  }

  private remove(key: string, last: T) {
    const had = this.items.get(key);
    if (!had) return;
    this.items.delete(key);
    const ns = had.metadata.namespace ?? '';
    const m = this.byNamespace.get(ns);
    m?.delete(key);
    if (m?.size === 0) this.byNamespace.delete(ns);
    this.emit('delete', last);
  }

  private emit(event: keyof Handlers<T>, obj: T, old?: T) {
    for (const fn of this.handlers[event]) {
      try {
        (fn as (o: T, p?: T) => void)(obj, old);
      } catch (e) {
        // One failing handler must not cost the others their events or the store its consistency.
        this.log('Event handler failed', { path: this.opts.path, event, key: objectKey(obj), err: (e as Error)?.message ?? String(e) });
      }
    }
  }
}

function isTooLargeResourceVersion(e: unknown): boolean {
  return e instanceof ApiError && e.code === 504 && JSON.stringify(e.status.details ?? {}).includes('ResourceVersionTooLarge');
}
