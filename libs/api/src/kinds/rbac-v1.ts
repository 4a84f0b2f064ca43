// rbac.authorization.k8s.io/v1: roles and bindings (stored and served; enforced by the RBAC authorizer later).
import { Type } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomicList, object, objectMeta, required, str, typeMeta } from '../schema';

const group = 'rbac.authorization.k8s.io';
const strings = (d?: string) => atomicList(Type.String(), d);

const policyRule = object({
  verbs: required(strings('Verbs the rule allows; "*" for all.')),
  apiGroups: strings(),
  resources: strings(),
  resourceNames: strings(),
  nonResourceURLs: strings(),
});
const rules = atomicList(policyRule, 'The permissions.');
const subject = object({ kind: required(str('User, Group or ServiceAccount.')), apiGroup: str(), name: required(str()), namespace: str() });
const roleRef = required(object({ apiGroup: required(str()), kind: required(str()), name: required(str()) }));

export const role = defineKind({
  group, version: 'v1', kind: 'Role', plural: 'roles', namespaced: true, categories: [],
  description: 'Permissions within one namespace.',
  schema: object({ ...typeMeta(), metadata: objectMeta, rules }),
});

export const clusterRole = defineKind({
  group, version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false,
  description: 'Permissions across the cluster, or a set to reuse in namespaces.',
  schema: object({
    ...typeMeta(),
    metadata: objectMeta,
    rules,
    aggregationRule: object({ clusterRoleSelectors: atomicList(Type.Unknown({ 'x-kubernetes-preserve-unknown-fields': true })) }),
  }),
});

export const roleBinding = defineKind({
  group, version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true,
  description: 'Grants a role to subjects within one namespace.',
  schema: object({ ...typeMeta(), metadata: objectMeta, subjects: atomicList(subject), roleRef }),
});

export const clusterRoleBinding = defineKind({
  group, version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false,
  description: 'Grants a cluster role to subjects across the cluster.',
  schema: object({ ...typeMeta(), metadata: objectMeta, subjects: atomicList(subject), roleRef }),
});
