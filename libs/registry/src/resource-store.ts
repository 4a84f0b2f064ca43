// The generic store of one resource (upstream's genericregistry.Store): objects as JSON under
// `/<resource>/<namespace>/<name>` in libs/store, every write an optimistic transaction on the object's
// revision, the store revision as resourceVersion, and reads of many objects served from the resource's watch
// cache. What differs per kind comes from its Strategy; what admission plugins decide comes from `admit`.
import { randomUUID } from 'node:crypto';
import {
  apiErrors,
  decodeContinue,
  encodeContinue,
  fieldErrors,
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
  generateName,
  isValidPathSegmentName,
  metaTime,
  FieldPath,
  GoLiteral,
  type DeleteOptions,
  type FieldError,
  type GroupResource,
  type KubeObject,
  type ObjectMeta,
} from '@cl/apimachinery';
import { apiVersionOf, type KindDefinition } from '@cl/api';
import { CompactedError, ConflictError, FutureRevisionError, type KeyValue, type LeaseManager, type Store } from '@cl/store';
import { watchFromStore } from './uncached-watch';
import { WatchCache, type CachedObject, type CacheWatch } from './watch-cache';
import type { Strategy } from './strategy';
import type { Admission, Operation } from './admission';
import { validateMetadata, validateMetadataUpdate } from './validate-metadata';
import { jsonEqual } from '@cl/apimachinery';
import { FieldManager } from '@cl/field-manager';

export interface ListOptions {
  /** Objects pass when this holds (label and field selectors, compiled by the caller). */
  filter?: (object: KubeObject) => boolean;
  /** Whether a filter is set (a page then scans past non-matching keys). */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  /** The items are the watch cache's own objects (the same instances until they change), not decoded for this list. */
  fromCache?: boolean;
}

export interface WatchOptions {
  filter?: (object: KubeObject) => boolean;
  /** The value of the kind's watch index field that `filter` requires (see Strategy.watchIndexField). */
  index?: string;
  resourceVersion?: string;
  bookmarkIntervalMs?: number;
  /** ADDED for the state at resourceVersion or later, then a BOOKMARK marking the end of them (WatchList). */
  sendInitialEvents?: boolean;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** `status` for `<resource>/status` writes, a view's name (`scale`) for its writes; '' for the main resource. */
  subresource?: string;
  /** Who asks, for admission plugins. */
  user?: unknown;
  /** PATCH never creates, even where a PUT may (allowCreateOnUpdate); an apply always may (true). */
  allowCreate?: boolean;
  /** Who the write's fields are recorded for in metadata.managedFields ('' when nobody says). */
  fieldManager?: string;
  /** The object's managedFields were decided by a server-side apply already: not recorded again as an update. */
  applied?: boolean;
}

/** A kind kept in another kind's storage (events.k8s.io/v1 events are stored as core/v1 events), converted both ways. */
export interface StorageConversion {
  /** The resource whose keys hold the objects (`events`). */
  resource: string;
  /** The kind stored (core v1 Event), which discovery's storageVersionHash names. */
  storageVersion: { group: string; version: string; kind: string };
  /** The stored object (apiVersion and kind of the storage version) as this kind. */
  fromStored(stored: KubeObject): KubeObject;
  /** This kind as the stored object, with the storage version's apiVersion and kind. */
  toStored(object: KubeObject): KubeObject;
}

export interface ResourceStoreOptions {
  storage?: StorageConversion;
  leases?: LeaseManager;
  log?: (line: string) => void;
  admission?: Admission;
  /** Watch cache window (events kept for watches resuming from a past resourceVersion). */
  cacheCapacity?: number;
  /**
   * false: no watch cache; lists read the store and each watch is a store watch of its own (upstream's
   * `--watch-cache-sizes` resource#0, its default for events).
   */
  watchCache?: boolean;
  /** false: writes record no metadata.managedFields (only the bench turns it off, to measure what it costs). */
  fieldManagement?: boolean;
}

/** A read at a revision the store (or the cache) has not reached: upstream's 504 "Too large resource version". */
const tooLargeResourceVersion = (requested: number | undefined, current: number | string) =>
  apiErrors.timeout(`Too large resource version: ${requested}, current: ${current}`, 1, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);

/** A stored object's revision as the decimal string clients see. */
export const rvOf = (o: KubeObject): string | undefined => o.metadata?.resourceVersion;

const clone = <T>(v: T): T => structuredClone(v);
const MAX_UNCONDITIONAL_RETRIES = 16;

export class ResourceStore {
  readonly gr: GroupResource;
  private readonly watchCache: WatchCache<KubeObject> | null;
  private readonly prefix: string;
  private readonly apiVersion: string;
  /** Without a cache: the last count of the resource's keys, and the count under way. */
  private counted = 0;
  private counting: Promise<void> | null = null;
  private readonly storeWatches = new Set<CacheWatch<KubeObject>>();
  private fieldManagerOfKind: FieldManager | null = null;

  constructor(
    readonly def: KindDefinition,
    private readonly store: Store,
    readonly strategy: Strategy,
    private readonly opts: ResourceStoreOptions = {},
  ) {
    this.gr = { group: def.group, resource: def.plural };
    this.prefix = `/${opts.storage?.resource ?? def.plural}/`;
    this.apiVersion = apiVersionOf(def);
    this.watchCache =
      opts.watchCache === false ? null : new WatchCache<KubeObject>(store, this.prefix, {
            decode: (kv) => this.decode(kv),
            capacity: opts.cacheCapacity,
            log: opts.log,
            indexOf: strategy.watchIndexField ? strategy.fields?.[strategy.watchIndexField] : undefined,
          });
  }

  /** The kind's field manager (built on first use), or null where field management is off. */
  get fieldManager(): FieldManager | null {
    if (this.opts.fieldManagement === false) return null;
    // A kind with a status subresource: its main resource's writes own no status, its status writes no spec
    // (upstream's reset fields; the strategies reset those fields on such writes anyway).
    const ignoredFields = this.def.subresources.includes('status') ? { '': ['status'], status: ['spec'] } : undefined;
    return (this.fieldManagerOfKind ??= new FieldManager({ schema: this.def.schema, apiVersion: this.apiVersion, ignoredFields }));
  }

  /** Records the write's fields in `object`'s managedFields (not for an apply, which decided them itself). */
  private manageFields(current: KubeObject | null, object: KubeObject, opts: WriteOptions) {
    const fm = this.fieldManager;
    if (!fm) {
      delete object.metadata?.managedFields;
      return;
    }
    if (!opts.applied) fm.update(current as Record<string, unknown> | null, object as Record<string, unknown>, { manager: opts.fieldManager ?? '', subresource: opts.subresource ?? '' });
  }

  /** The resource's watch cache, for in-process readers of a cached resource (a programming error to ask otherwise). */
  get cache(): WatchCache<KubeObject> {
    if (!this.watchCache) throw new Error(`${this.def.plural}: not kept in the watch cache`);
    return this.watchCache;
  }

  get cached(): boolean {
    return this.watchCache !== null;
  }

  start(): Promise<void> {
    return this.watchCache ? this.watchCache.start() : this.refreshCount();
  }

  /** The admission chain writes go through (set once every store exists, since plugins read other resources). */
  setAdmission(admission: Admission): void {
    this.opts.admission = admission;
  }

  stop(): void {
    this.watchCache?.stop();
    for (const w of this.storeWatches) w.close();
  }

  key(namespace: string, name: string): string {
    // As upstream's key functions: a name that is not one path segment never reaches the store.
    const invalid = isValidPathSegmentName(name);
    if (invalid.length) throw apiErrors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${invalid.join(';')}`);
    return this.def.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  /** The key prefix of a list: one namespace, or every object of the resource. */
  private listPrefix(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  decode(kv: KeyValue): KubeObject {
    const parsed = JSON.parse(kv.value.toString('utf8')) as KubeObject;
    const object = this.opts.storage ? this.opts.storage.fromStored(parsed) : parsed;
    object.apiVersion = this.apiVersion;
    object.kind = this.def.kind;
    (object.metadata ??= {}).resourceVersion = String(kv.modRevision);
    return object;
  }

  private encode(object: KubeObject): string {
    // The revision is the store's to give: never stored inside the value (as upstream's etcd3 store).
    const { resourceVersion: _rv, ...meta } = object.metadata ?? {};
    // Empty lists and maps of metadata are absent, as Go's omitempty writes them (`label x-` leaves no `labels: {}`).
    for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      const v = meta[k];
      if (v !== undefined && (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0)) delete meta[k];
    }
    const typed = { ...object, apiVersion: this.apiVersion, kind: this.def.kind, metadata: meta };
    return JSON.stringify(this.opts.storage ? this.opts.storage.toStored(typed) : typed);
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    const kv = await this.store.get(this.key(namespace, name));
    if (!kv) throw apiErrors.notFound(this.gr, name);
    return this.decode(kv);
  }

  /**
   * How many objects the resource holds (apiserver_storage_objects). Without a cache, the last count from the
   * store; asking starts the next one (the metric is collected periodically, as upstream counts from etcd).
   */
  get size(): number {
    if (this.watchCache) return this.watchCache.size;
    void this.refreshCount();
    return this.counted;
  }

  private refreshCount(): Promise<void> {
    this.counting ??= this.store
      .count(this.prefix)
      .then(
        (c) => void (this.counted = c.count),
        () => undefined,
      )
      .finally(() => (this.counting = null));
    return this.counting;
  }

  async list(namespace: string, opts: ListOptions = {}): Promise<ListResult> {
    const { resourceVersion: rv, resourceVersionMatch: match } = opts;
    const errs: FieldError[] = [];
    if (match && !rv) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (match && opts.continue) errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match && match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan']));
    if (match === 'Exact' && rv === '0') errs.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    if (errs.length) throw apiErrors.invalid('meta.k8s.io', 'ListOptions', '', errs);
    const revision = rv ? parseRevision(rv) : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;

    if (opts.continue) {
      const token = decodeContinue(opts.continue);
      return this.listFromStore(namespace, opts, limit, token.revision, token.start, true);
    }
    // Exact reads, and pages of a list that is not "any state" (rv=0), come from the store at one revision;
    // everything else from the watch cache (upstream's delegator rules).
    if (match === 'Exact' || (limit > 0 && rv !== '0' && match !== 'NotOlderThan')) {
      return this.listFromStore(namespace, opts, limit, revision, '', false);
    }
    if (!this.watchCache) {
      // Uncached: the newest state, which is at least any revision asked for unless that is still to come.
      const result = await this.listFromStore(namespace, opts, limit, undefined, '', false);
      if (revision !== undefined && rv !== '0' && revision > Number(result.resourceVersion)) {
        throw tooLargeResourceVersion(revision, result.resourceVersion);
      }
      return result;
    }
    if (rv !== '0') {
      // Unset: a consistent read, as fresh as the store now; NotOlderThan N: at least N.
      const wanted = revision ?? (await this.store.currentRevision());
      try {
        // A consistent read waits for the cache only where the store answers progress requests (upstream's
        // ConsistentReadSupported); elsewhere (etcd before 3.4.31 / 3.5.13) the cache gets there only with the
        // resource's next change, so a cache behind the store is not waited for.
        const supported = revision !== undefined || (await this.cache.consistentReadsSupported());
        await this.freshCache(wanted, supported ? undefined : 0);
      } catch (e) {
        // As upstream's consistent reads from the cache: one the cache cannot serve in time (its store watch behind
        // a busy etcd) is read from the store instead of failing; only an explicit resourceVersion stays a 504.
        if (revision === undefined) return this.listFromStore(namespace, opts, 0, undefined, '', false);
        throw e;
      }
    } else {
      await this.cache.start();
    }
    const { items, revision: at } = this.cache.list(this.listPrefix(namespace));
    const out: KubeObject[] = [];
    for (const item of items) if (!opts.filter || opts.filter(item.object)) out.push(item.object);
    return { items: out, resourceVersion: String(at), fromCache: true };
  }

  private async freshCache(revision: number, timeoutMs?: number): Promise<void> {
    await this.cache.start();
    try {
      await this.cache.waitUntilFresh(revision, timeoutMs);
    } catch {
      throw tooLargeResourceVersion(revision, this.cache.revision);
    }
  }

  private async listFromStore(namespace: string, opts: ListOptions, limit: number, revision: number | undefined, start: string, continuing: boolean): Promise<ListResult> {
    const prefix = this.listPrefix(namespace);
    const items: KubeObject[] = [];
    let startKey = start ? prefix + start : undefined;
    let at = revision;
    for (;;) {
      let page;
      try {
        page = await this.store.range(prefix, { revision: at, startKey, limit: limit ? Math.max(limit - items.length, 1) * (opts.filter ? 2 : 1) : 0 });
      } catch (e) {
        if (e instanceof CompactedError) {
          throw apiErrors.resourceExpired(
            continuing
              ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'
              : 'The resourceVersion for the provided list is too old.',
          );
        }
        if (e instanceof FutureRevisionError) throw tooLargeResourceVersion(revision, e.currentRevision);
        throw e;
      }
      at = page.revision;
      for (let i = 0; i < page.kvs.length; i++) {
        const object = this.decode(page.kvs[i]);
        if (opts.filter && !opts.filter(object)) continue;
        items.push(object);
        if (limit && items.length === limit) {
          const more = i < page.kvs.length - 1 || page.more;
          const next = more ? encodeContinue({ revision: at, start: page.kvs[i].key.slice(prefix.length) + '\0' }) : undefined;
          return { items, resourceVersion: String(at), ...(next ? { continue: next } : {}) };
        }
      }
      if (!page.more) return { items, resourceVersion: String(at) };
      startKey = page.kvs[page.kvs.length - 1].key + '\0';
    }
  }

  /** A watch from the cache (or the store); the caller turns TooOld/TooLarge errors into upstream's ERROR events. */
  async watch(namespace: string, opts: WatchOptions = {}): Promise<CacheWatch<KubeObject>> {
    const rv = opts.resourceVersion;
    const at = rv && rv !== '0' ? parseRevision(rv) : undefined;
    if (!this.watchCache) {
      // The store watch covers just the namespace's keys; `afterRevision` 0 lists first, as rv unset or 0 does.
      const w: CacheWatch<KubeObject> = watchFromStore(
        this.store,
        this.listPrefix(namespace),
        (kv) => this.decode(kv),
        { afterRevision: opts.sendInitialEvents ? undefined : at, filter: opts.filter, bookmarkIntervalMs: opts.bookmarkIntervalMs, initialEventsEnd: opts.sendInitialEvents },
        () => void this.storeWatches.delete(w),
      );
      this.storeWatches.add(w);
      return w;
    }
    // As upstream's cacher: a watch from a resourceVersion the cache has not reached yet starts at once and gets the
    // changes after it as they come; only the initial events of sendInitialEvents wait for that state.
    if (at !== undefined && opts.sendInitialEvents) await this.freshCache(at);
    else await this.cache.start();
    const after = opts.sendInitialEvents ? undefined : at;
    const from = this.listPrefix(namespace);
    const filter = opts.filter;
    const inScope = from === this.prefix ? filter : (o: KubeObject) => (o.metadata?.namespace ?? '') === namespace && (!filter || filter(o));
    return this.cache.watch({ afterRevision: after, filter: inScope, index: opts.index, bookmarkIntervalMs: opts.bookmarkIntervalMs, initialEventsEnd: opts.sendInitialEvents });
  }

  async create(namespace: string, input: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const object = input;
    const meta: ObjectMeta = (object.metadata ??= {});
    if (this.def.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      meta.namespace = namespace;
    }
    if (meta.resourceVersion && meta.resourceVersion !== '0') throw apiErrors.badRequest('resourceVersion should not be set on objects to be created');
    delete meta.resourceVersion;
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateName(meta.generateName!);
    meta.uid = randomUUID();
    meta.creationTimestamp = metaTime();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    object.apiVersion = this.apiVersion;
    object.kind = this.def.kind;
    await this.opts.admission?.mutate(this.attributes('CREATE', object, null, opts));
    this.strategy.prepareForCreate?.(object);
    this.check([...validateMetadata(meta, this.def.namespaced, this.strategy), ...(this.strategy.validate?.(object) ?? [])], object);
    await this.opts.admission?.validate(this.attributes('CREATE', object, null, opts));
    this.manageFields(null, object, opts);
    if (opts.dryRun) return object;
    const ttl = this.strategy.ttlSeconds?.(object);
    const lease = ttl && this.opts.leases ? await this.opts.leases.leaseFor(ttl) : undefined;
    // A generated name that is taken is generated again (upstream's RetryGenerateName, GA in 1.32): 5 random
    // characters collide often enough in a busy namespace to matter.
    for (let attempt = 0; ; attempt++) {
      try {
        const { revision } = await this.store.put(this.key(namespace, meta.name!), this.encode(object), { expectedRevision: 0, lease });
        meta.resourceVersion = String(revision);
        return object;
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        if (!generated || attempt >= 7) throw apiErrors.alreadyExists(this.gr, meta.name!);
        meta.name = generateName(meta.generateName!);
      }
    }
  }

  /**
   * A read-modify-write (upstream's GuaranteedUpdate): `apply` turns the current object into the new one (a PUT
   * body, a patch). A resourceVersion in the result that is not the current one is a 409; without one the
   * update is unconditional and retried when another write races it.
   */
  async update(namespace: string, name: string, apply: (current: KubeObject | null) => KubeObject, opts: WriteOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    // As upstream's GuaranteedUpdate through the cacher: the first attempt starts from the watch cache's copy (no
    // store read). That copy may be behind the store; whatever it would decide only because it is behind (a 409,
    // a precondition, a no-op) is decided again on a state read from the store, and the write itself is
    // conditional on the copy's revision, so a stale copy never overwrites a newer state.
    let cached = this.watchCache?.get(key);
    for (let reads = 0; ; ) {
      const fromCache = cached !== undefined;
      const state = cached ?? (reads++, await this.readState(key));
      cached = undefined;
      if (!state) {
        if ((!this.strategy.allowCreateOnUpdate && opts.allowCreate !== true) || opts.allowCreate === false || opts.subresource) throw apiErrors.notFound(this.gr, name);
        const fresh = apply(null);
        if (fresh.metadata?.name !== name) throw apiErrors.badRequest(`the name of the object (${fresh.metadata?.name ?? ''}) does not match the name on the URL (${name})`);
        return { object: await this.create(namespace, fresh, opts), created: true };
      }
      // The cache's copy is shared with every reader: never handed to code that may change it.
      const current = fromCache ? clone(state.object) : state.object;
      const object = apply(clone(current));
      const meta: ObjectMeta = (object.metadata ??= {});
      // "0" reads as no resourceVersion (upstream's versioner parses both as 0): an unconditional update where the
      // kind allows one (AllowUnconditionalUpdate), else upstream's 422.
      const requested = meta.resourceVersion === '0' ? undefined : meta.resourceVersion;
      if (!requested && this.strategy.allowUnconditionalUpdate === false) {
        throw apiErrors.invalid(this.def.group, this.def.plural, name, [fieldErrors.invalid('metadata.resourceVersion', new GoLiteral('0x0'), 'must be specified for an update')]);
      }
      if (requested && requested !== current.metadata!.resourceVersion) {
        if (fromCache) continue;
        throw apiErrors.modified(this.gr, name);
      }
      if (meta.name !== undefined && meta.name !== name) throw apiErrors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
      if (this.def.namespaced && meta.namespace && meta.namespace !== namespace) throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      if (meta.uid && meta.uid !== current.metadata!.uid) {
        if (fromCache) continue;
        throw apiErrors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${current.metadata!.uid}`);
      }
      this.keepServerFields(object, current);
      // An apply's managedFields are its result: kept through the strategies' metadata resets (status writes).
      const applied = opts.applied ? meta.managedFields : undefined;
      await this.opts.admission?.mutate(this.attributes('UPDATE', object, current, opts));
      // An update without a resourceVersion is unconditional: it applies to the state just read.
      meta.resourceVersion = current.metadata!.resourceVersion;
      const errs = [...validateMetadataUpdate(meta, current.metadata!, this.def.namespaced, this.strategy)];
      const view = opts.subresource ? this.strategy.views?.[opts.subresource] : undefined;
      if (opts.subresource === 'status') {
        this.strategy.prepareForStatusUpdate?.(object, current);
        errs.push(...(this.strategy.validateStatusUpdate?.(object, current) ?? []));
      } else if (opts.subresource && !view) {
        // Other subresources (a namespace's /finalize) changed only their own fields in `apply`.
        errs.push(...(this.strategy.validate?.(object) ?? []));
      } else {
        // The main resource, and views (scale, ephemeralcontainers): their writes are updates of it, checked by the
        // view's own rules where it has them.
        this.strategy.prepareForUpdate?.(object, current);
        const validateUpdate = view?.validateUpdate ?? this.strategy.validateUpdate;
        errs.push(...(validateUpdate?.(object, current) ?? this.strategy.validate?.(object) ?? []));
      }
      this.check(errs, object);
      await this.opts.admission?.validate(this.attributes('UPDATE', object, current, opts));
      if (applied) object.metadata!.managedFields = applied;
      this.manageFields(current, object, opts);
      // A write that changes nothing is not written (no new revision, no watch event), as upstream; only a state
      // read from the store can show that (the cache's copy may be behind a change this would undo).
      if (jsonEqual(object, current)) {
        if (fromCache) continue;
        return { object: current, created: false };
      }
      if (opts.dryRun) return { object, created: false };
      // Removing the last finalizer of an object being deleted completes its deletion.
      if (meta.deletionTimestamp && !meta.finalizers?.length && !this.strategy.beforeDelete?.(clone(object))) {
        try {
          const { revision } = await this.store.delete(key, { expectedRevision: state.revision });
          meta.resourceVersion = String(revision);
          return { object, created: false };
        } catch (e) {
          if (e instanceof ConflictError && (fromCache || (!requested && reads <= MAX_UNCONDITIONAL_RETRIES))) continue;
          if (e instanceof ConflictError) throw apiErrors.modified(this.gr, name);
          throw e;
        }
      }
      try {
        const { revision } = await this.store.put(key, this.encode(object), { expectedRevision: state.revision, lease: state.lease || undefined });
        meta.resourceVersion = String(revision);
        return { object, created: false };
      } catch (e) {
        if (e instanceof ConflictError && (fromCache || (!requested && reads <= MAX_UNCONDITIONAL_RETRIES))) continue;
        if (e instanceof ConflictError) throw apiErrors.modified(this.gr, name);
        throw e;
      }
    }
  }

  /** The object's state as the store holds it now, in the cache's shape. */
  private async readState(key: string): Promise<CachedObject<KubeObject> | null> {
    const kv = await this.store.get(key);
    return kv && { key, object: this.decode(kv), revision: kv.modRevision, lease: kv.lease };
  }

  /** What no write may change: identity, creation and deletion marks (upstream's rest.BeforeUpdate). */
  private keepServerFields(object: KubeObject, current: KubeObject) {
    const meta = object.metadata!;
    const old = current.metadata!;
    object.apiVersion = this.apiVersion;
    object.kind = this.def.kind;
    meta.name = old.name;
    if (this.def.namespaced) meta.namespace = old.namespace;
    else delete meta.namespace;
    meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    if (old.generation !== undefined) meta.generation = old.generation;
    delete meta.selfLink;
  }

  /**
   * Deletes an object: preconditions, admission, then either a removal (answering with the last state at the
   * deletion's revision) or, while finalizers remain, a deletionTimestamp that keeps it.
   */
  async delete(namespace: string, name: string, options: DeleteOptions = {}, opts: WriteOptions = {}): Promise<{ object: KubeObject; deleted: boolean }> {
    validateDeleteOptions(options);
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.store.get(key);
      if (!kv) throw apiErrors.notFound(this.gr, name);
      const current = this.decode(kv);
      const meta = current.metadata!;
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== meta.uid) throw apiErrors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw apiErrors.conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`);
      }
      await this.opts.admission?.validate(this.attributes('DELETE', null, current, opts));
      const next = clone(current);
      const keep = this.strategy.beforeDelete?.(next) ?? false;
      // Orphan and Foreground deletions are finished by the garbage collector, through its finalizers (upstream).
      const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : options.orphanDependents === false ? 'Background' : null);
      const gcFinalizer = policy === 'Orphan' ? FINALIZER_ORPHAN_DEPENDENTS : policy === 'Foreground' ? FINALIZER_DELETE_DEPENDENTS : null;
      if (gcFinalizer && !next.metadata!.finalizers?.includes(gcFinalizer)) next.metadata!.finalizers = [...(next.metadata!.finalizers ?? []), gcFinalizer];
      // Graceful deletion (pods on a node): marked with the deadline; whoever runs it confirms with a grace of 0.
      const grace = this.strategy.gracePeriod?.(current, options) ?? 0;
      if (grace > 0) {
        const old = meta.deletionGracePeriodSeconds;
        // A later delete may only shorten the grace period.
        if (meta.deletionTimestamp && old !== undefined && old <= grace) return { object: current, deleted: false };
        next.metadata!.deletionTimestamp = metaTime(new Date(Date.now() + grace * 1000));
        next.metadata!.deletionGracePeriodSeconds = grace;
        if (opts.dryRun) return { object: next, deleted: false };
        try {
          const { revision } = await this.store.put(key, this.encode(next), { expectedRevision: kv.modRevision, lease: kv.lease || undefined });
          next.metadata!.resourceVersion = String(revision);
          return { object: next, deleted: false };
        } catch (e) {
          if (e instanceof ConflictError && attempt < MAX_UNCONDITIONAL_RETRIES) continue;
          throw e;
        }
      }
      if (keep || next.metadata!.finalizers?.length) {
        // Marked for deletion; the finalizers' owners (a controller) remove it later.
        next.metadata!.deletionTimestamp ??= metaTime();
        next.metadata!.deletionGracePeriodSeconds ??= 0;
        if (jsonEqual(next, current) || opts.dryRun) return { object: next, deleted: false };
        try {
          const { revision } = await this.store.put(key, this.encode(next), { expectedRevision: kv.modRevision, lease: kv.lease || undefined });
          next.metadata!.resourceVersion = String(revision);
          return { object: next, deleted: false };
        } catch (e) {
          if (e instanceof ConflictError && attempt < MAX_UNCONDITIONAL_RETRIES) continue;
          throw e;
        }
      }
      if (opts.dryRun) return { object: current, deleted: true };
      try {
        const { revision } = await this.store.delete(key, { expectedRevision: kv.modRevision });
        current.metadata!.resourceVersion = String(revision);
        return { object: current, deleted: true };
      } catch (e) {
        if (e instanceof ConflictError && attempt < MAX_UNCONDITIONAL_RETRIES) continue;
        throw e;
      }
    }
  }

  /** Deletes every object a list selects, one by one as upstream (each through admission and finalizers). */
  async deleteCollection(namespace: string, list: ListOptions, options: DeleteOptions = {}, opts: WriteOptions = {}): Promise<KubeObject[]> {
    validateDeleteOptions(options);
    const { items } = await this.list(namespace, { filter: list.filter, resourceVersion: list.resourceVersion, resourceVersionMatch: list.resourceVersionMatch });
    const out: KubeObject[] = [];
    for (const item of items) {
      try {
        out.push((await this.delete(item.metadata!.namespace ?? '', item.metadata!.name!, options, opts)).object);
      } catch (e) {
        // Gone in between is what the caller wanted anyway.
        if ((e as { code?: number }).code !== 404) throw e;
      }
    }
    return out;
  }

  private check(errs: FieldError[], object: KubeObject) {
    if (errs.length) throw apiErrors.invalid(this.def.group, this.def.kind, object.metadata?.name ?? '', errs);
  }

  private attributes(operation: Operation, object: KubeObject | null, oldObject: KubeObject | null, opts: WriteOptions) {
    const meta = (object ?? oldObject)?.metadata ?? {};
    return {
      operation,
      resource: this.gr,
      kind: this.def.kind,
      subresource: opts.subresource ?? '',
      namespace: this.def.namespaced ? meta.namespace ?? '' : '',
      name: meta.name ?? '',
      object,
      oldObject,
      dryRun: !!opts.dryRun,
      user: opts.user,
    };
  }
}

const MAX_UINT64 = (1n << 64n) - 1n;

/** A resourceVersion as upstream's versioner parses it (a uint64): anything else is a 400, never a wait. */
function parseRevision(rv: string): number {
  const why = !/^\d+$/.test(rv) ? 'invalid syntax' : BigInt(rv) > MAX_UINT64 ? 'value out of range' : '';
  if (why) throw apiErrors.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`);
  return Number(rv);
}

const PROPAGATION = ['Foreground', 'Background', 'Orphan'];

function validateDeleteOptions(o: DeleteOptions) {
  const errs: FieldError[] = [];
  if (o.propagationPolicy != null && !PROPAGATION.includes(o.propagationPolicy)) errs.push(fieldErrors.notSupported('propagationPolicy', o.propagationPolicy, PROPAGATION));
  if (o.orphanDependents != null && o.propagationPolicy != null) errs.push(fieldErrors.invalid('propagationPolicy', o.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  if (o.gracePeriodSeconds != null && o.gracePeriodSeconds < 0) errs.push(fieldErrors.invalid('gracePeriodSeconds', o.gracePeriodSeconds, 'must be greater than or equal to 0'));
  if (o.dryRun) for (const [i, v] of o.dryRun.entries()) if (v !== 'All') errs.push(fieldErrors.notSupported(FieldPath.root('dryRun').index(i), v, ['All']));
  if (errs.length) throw apiErrors.invalid('meta.k8s.io', 'DeleteOptions', '', errs);
}
