// The kinds this server stores, each with its strategy: what `builtinResources` turns into generic stores.
import { clusterRole, clusterRoleBinding, configMap, deployment, lease, limitRange, namespace, node, pod, priorityClass, replicaSet, resourceQuota, role, roleBinding, secret, serviceAccount, event, eventV1, type KindDefinition } from '@cl/api';
import type { LeaseManager, Store } from '@cl/store';
import { ResourceStore, type StorageConversion } from '../resource-store';
import type { Strategy } from '../strategy';
import { namespaceStrategy } from './namespaces';
import { podStrategy } from './pods';
import { nodeStrategy } from './nodes';
import { priorityClassStrategy } from './priority-classes';
import { configMapStrategy, secretStrategy, serviceAccountStrategy } from './config';
import { eventStrategy, eventsV1Storage, eventV1Strategy } from './events';
import { leaseStrategy } from './leases';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from './rbac';
import { limitRangeStrategy } from './limit-ranges';
import { resourceQuotaStrategy } from './resource-quotas';
import { deploymentStrategy } from './deployments';
import { replicaSetStrategy } from './replicasets';
import { podEphemeralContainersView } from './ephemeral-containers';
import { certificateSigningRequest, csrStrategy } from './certificates';

export interface BuiltinOptions {
  /** How long events live (--event-ttl), in seconds. */
  eventTtlSeconds: number;
  leases?: LeaseManager;
  log?: (line: string) => void;
}

export interface BuiltinKind {
  def: KindDefinition;
  strategy: Strategy;
  storage?: StorageConversion;
  /** false: served from the store, without a watch cache (upstream's default for events). */
  watchCache?: boolean;
}

export function builtinKinds(opts: BuiltinOptions): BuiltinKind[] {
  return [
    { def: namespace, strategy: namespaceStrategy },
    { def: node, strategy: nodeStrategy },
    { def: pod, strategy: { ...podStrategy, views: { ephemeralcontainers: podEphemeralContainersView } } },
    { def: configMap, strategy: configMapStrategy },
    { def: secret, strategy: secretStrategy },
    { def: serviceAccount, strategy: serviceAccountStrategy },
    { def: limitRange, strategy: limitRangeStrategy },
    { def: resourceQuota, strategy: resourceQuotaStrategy },
    { def: event, strategy: eventStrategy(opts.eventTtlSeconds), watchCache: false },
    { def: deployment, strategy: deploymentStrategy },
    { def: replicaSet, strategy: replicaSetStrategy },
    { def: lease, strategy: leaseStrategy },
    { def: eventV1, strategy: eventV1Strategy(opts.eventTtlSeconds), storage: eventsV1Storage, watchCache: false },
    { def: priorityClass, strategy: priorityClassStrategy },
    { def: role, strategy: roleStrategy },
    { def: clusterRole, strategy: clusterRoleStrategy },
    { def: roleBinding, strategy: roleBindingStrategy },
    { def: clusterRoleBinding, strategy: clusterRoleBindingStrategy },
    { def: certificateSigningRequest, strategy: csrStrategy },
  ] as BuiltinKind[];
}

export function builtinResources(store: Store, opts: BuiltinOptions): ResourceStore[] {
  return builtinKinds(opts).map(({ def, strategy, storage, watchCache }) => new ResourceStore(def, store, strategy, { leases: opts.leases, log: opts.log, storage, watchCache }));
}

export { NAMESPACE_FINALIZER } from './namespaces';
export { podEphemeralContainersView } from './ephemeral-containers';
export { replicasScaleView } from './scale';
export { certificateSigningRequest, csrAdmission, csrCondition, validateCsr, KEY_USAGES, type CertificateSigningRequest, type CsrCondition } from './certificates';
