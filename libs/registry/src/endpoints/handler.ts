// The REST verbs of every resource, as kube-apiserver's endpoint handlers: request -> query and body decoding
// -> the resource's generic store -> JSON, Table or Status. Authentication and authorization happened before;
// this stage sees the parsed request (group, version, resource, subresource, namespace, name, verb). Subresources
// are `status`, a namespace's `finalize`, POST actions (a pod's binding) and views (scale, ephemeralcontainers).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf } from '@cl/api';
import { ApiError, apiErrors, statusSuccess, type DeleteOptions, type KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from '../resource-store';
import type { SubresourceAction } from '../strategy';
import { mediaType, negotiate, responseForm, TABLE_CONTENT_TYPE } from './negotiation';
import { notAnObject, partialListJson, partialObject } from './partial-metadata';
import { bodyFormat, decodeBody, fieldValidation, OBJECT_TYPES, parseJsonBody, parseDryRun, PATCH_TYPES, readBodyOf, readPatch, respondObject, setWarnings } from './request-body';
import { ListBodyMemo, writeJoinedListBody, writeListBody } from './serialize';
import { writeJson, writeStatus, writeText, wantsPretty } from './respond';
import { selection, watchIndexValue } from './selection';
import { parseIncludeObject, tableJson, tableRow, tableColumns, toTable } from './table';
import { serveView } from './view-endpoint';
import { streamWatch } from './watch-stream';
import { APPLY_PATCH_TYPE, applyConfiguration, parseApplyBody, parseForce, writeManager } from './write-manager';

export interface ResourceRequest {
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface ResourceApiOptions {
  /** How often watches with allowWatchBookmarks get a BOOKMARK (upstream: about a minute). */
  bookmarkIntervalMs?: number;
  /** Watches without timeoutSeconds end after a random time between this and twice this (upstream: 1800 s). */
  minRequestTimeoutSeconds?: number;
  /** Watches start and end (apiserver_longrunning_requests). */
  onWatch?: (labels: { group: string; version: string; resource: string; scope: string }, delta: 1 | -1) => void;
  /** Reads a request body (the server's size limit applies). */
  readBody: (req: IncomingMessage) => Promise<Buffer>;
}


export class ResourceApi {
  private readonly byPath = new Map<string, ResourceStore>();
  private readonly listBodies = new ListBodyMemo();

  constructor(
    readonly stores: readonly ResourceStore[],
    private readonly opts: ResourceApiOptions,
  ) {
    for (const s of stores) this.byPath.set(`${s.def.group}/${s.def.version}/${s.def.plural}`, s);
  }

  find(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** Serves one request; every failure becomes its Status response. */
  async handle(req: IncomingMessage, res: ServerResponse, info: ResourceRequest, user?: unknown): Promise<void> {
    try {
      await this.dispatch(req, res, info, user);
    } catch (e) {
      const err = e instanceof ApiError ? e : stackOverflowAsBadRequest(e);
      if (err) {
        if (!res.headersSent) writeStatus(req, res, err.status);
        else res.destroy();
        return;
      }
      throw e;
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, info: ResourceRequest, user: unknown) {
    const store = this.find(info.apiGroup, info.apiVersion, info.resource);
    if (!store) throw new ApiError(notFoundStatus());
    const q = new URL(req.url ?? '/', 'http://local').searchParams;
    const def = store.def;
    const ns = def.namespaced ? info.namespace : '';
    const sub = info.subresource;
    const action = sub ? store.strategy.actions?.[sub] : undefined;
    const view = sub ? store.strategy.views?.[sub] : undefined;
    if (sub && !(def.subresources.includes(sub) && (sub === 'status' || sub === 'finalize' || action || view))) throw new ApiError(notFoundStatus());
    if (action) {
      if (info.verb !== 'create') throw apiErrors.methodNotSupported(store.gr, info.verb);
      return this.act(req, res, store, ns, info.name, action, q, user);
    }
    if (def.namespaced && !ns && !['list', 'watch', 'deletecollection'].includes(info.verb)) throw new ApiError(notFoundStatus());
    const dryRun = parseDryRun(q.getAll('dryRun'));
    if (view) return serveView(req, res, { store, view, subresource: sub, namespace: ns, name: info.name }, { verb: info.verb, query: q, dryRun, user, readBody: this.opts.readBody });
    switch (info.verb) {
      case 'get':
        if (sub === 'finalize') throw apiErrors.methodNotSupported(store.gr, 'get');
        return this.get(req, res, store, ns, info.name, q);
      case 'list':
        return this.list(req, res, store, ns, q);
      case 'watch':
        return this.watch(req, res, store, ns, q, info);
      case 'create':
        if (info.name) throw apiErrors.methodNotSupported(store.gr, 'create');
        return this.create(req, res, store, ns, q, dryRun, user);
      case 'update':
        return this.update(req, res, store, ns, info.name, sub, q, dryRun, user);
      case 'patch':
        if (sub === 'finalize') throw apiErrors.methodNotSupported(store.gr, 'patch');
        return this.patch(req, res, store, ns, info.name, sub, q, dryRun, user);
      case 'delete':
        if (sub) throw apiErrors.methodNotSupported(store.gr, 'delete');
        return this.delete(req, res, store, ns, info.name, q, dryRun, user);
      case 'deletecollection':
        if (!def.verbs.includes('deletecollection')) throw apiErrors.methodNotSupported(store.gr, 'deletecollection');
        return this.deleteCollection(req, res, store, ns, q, dryRun, user);
      default:
        throw apiErrors.methodNotSupported(store.gr, info.verb);
    }
  }

  private async get(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, q: URLSearchParams) {
    responseForm(req); // refuse an unacceptable Accept before reading
    respondObject(req, res, store.strategy, 200, await store.get(ns, name), q);
  }

  private async list(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, q: URLSearchParams) {
    const { form, metaVersion } = negotiate(req);
    const limit = parseNonNegative(q.get('limit'), 'limit');
    const result = await store.list(ns, {
      filter: selection(store.strategy, q.get('labelSelector'), q.get('fieldSelector')),
      limit,
      continue: q.get('continue') || undefined,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') || undefined,
    });
    if (form === 'table') {
      const include = parseIncludeObject(q.get('includeObject'));
      if (wantsPretty(req)) return writeJson(req, res, 200, toTable(store.strategy, result.items, result.resourceVersion, include, true, { continue: result.continue }), TABLE_CONTENT_TYPE);
      return writeText(res, 200, tableJson(store.strategy, result.items, result.resourceVersion, include, { continue: result.continue }), TABLE_CONTENT_TYPE);
    }
    const def = store.def;
    const metadata = { resourceVersion: result.resourceVersion, ...(result.continue ? { continue: result.continue } : {}) };
    if (form === 'partial') throw notAnObject(def);
    if (form === 'partial-list') {
      if (wantsPretty(req)) return writeJson(req, res, 200, { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${metaVersion}`, metadata, items: result.items.map((o) => partialObject(o, metaVersion)) });
      return writeText(res, 200, partialListJson(result.items, metadata, metaVersion));
    }
    if (wantsPretty(req)) {
      return writeJson(req, res, 200, { kind: def.listKind, apiVersion: apiVersionOf(def), metadata, items: result.items.map((o) => ({ ...o, apiVersion: undefined, kind: undefined })) });
    }
    // Assembled from each item's cached JSON: a large list costs one join, not a stringify of every object.
    const head = `{"kind":"${def.listKind}","apiVersion":"${apiVersionOf(def)}","metadata":${JSON.stringify(metadata)},"items":[`;
    // A full list of many cached objects is joined once and reused while the collection stays the same (objects
    // read from the store are new instances every time: those stream from their buffers instead).
    const memoKey = `${def.group}/${def.plural}\0${ns}\0${q.get('labelSelector') ?? ''}\0${q.get('fieldSelector') ?? ''}`;
    const joined = result.fromCache && !result.continue ? this.listBodies.joined(memoKey, result.items) : undefined;
    if (joined) return writeJoinedListBody(res, head, joined, ']}\n');
    writeListBody(res, head, result.items, ']}\n');
  }

  private async watch(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, q: URLSearchParams, info: ResourceRequest) {
    const { form, metaVersion } = negotiate(req);
    const timeoutSeconds = parseNonNegative(q.get('timeoutSeconds'), 'timeoutSeconds');
    const min = this.opts.minRequestTimeoutSeconds ?? 1800;
    // 0 (--min-request-timeout=0, no timeoutSeconds) is no timeout, as upstream; a Node timer waits 2^31-1 ms at most.
    const timeoutMs = Math.min((timeoutSeconds ? timeoutSeconds * 1000 : (min + Math.random() * min) * 1000) || Infinity, 2 ** 31 - 1);
    const bookmarks = q.get('allowWatchBookmarks') === 'true';
    const sendInitialEvents = q.get('sendInitialEvents');
    const rv = q.get('resourceVersion') ?? undefined;
    const match = q.get('resourceVersionMatch') || undefined;
    if (sendInitialEvents === 'true' && (match !== 'NotOlderThan' || !bookmarks)) {
      const reasons = [];
      if (match !== 'NotOlderThan') reasons.push(`resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`);
      if (!bookmarks) reasons.push('allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
      throw new ApiError({ ...apiErrors.badRequest('').status, code: 422, reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: [${reasons.join(', ')}]` });
    }
    if (match && sendInitialEvents !== 'true') throw apiErrors.badRequest('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    const watch = await store.watch(ns, {
      filter: selection(store.strategy, q.get('labelSelector'), q.get('fieldSelector')),
      index: watchIndexValue(store.strategy, q.get('fieldSelector')),
      resourceVersion: rv,
      bookmarkIntervalMs: bookmarks ? this.opts.bookmarkIntervalMs ?? 60_000 : undefined,
      sendInitialEvents: sendInitialEvents === 'true',
    });
    const include = parseIncludeObject(q.get('includeObject'));
    const labels = { group: info.apiGroup, version: info.apiVersion, resource: info.resource, scope: ns ? 'namespace' : store.def.namespaced ? 'cluster' : 'resource' };
    this.opts.onWatch?.(labels, 1);
    await streamWatch(req, res, watch, {
      timeoutMs,
      apiVersion: apiVersionOf(store.def),
      kind: store.def.kind,
      asTable: form === 'table' ? (o, first) => oneRowTable(store, o, include, first) : undefined,
      // As upstream, each event's object is transformed on its own: PartialObjectMetadata fits an event;
      // PartialObjectMetadataList does not, and upstream then sends the object unchanged.
      asPartial: form === 'partial' ? metaVersion : undefined,
      onEnd: () => this.opts.onWatch?.(labels, -1),
      finalBookmark: bookmarks ? () => watch.revision ?? store.cache.revision : undefined,
    });
  }

  private async create(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    const fv = fieldValidation(q);
    responseForm(req);
    const fieldManager = writeManager(req, q, 'CreateOptions');
    const { object, warnings } = decodeBody(store.def, await readBodyOf(req, OBJECT_TYPES, this.opts.readBody), fv, bodyFormat(req));
    const created = await store.create(ns, object, { dryRun, user, fieldManager });
    setWarnings(res, warnings);
    respondObject(req, res, store.strategy, 201, created, q);
  }

  private async update(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, sub: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    const fv = fieldValidation(q);
    responseForm(req);
    const fieldManager = writeManager(req, q, 'UpdateOptions');
    const { object, warnings } = decodeBody(store.def, await readBodyOf(req, OBJECT_TYPES, this.opts.readBody), fv, bodyFormat(req));
    checkName(object, name, ns);
    const apply =
      sub === 'finalize'
        ? // Only spec.finalizers of a namespace changes through /finalize.
          (current: KubeObject | null) => ({ ...current!, metadata: { ...current!.metadata, resourceVersion: object.metadata?.resourceVersion ?? current!.metadata?.resourceVersion }, spec: { ...(current!.spec as object), finalizers: (object.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [] } })
        : () => object;
    const { object: updated, created } = await store.update(ns, name, apply, { dryRun, user, subresource: sub, fieldManager });
    setWarnings(res, warnings);
    respondObject(req, res, store.strategy, created ? 201 : 200, updated, q);
  }

  private async patch(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, sub: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    const fv = fieldValidation(q);
    responseForm(req);
    if (mediaType(req) === APPLY_PATCH_TYPE) return this.applyPatch(req, res, store, ns, name, sub, q, dryRun, user);
    const fieldManager = writeManager(req, q, 'PatchOptions');
    const patch = await readPatch(req, this.opts.readBody);
    const warnings: string[] = [];
    const apply = (current: KubeObject | null): KubeObject => {
      const decoded = decodeBody(store.def, JSON.stringify(patch.apply(current, store.def, fv)), fv);
      warnings.length = 0;
      warnings.push(...decoded.warnings);
      return decoded.object;
    };
    const { object } = await store.update(ns, name, apply, { dryRun, user, subresource: sub, allowCreate: false, fieldManager });
    setWarnings(res, warnings);
    respondObject(req, res, store.strategy, 200, object, q);
  }

  /**
   * A server-side apply: the configuration merged into the object by its field manager (conflicts refused unless
   * forced), the result decoded as the kind (defaults, unknown fields) and written as any update; an object that
   * does not exist is created from it (201), even for kinds whose PUT may not create.
   */
  private async applyPatch(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, sub: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    const fv = fieldValidation(q);
    const fieldManager = writeManager(req, q, 'PatchOptions', true);
    const force = parseForce(q);
    const config = parseApplyBody(store.def, await this.opts.readBody(req));
    const fm = store.fieldManager;
    if (!fm) throw apiErrors.unsupportedMediaType(PATCH_TYPES.filter((t) => t !== APPLY_PATCH_TYPE));
    const warnings: string[] = [];
    const apply = (current: KubeObject | null): KubeObject => {
      const merged = applyConfiguration(fm, current, config, fieldManager, sub, force);
      const managedFields = merged.metadata?.managedFields;
      const decoded = decodeBody(store.def, JSON.stringify(merged), fv);
      warnings.splice(0, warnings.length, ...decoded.warnings);
      if (managedFields) (decoded.object.metadata ??= {}).managedFields = managedFields;
      return decoded.object;
    };
    const { object, created } = await store.update(ns, name, apply, { dryRun, user, subresource: sub, allowCreate: true, fieldManager, applied: true });
    setWarnings(res, warnings);
    respondObject(req, res, store.strategy, created ? 201 : 200, object, q);
  }

  private async act(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, action: SubresourceAction, q: URLSearchParams, user: unknown) {
    responseForm(req);
    const raw = await readBodyOf(req, ['application/json', ''], this.opts.readBody);
    const body = raw.length ? parseJsonBody(raw, 'request body') : {};
    const dryRun = parseDryRun(q.getAll('dryRun'));
    const fieldManager = writeManager(req, q, 'CreateOptions');
    const result = await action({
      namespace: ns,
      name,
      body,
      dryRun,
      user,
      update: async (apply, subresource) => (await store.update(ns, name, (cur) => apply(cur!), { dryRun, user, subresource, allowCreate: false, fieldManager })).object,
      delete: (options) => store.delete(ns, name, options, { dryRun, user }),
    });
    writeJson(req, res, result.code, result.body);
  }

  private async deleteOptions(req: IncomingMessage, q: URLSearchParams, dryRun: boolean): Promise<DeleteOptions> {
    const raw = await this.opts.readBody(req);
    let options: DeleteOptions = {};
    if (raw.length > 0) {
      options = parseJsonBody(raw, 'DeleteOptions') as DeleteOptions;
      if (options === null || typeof options !== 'object' || Array.isArray(options)) throw apiErrors.badRequest('DeleteOptions must be a JSON object');
    }
    const grace = q.get('gracePeriodSeconds');
    if (grace !== null) options.gracePeriodSeconds = parseInteger(grace, 'gracePeriodSeconds');
    const policy = q.get('propagationPolicy');
    if (policy) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
    if (dryRun) options.dryRun = ['All'];
    return options;
  }

  private async delete(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, name: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    responseForm(req);
    const options = await this.deleteOptions(req, q, dryRun);
    const { object, deleted } = await store.delete(ns, name, options, { dryRun: dryRun || !!options.dryRun?.length, user });
    if (deleted && !store.strategy.returnDeletedObject) {
      const m = object.metadata!;
      const details = store.def.group ? { name: m.name, group: store.def.group, kind: store.def.plural, uid: m.uid } : { name: m.name, kind: store.def.plural, uid: m.uid };
      return writeJson(req, res, 200, statusSuccess(details));
    }
    respondObject(req, res, store.strategy, 200, object, q);
  }

  private async deleteCollection(req: IncomingMessage, res: ServerResponse, store: ResourceStore, ns: string, q: URLSearchParams, dryRun: boolean, user: unknown) {
    responseForm(req);
    const options = await this.deleteOptions(req, q, dryRun);
    const filter = selection(store.strategy, q.get('labelSelector'), q.get('fieldSelector'));
    const items = await store.deleteCollection(ns, { filter }, options, { dryRun: dryRun || !!options.dryRun?.length, user });
    writeJson(req, res, 200, { kind: store.def.listKind, apiVersion: apiVersionOf(store.def), metadata: {}, items: items.map((o) => ({ ...o, apiVersion: undefined, kind: undefined })) });
  }
}

function oneRowTable(store: ResourceStore, o: KubeObject, include: ReturnType<typeof parseIncludeObject>, first: boolean) {
  const table: Record<string, unknown> = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: o.metadata?.resourceVersion } };
  if (first) table.columnDefinitions = tableColumns(store.strategy);
  table.rows = [tableRow(store.strategy, o, include)];
  return table;
}

/** As upstream's update handler, before any store read: the body names the object the URL names (and its namespace, when it gives one). */
function checkName(object: KubeObject, name: string, namespace: string) {
  const m = object.metadata ?? {};
  if (!m.name) throw apiErrors.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (m.name !== name) throw apiErrors.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
  if (namespace && m.namespace && m.namespace !== namespace) throw apiErrors.badRequest(`the namespace of the object (${m.namespace}) does not match the namespace on the request (${namespace})`);
}

/**
 * Bodies are bounded in depth before any walk, so this should never happen; if a walk still overflows the stack on
 * what a client sent, the client gets the decoder's 400 rather than a 500.
 */
function stackOverflowAsBadRequest(e: unknown): ApiError | null {
  return e instanceof RangeError && /call stack/.test(e.message) ? apiErrors.badRequest('exceeded max depth') : null;
}

function notFoundStatus() {
  return { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const, message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
}

function parseInteger(v: string, name: string): number {
  if (!/^-?\d+$/.test(v)) throw apiErrors.badRequest(`${name}: invalid value ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

function parseNonNegative(v: string | null, name: string): number | undefined {
  if (v === null || v === '') return undefined;
  const n = parseInteger(v, name);
  if (n < 0) throw apiErrors.badRequest(`${name}: Invalid value: ${n}: must be greater than or equal to 0`);
  return n;
}
