// The resource API as this server mounts it: the built-in kinds over the store (generic stores with their watch
// caches), the admission chain, their routes, discovery and OpenAPI documents, and the storage and
// long-running-request metrics. The controllers (namespace, service accounts, garbage collector, quota, ...) run as
// clients of this API (controllers.ts).
import { createHash } from 'node:crypto';
import { Gauge } from 'prom-client';
import { requestInfo } from '@cl/auth';
import { apiVersionOf, openApiV3, openApiV2, openApiV2Protobuf, OPENAPI_V2_PROTOBUF, type KindDefinition, type SubresourceDocument } from '@cl/api';
import { builtinKinds, builtinResources, csrAdmission, ResourceApi, type Admission, type BuiltinKind, type ResourceStore } from '@cl/registry';
import { LeaseManager, type Store } from '@cl/store';
import { buildAdmission, enabledAdmissionPlugins } from './admission';
import { storageVersionHash, type DiscoveryGroup } from './authn/discovery';
import { metricsRegistry } from './metrics';
import { readBody, exactRoute, type Route } from './routes';

export interface ResourceOptions {
  eventTtlSeconds: number;
  enableAdmissionPlugins: readonly string[];
  disableAdmissionPlugins: readonly string[];
  log: (line: string) => void;
  /** --min-request-timeout: watches without timeoutSeconds end between this and twice this (0: never); 1800 when absent. */
  minRequestTimeoutSeconds?: number;
  /** A store's admission with store-specific checks added (the RBAC escalation check on the RBAC resources). */
  storeAdmission?: (store: ResourceStore, chain: Admission) => Admission;
  /** Whether a user may do a verb on a resource name (CSR `approve`/`sign` on `signers`); unchecked when absent. */
  authorize?: (attrs: { user: unknown; verb: string; apiGroup: string; resource: string; name: string }) => Promise<boolean>;
}

type ServedSubresource = { kind: string; group?: string; version?: string; verbs: string[] };

/**
 * The subresources this server serves besides views, with the kind each answers with and its verbs as upstream
 * lists them; the node-connection ones (./node-connection) only where served.
 */
const SERVED_SUBRESOURCES: Record<string, (def: KindDefinition) => ServedSubresource | undefined> = {
  status: (def) => ({ kind: def.kind, verbs: ['get', 'patch', 'update'] }),
  finalize: (def) => ({ kind: def.kind, verbs: ['update'] }),
  binding: () => ({ kind: 'Binding', verbs: ['create'] }),
  eviction: () => ({ kind: 'Eviction', verbs: ['create'] }),
  log: (def) => (def.plural === 'pods' ? { kind: 'Pod', verbs: ['get'] } : undefined),
  exec: (def) => (def.plural === 'pods' ? { kind: 'PodExecOptions', verbs: ['create', 'get'] } : undefined),
  attach: (def) => (def.plural === 'pods' ? { kind: 'PodAttachOptions', verbs: ['create', 'get'] } : undefined),
  portforward: (def) => (def.plural === 'pods' ? { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] } : undefined),
  token: (def) => (def.plural === 'serviceaccounts' ? { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] } : undefined),
  proxy: (def) =>
    def.plural === 'nodes' || def.plural === 'pods'
      ? { kind: def.plural === 'nodes' ? 'NodeProxyOptions' : 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }
      : undefined,
};

/** The kinds served, known before the store opens (discovery and OpenAPI need no store). */
export function servedKinds(): KindDefinition[] {
  return builtinKinds({ eventTtlSeconds: 3600 }).map((k) => k.def);
}

/** The view subresources of the served kinds (deployments/scale as autoscaling/v1 Scale), from their strategies. */
function viewSubresources(): SubresourceDocument[] {
  return builtinKinds({ eventTtlSeconds: 3600 }).flatMap(({ def, strategy }) =>
    Object.entries(strategy.views ?? {})
      .filter(([name]) => def.subresources.includes(name))
      .map(([subresource, view]) => ({ resource: def, subresource, kind: view.def })),
  );
}

/** How discovery lists a subresource: a view names its kind's group and version when they are not the resource's (as kube-apiserver lists deployments/scale). */
function servedSubresource(def: KindDefinition, name: string, views: readonly SubresourceDocument[]): ServedSubresource | undefined {
  const view = views.find((v) => v.resource.group === def.group && v.resource.version === def.version && v.resource.plural === def.plural && v.subresource === name);
  if (!view) return SERVED_SUBRESOURCES[name]?.(def);
  const foreign = view.kind.group !== def.group || view.kind.version !== def.version;
  return { kind: view.kind.kind, ...(foreign ? { group: view.kind.group, version: view.kind.version } : {}), verbs: ['get', 'patch', 'update'] };
}

/** The storage version of each served kind: its own, or the kind it is kept as (events.k8s.io/v1 events as core v1). */
function storageVersionOf(def: KindDefinition, builtins: readonly BuiltinKind[]): [group: string, version: string, kind: string] {
  const sv = builtins.find((b) => b.def === def)?.storage?.storageVersion ?? def;
  return [sv.group, sv.version, sv.kind];
}

/** Discovery groups for the served kinds: the core group first, then the named groups in order of appearance. */
export function kindDiscoveryGroups(kinds: readonly KindDefinition[]): { core: DiscoveryGroup; groups: DiscoveryGroup[] } {
  const views = viewSubresources();
  const builtins = builtinKinds({ eventTtlSeconds: 3600 });
  const byGroup = new Map<string, DiscoveryGroup>();
  for (const def of kinds) {
    let g = byGroup.get(def.group);
    if (!g) byGroup.set(def.group, (g = { name: def.group, versions: [] }));
    let v = g.versions.find((x) => x.version === def.version);
    if (!v) g.versions.push((v = { version: def.version, resources: [] }));
    v.resources.push({
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs,
      shortNames: def.shortNames,
      categories: def.categories,
      subresources: def.subresources.flatMap((s) => {
        const served = servedSubresource(def, s, views);
        return served ? [{ name: s, ...served }] : [];
      }),
      storageVersionHash: storageVersionHash(...storageVersionOf(def, builtins)),
    });
  }
  const core = byGroup.get('') ?? { name: '', versions: [{ version: 'v1', resources: [] }] };
  byGroup.delete('');
  return { core, groups: [...byGroup.values()] };
}

/** /openapi/v3 (an index of group versions with content hashes), each group version's document, and /openapi/v2. */
export function openApiRoutes(kinds: readonly KindDefinition[]): Route[] {
  const views = viewSubresources().filter((v) => kinds.includes(v.resource));
  const gvs = new Map<string, { group: string; version: string }>();
  for (const k of kinds) gvs.set(k.group ? `apis/${k.group}/${k.version}` : `api/${k.version}`, { group: k.group, version: k.version });
  const docs = new Map<string, { body: string; hash: string }>();
  for (const [path, gv] of gvs) {
    const body = JSON.stringify(openApiV3([...kinds], gv.group, gv.version, views));
    docs.set(path, { body, hash: createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase() });
  }
  const index = JSON.stringify({ paths: Object.fromEntries([...docs].map(([path, d]) => [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${d.hash}` }])) });
  const v2Doc = openApiV2([...kinds], views);
  const v2 = JSON.stringify(v2Doc);
  // Encoded on first use (about 0.1 s for the built-in kinds): only client-go's OpenAPISchema() asks for it.
  let v2Protobuf: Buffer | undefined;
  const send = (res: import('node:http').ServerResponse, body: string | Buffer, etag?: string, type = 'application/json') => {
    res.statusCode = 200;
    res.setHeader('Content-Type', type);
    if (etag) res.setHeader('Etag', `"${etag}"`);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  const routes: Route[] = [exactRoute('/openapi/v3', ({ res }) => send(res, index), ['GET', 'HEAD'])];
  for (const [path, d] of docs) {
    routes.push(
      exactRoute(`/openapi/v3/${path}`, ({ req, res }) => {
        // A hashed URL never changes; caches may keep it (upstream: immutable, a year).
        if (new URL(req.url ?? '/', 'http://l').searchParams.get('hash') === d.hash) res.setHeader('Cache-Control', 'public, immutable, max-age=31536000');
        send(res, d.body, d.hash);
      }, ['GET', 'HEAD']),
    );
  }
  routes.push(
    exactRoute('/openapi/v2', ({ req, res }) => {
      res.setHeader('Vary', 'Accept');
      const form = openApiV2Form(String(req.headers.accept || '*/*'));
      // As kube-openapi's handler: an Accept it serves nothing for is a bare 406.
      if (!form) {
        res.statusCode = 406;
        res.end();
        return;
      }
      if (form === 'application/json') send(res, v2);
      else send(res, (v2Protobuf ??= openApiV2Protobuf(v2Doc)), undefined, form);
    }, ['GET', 'HEAD']),
  );
  return routes;
}

const PROTOBUF_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/**
 * kube-openapi's media types for /openapi/v2, each with the Content-Type it answers with: the protobuf type
 * clients ask for (with an `@`, which Go's mime parser refuses in a response) is answered under its dotted name.
 */
const OPENAPI_V2_TYPES: [accepted: string, answered: string][] = [
  ['application/json', 'application/json'],
  [OPENAPI_V2_PROTOBUF, PROTOBUF_V2],
  [PROTOBUF_V2, PROTOBUF_V2],
];

/** The Content-Type to answer an Accept with, as kube-openapi picks it: the first clause by quality that a type matches. */
export function openApiV2Form(accept: string): string | null {
  const clauses = accept
    .split(',')
    .map((part, i) => {
      const [range, ...params] = part.split(';').map((p) => p.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { range: range.toLowerCase(), q: q ? Number(q.slice(2)) : 1, i };
    })
    .filter((c) => c.range && c.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { range } of clauses) {
    const [type, subtype] = range.split('/');
    const hit = OPENAPI_V2_TYPES.find(([t]) => {
      const [tt, ts] = t.split('/');
      return (type === tt || type === '*') && (subtype === ts || subtype === '*');
    });
    if (hit) return hit[1];
  }
  return null;
}

export interface MountedResources {
  routes: Route[];
  stores: ResourceStore[];
  /** Fills the watch caches. */
  start(): Promise<void>;
  stop(): void;
}

const storageObjects = new Gauge({ name: 'apiserver_storage_objects', help: 'Number of stored objects at the time of last check split by kind.', labelNames: ['resource'], registers: [] });
const longRunning = new Gauge({ name: 'apiserver_longrunning_requests', help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.', labelNames: ['component', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'], registers: [] });
let registered = false;

export function mountResources(store: Store, opts: ResourceOptions): MountedResources {
  if (!registered) {
    metricsRegistry.registerMetric(storageObjects);
    metricsRegistry.registerMetric(longRunning);
    registered = true;
  }
  const stores = builtinResources(store, { eventTtlSeconds: opts.eventTtlSeconds, leases: new LeaseManager(store), log: opts.log });
  const admission = buildAdmission(enabledAdmissionPlugins(opts.enableAdmissionPlugins, opts.disableAdmissionPlugins), stores);
  for (const s of stores) {
    const chain = opts.storeAdmission ? opts.storeAdmission(s, admission) : admission;
    // CertificateSigningRequests: the requestor from the user, and approve/sign checked per signer.
    s.setAdmission(s.def.group === 'certificates.k8s.io' && s.def.plural === 'certificatesigningrequests' ? csrAdmission(chain, opts.authorize) : chain);
  }
  opts.log(`Loaded ${admission.names.length} admission plugin(s): ${admission.names.join(',')}`);
  const api = new ResourceApi(stores, {
    readBody: (req) => readBody(req),
    minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds,
    onWatch: (l, delta) => longRunning.inc({ component: 'apiserver', group: l.group, resource: l.resource, scope: l.scope, subresource: '', verb: 'WATCH', version: l.version }, delta),
  });
  storageObjects.reset();
  const collect = () => {
    for (const s of stores) storageObjects.set({ resource: s.def.group ? `${s.def.plural}.${s.def.group}` : s.def.plural }, s.size);
  };
  const timer = setInterval(collect, 10_000);
  timer.unref();
  const route: Route = {
    pathClass: '/api resources',
    matches: (method, path) => {
      if (!path.startsWith('/api/') && !path.startsWith('/apis/')) return false;
      const info = requestInfo(method, path);
      return info.isResourceRequest && api.find(info.apiGroup, info.apiVersion, info.resource) !== undefined;
    },
    handle: (ctx) => api.handle(ctx.req, ctx.res, ctx.info, ctx.user),
  };
  return {
    routes: [route],
    stores,
    async start() {
      await Promise.all(stores.map((s) => s.start()));
      collect();
    },
    stop() {
      clearInterval(timer);
      for (const s of stores) s.stop();
    },
  };
}

export const groupVersionsOf = (kinds: readonly KindDefinition[]) =>
  [...new Set(kinds.filter((k) => k.group).map((k) => apiVersionOf(k)))].map((gv) => ({ group: gv.split('/')[0], version: gv.split('/')[1] }));
