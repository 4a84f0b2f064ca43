// rbac.authorization.k8s.io/v1: roles and bindings (stored and served; enforced by the RBAC authorizer later).
import { Type } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomic, atomicList, labelSelector, object, objectMeta, pb, required, str, typeMeta, valueStruct } from '../schema';

const group = 'rbac.authorization.k8s.io';
const strings = (d?: string) => atomicList(Type.String(), d);

const policyRule = object({
  verbs: pb(1, required(strings('Verbs the rule allows; "*" for all.'))),
  apiGroups: pb(2, strings()),
  resources: pb(3, strings()),
  resourceNames: pb(4, strings()),
  nonResourceURLs: pb(5, strings()),
});
const rules = pb(2, atomicList(policyRule, 'The permissions.'));
// Subject and RoleRef are +structType=atomic; a binding's roleRef is a struct by value.
const subject = atomic(object({ kind: pb(1, required(str('User, Group or ServiceAccount.'))), apiGroup: pb(2, str()), name: pb(3, required(str())), namespace: pb(4, str()) }));
const subjects = pb(2, atomicList(subject));
const roleRef = valueStruct(pb(3, required(atomic(object({ apiGroup: pb(1, required(str())), kind: pb(2, required(str())), name: pb(3, required(str())) })))));
const metadata = pb(1, objectMeta);

export const role = defineKind({
  group, version: 'v1', kind: 'Role', plural: 'roles', namespaced: true, categories: [],
  description: 'Permissions within one namespace.',
  schema: object({ ...typeMeta(), metadata, rules }),
});

export const clusterRole = defineKind({
  group, version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false,
  description: 'Permissions across the cluster, or a set to reuse in namespaces.',
  schema: object({
    ...typeMeta(),
    metadata,
    rules,
    aggregationRule: pb(3, object({ clusterRoleSelectors: pb(1, atomicList(labelSelector, 'Cluster roles whose rules are aggregated into this one.')) })),
  }),
});

export const roleBinding = defineKind({
  group, version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true,
  description: 'Grants a role to subjects within one namespace.',
  schema: object({ ...typeMeta(), metadata, subjects, roleRef }),
});

export const clusterRoleBinding = defineKind({
  group, version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false,
  description: 'Grants a cluster role to subjects across the cluster.',
  schema: object({ ...typeMeta(), metadata, subjects, roleRef }),
});
