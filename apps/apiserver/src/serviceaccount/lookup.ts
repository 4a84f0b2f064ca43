// Reads of the objects tokens name (service accounts, pods, secrets, nodes) from the resource stores: the watch
// cache first, the store when the cache does not have it (a just-created object), as upstream's getter falls
// back from the informer to a live read.
import type { KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from '@cl/registry';

export type BoundResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';

export interface ObjectLookup {
  /** The object, or undefined when it does not exist; rejects when the stores are not up yet. */
  get(resource: BoundResource, namespace: string, name: string): Promise<KubeObject | undefined>;
}

export function storeLookup(stores: () => readonly ResourceStore[] | undefined): ObjectLookup {
  return {
    async get(resource, namespace, name) {
      const s = stores()?.find((x) => x.def.group === '' && x.def.plural === resource);
      if (!s) throw new Error('the API server is not ready to look up service account objects');
      const ns = resource === 'nodes' ? '' : namespace;
      const cached = s.cache.get(s.key(ns, name));
      if (cached) return cached.object;
      try {
        return await s.get(ns, name);
      } catch (e) {
        if ((e as { code?: number }).code === 404) return undefined;
        throw e;
      }
    },
  };
}
