// core/v1 LimitRange and ResourceQuota: the per-namespace policy objects the LimitRanger and ResourceQuota
// admission plugins read. Field numbers are those of k8s.io/api core/v1 generated.proto.
import { Type, type Static } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomic, atomicList, object, objectMeta, pb, str, typeMeta, valueStruct } from '../schema';
import { resourceList } from './pod-v1';

const core = { group: '', version: 'v1' } as const;

const limitRangeItem = object({
  type: pb(1, str('What the limits apply to: Container, Pod or PersistentVolumeClaim.')),
  max: pb(2, resourceList('Most of each resource an item of this type may use.')),
  min: pb(3, resourceList('Least of each resource an item of this type must ask for.')),
  default: pb(4, resourceList('Limits a container gets when it sets none (Container type only).')),
  defaultRequest: pb(5, resourceList('Requests a container gets when it sets none (Container type only).')),
  maxLimitRequestRatio: pb(6, resourceList('Largest allowed limit / request ratio of each resource.')),
});

const limitRangeSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(2, object({ limits: pb(1, atomicList(limitRangeItem, 'The limits, at most one item per type.')) }, { description: 'The limits enforced in the namespace.' }))),
});

export type LimitRange = Static<typeof limitRangeSchema>;
export type LimitRangeItem = Static<typeof limitRangeItem>;

/**
 * Upstream's SetDefaults_LimitRangeItem, for Container items: a missing default limit is the max, a missing
 * default request is the default limit, else the min. So `get -o yaml` shows what the LimitRanger will apply.
 */
function setLimitRangeDefaults(lr: LimitRange): void {
  for (const item of lr.spec?.limits ?? []) {
    if (!item || item.type !== 'Container') continue;
    const defaults = (item.default ??= {});
    const requests = (item.defaultRequest ??= {});
    for (const [name, q] of Object.entries(item.max ?? {})) if (!(name in defaults)) defaults[name] = q;
    for (const [name, q] of Object.entries(defaults)) if (!(name in requests)) requests[name] = q;
    for (const [name, q] of Object.entries(item.min ?? {})) if (!(name in requests)) requests[name] = q;
  }
}

export const limitRange = defineKind({
  ...core,
  kind: 'LimitRange',
  plural: 'limitranges',
  namespaced: true,
  shortNames: ['limits'],
  description: 'Minimum, maximum and default compute resources of the containers and pods of a namespace.',
  schema: limitRangeSchema,
  setDefaults: setLimitRangeDefaults,
});

const scopedResourceSelectorRequirement = object({
  scopeName: pb(1, str('The scope: Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass or CrossNamespacePodAffinity.')),
  operator: pb(2, str('In, NotIn, Exists or DoesNotExist.')),
  values: pb(3, atomicList(Type.String(), 'Values for In and NotIn; empty for Exists and DoesNotExist.')),
});

const resourceQuotaSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(
    2,
    object(
      {
        hard: pb(1, resourceList('The limit of each named resource (pods, requests.cpu, count/configmaps, ...).')),
        scopes: pb(2, atomicList(Type.String(), 'Only objects in all of these scopes are counted.')),
        scopeSelector: atomic(pb(
          3,
          object({ matchExpressions: pb(1, atomicList(scopedResourceSelectorRequirement, 'Scope requirements, ANDed.')) }, { description: 'Like scopes, with operators and values (PriorityClass names).' }),
        )),
      },
      { description: 'The limits.' },
    ),
  )),
  status: valueStruct(pb(
    3,
    object(
      {
        hard: pb(1, resourceList('The limits being enforced, copied from spec.hard by the quota controller.')),
        used: pb(2, resourceList('What the namespace uses now of each limited resource.')),
      },
      { description: 'Enforced limits and current usage.' },
    ),
  )),
});

export type ResourceQuota = Static<typeof resourceQuotaSchema>;

export const resourceQuota = defineKind({
  ...core,
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  namespaced: true,
  shortNames: ['quota'],
  subresources: ['status'],
  description: 'Limits on the total resources and object counts of a namespace.',
  schema: resourceQuotaSchema,
});
