// What the server serves, from its discovery documents (/api/v1, /apis, /apis/<group>/<preferred version>), as
// client-go's ServerPreferredResources: the namespace controller empties a namespace of every namespaced
// resource it finds there, and the garbage collector watches every resource it can list, watch and delete.
import { resourcePath, type KubeClient } from '@cl/kube-client';

export interface ApiResource {
  group: string;
  version: string;
  /** The plural name in URLs ('pods', 'deployments'). */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface ResourceList {
  resources?: Array<{ name: string; kind: string; namespaced?: boolean; verbs?: string[] }>;
}
interface GroupList {
  groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }>;
}

/** Every top-level resource (no subresources) of each group's preferred version. */
export async function discoverResources(client: KubeClient): Promise<ApiResource[]> {
  const lists: Array<{ group: string; version: string; list: ResourceList }> = [{ group: '', version: 'v1', list: await client.get<ResourceList>('/api/v1') }];
  const groups = await client.get<GroupList>('/apis');
  for (const g of groups.groups ?? []) {
    const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (!version) continue;
    lists.push({ group: g.name, version, list: await client.get<ResourceList>(`/apis/${g.name}/${version}`) });
  }
  return lists.flatMap(({ group, version, list }) =>
    (list.resources ?? [])
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: !!r.namespaced, verbs: r.verbs ?? [] })),
  );
}

export const supports = (r: ApiResource, ...verbs: string[]) => verbs.every((v) => r.verbs.includes(v));

/** The collection path of a resource, across namespaces or in one. */
export const collectionPath = (r: ApiResource, namespace?: string) =>
  resourcePath({ group: r.group || undefined, version: r.version, resource: r.resource, namespace: r.namespaced ? namespace : undefined });

/** The path of one object of a resource. */
export const objectPath = (r: ApiResource, namespace: string | undefined, name: string) =>
  resourcePath({ group: r.group || undefined, version: r.version, resource: r.resource, namespace: r.namespaced ? namespace : undefined, name });

export const apiVersionOf = (r: Pick<ApiResource, 'group' | 'version'>) => (r.group ? `${r.group}/${r.version}` : r.version);
