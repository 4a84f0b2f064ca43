// API discovery documents for the groups this server serves: the legacy forms (/api APIVersions, /apis
// APIGroupList, /apis/<g> APIGroup, /apis/<g>/<v> and /api/v1 APIResourceList) and the aggregated
// apidiscovery.k8s.io/v2 lists kubectl 1.33 asks for first (Accept: ...;as=APIGroupDiscoveryList).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { exactRoute, type RequestContext, type Route } from '../routes';
import { writeJson } from '../status';

export interface DiscoveryResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /**
   * Subresources with the verbs they serve (`status`: get, patch, update); group and version name those of their
   * kind when it is not the resource's (deployments/scale answers with autoscaling/v1 Scale).
   */
  subresources?: { name: string; kind: string; group?: string; version?: string; verbs: string[] }[];
  /**
   * For stored resources: which storage version their objects are kept in (upstream lists it in the legacy
   * APIResourceList only; clients such as the storage version migrator compare it across restarts).
   */
  storageVersionHash?: string;
}

/** Upstream's StorageVersionHash: base64 of the first 8 bytes of the SHA-256 of `<group>/<version>/<kind>` (core: `/v1/Pod`). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

export interface DiscoveryGroup {
  /** '' for the core group (/api). */
  name: string;
  versions: { version: string; resources: DiscoveryResource[] }[];
}

const AGGREGATED = (version: 'v2' | 'v2beta1') => `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;

/** The aggregated discovery version the client accepts first (kubectl 1.33 lists v2, then v2beta1), or null for the legacy documents. */
function aggregatedVersion(req: IncomingMessage): 'v2' | 'v2beta1' | null {
  const accept = String(req.headers.accept ?? '');
  for (const part of accept.split(',')) {
    const params = part.split(';').map((p) => p.trim());
    if (params[0] !== 'application/json') continue;
    if (!params.includes('as=APIGroupDiscoveryList') || !params.includes('g=apidiscovery.k8s.io')) return null;
    if (params.includes('v=v2')) return 'v2';
    if (params.includes('v=v2beta1')) return 'v2beta1';
  }
  return null;
}

function writeDiscovery(ctx: RequestContext, code: number, obj: unknown): void {
  ctx.res.setHeader('Vary', 'Accept');
  writeJson(ctx.req, ctx.res, code, obj);
}

function aggregated(groups: DiscoveryGroup[], version: 'v2' | 'v2beta1') {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: g.name ? { name: g.name, creationTimestamp: null } : { creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v.version,
        resources: v.resources.map((r) => ({
          resource: r.name,
          // kubectl drops a resource without responseKind: it names the group version the kind is served in.
          responseKind: { group: g.name, version: v.version, kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.singularName,
          verbs: r.verbs,
          ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
          ...(r.categories?.length ? { categories: r.categories } : {}),
          ...(r.subresources?.length
            ? { subresources: r.subresources.map((sr) => ({ subresource: sr.name, responseKind: { group: sr.group ?? g.name, version: sr.version ?? v.version, kind: sr.kind }, verbs: sr.verbs })) }
            : {}),
        })),
        freshness: 'Current',
      })),
    })),
  };
}

const groupVersionRef = (g: DiscoveryGroup, v: string) => ({ groupVersion: g.name ? `${g.name}/${v}` : v, version: v });

function apiGroup(g: DiscoveryGroup) {
  return { name: g.name, versions: g.versions.map((v) => groupVersionRef(g, v.version)), preferredVersion: groupVersionRef(g, g.versions[0].version) };
}

function resourceList(g: DiscoveryGroup, version: { version: string; resources: DiscoveryResource[] }) {
  // The legacy list names subresources as resources of their own (`namespaces/status`).
  const resources = version.resources.flatMap((r) => {
    const { subresources, storageVersionHash: hash, ...main } = r;
    // Upstream's field order: storageVersionHash after categories; subresources have none.
    const entry = { ...main, shortNames: main.shortNames?.length ? main.shortNames : undefined, categories: main.categories?.length ? main.categories : undefined, storageVersionHash: hash };
    return [
      entry,
      ...(subresources ?? []).map((sr) => ({ name: `${r.name}/${sr.name}`, singularName: '', namespaced: r.namespaced, ...(sr.group !== undefined ? { group: sr.group, version: sr.version } : {}), kind: sr.kind, verbs: sr.verbs })),
    ];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionRef(g, version.version).groupVersion, resources };
}

/** `core` is the '' group (always served as /api v1); `groups` are the named groups under /apis. */
export function discoveryRoutes(core: DiscoveryGroup, groups: () => DiscoveryGroup[]): Route[] {
  const serve = (ctx: RequestContext, aggregatedBody: (version: 'v2' | 'v2beta1') => unknown, legacy: () => unknown) => {
    const version = aggregatedVersion(ctx.req);
    if (version) {
      const body = JSON.stringify(aggregatedBody(version)) + '\n';
      ctx.res.statusCode = 200;
      ctx.res.setHeader('Content-Type', AGGREGATED(version));
      ctx.res.setHeader('Vary', 'Accept');
      ctx.res.setHeader('Content-Length', Buffer.byteLength(body));
      ctx.res.end(body);
      return;
    }
    writeDiscovery(ctx, 200, legacy());
  };
  const routes: Route[] = [
    exactRoute('/api', (ctx) =>
      serve(ctx, (v) => aggregated([core], v), () => ({
        kind: 'APIVersions',
        versions: core.versions.map((v) => v.version),
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `${ctx.req.socket.localAddress?.includes(':') ? `[${ctx.req.socket.localAddress}]` : ctx.req.socket.localAddress}:${ctx.req.socket.localPort}` }],
      })), ['GET', 'HEAD']),
    exactRoute('/apis', (ctx) => serve(ctx, (v) => aggregated(groups(), v), () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: groups().map(apiGroup) })), ['GET', 'HEAD']),
  ];
  for (const v of core.versions) {
    routes.push(exactRoute(`/api/${v.version}`, (ctx) => writeDiscovery(ctx, 200, resourceList(core, v)), ['GET', 'HEAD']));
  }
  // Named groups can be added later, so these routes look the group up per request.
  routes.push({
    pathClass: '/apis/{group}[/{version}]',
    matches: (method, path) => (method === 'GET' || method === 'HEAD') && findGroup(groups(), path) !== null,
    handle: (ctx) => {
      const hit = findGroup(groups(), ctx.path)!;
      if (hit.version) writeDiscovery(ctx, 200, resourceList(hit.group, hit.version));
      else writeDiscovery(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(hit.group) });
    },
  });
  return routes;
}

function findGroup(groups: DiscoveryGroup[], path: string): { group: DiscoveryGroup; version?: DiscoveryGroup['versions'][number] } | null {
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return null;
  const group = groups.find((g) => g.name === m[1]);
  if (!group) return null;
  if (!m[2]) return { group };
  const version = group.versions.find((v) => v.version === m[2]);
  return version ? { group, version } : null;
}

export const authenticationGroup: DiscoveryGroup = {
  name: 'authentication.k8s.io',
  versions: [
    {
      version: 'v1',
      resources: [
        { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
        { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
      ],
    },
  ],
};
