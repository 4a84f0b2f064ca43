// NamespaceLifecycle (upstream plugin/pkg/admission/namespace/lifecycle): nothing is created in a namespace
// that does not exist (404) or is being deleted (403, cause NamespaceTerminating), and the system namespaces
// cannot be deleted.
import { apiErrors } from '@cl/apimachinery';
import type { AdmissionPlugin } from '../admission';
import type { ResourceStore } from '../resource-store';

export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function namespaceLifecycle(namespaces: ResourceStore): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(a) {
      if (a.resource.group === '' && a.resource.resource === 'namespaces') {
        if (a.operation === 'DELETE' && IMMORTAL_NAMESPACES.includes(a.name)) throw apiErrors.forbidden(a.resource, a.name, 'this namespace may not be deleted');
        return;
      }
      if (a.operation !== 'CREATE' || !a.namespace) return;
      // The cache first; a namespace created an instant ago may not have reached it, so a miss asks the store.
      let ns = namespaces.cache.get(namespaces.key('', a.namespace))?.object;
      if (!ns) ns = await namespaces.get('', a.namespace).catch(() => undefined);
      if (!ns) throw apiErrors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
      if (ns.metadata?.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
        throw apiErrors.forbidden(a.resource, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`, [
          { reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' },
        ]);
      }
    },
  };
}
