// The objects kube-apiserver's post-start hooks create in a new cluster, so a fresh cl store holds what a
// Kubernetes user expects to find (the four system namespaces, the bootstrap RBAC roles that open the
// health paths to everyone, the two system priority classes, the local APIServices).
import { randomUUID } from 'node:crypto';

export interface StoredObject {
  key: string;
  object: Record<string, unknown>;
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: randomUUID(),
  creationTimestamp: now(),
  labels: { 'cl.io/bootstrapping': 'rbac-defaults' },
});

export function systemNamespaces(): StoredObject[] {
  return ['default', 'kube-system', 'kube-public', 'kube-node-lease'].map((name) => ({
    key: `/namespaces/${name}`,
    object: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { ...meta(name), labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    },
  }));
}

interface Rule {
  verbs: string[];
  nonResourceURLs?: string[];
  apiGroups?: string[];
  resources?: string[];
}

function clusterRole(name: string, rules: Rule[]): StoredObject {
  return { key: `/clusterroles/${name}`, object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name), rules } };
}

function clusterRoleBinding(name: string, role: string, groups: string[]): StoredObject {
  return {
    key: `/clusterrolebindings/${name}`,
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
    },
  };
}

export function bootstrapRbac(): StoredObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole('system:discovery', [
      { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ]),
    clusterRole('system:monitoring', [
      { nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], verbs: ['get'] },
    ]),
    clusterRoleBinding('cluster-admin', 'cluster-admin', ['system:masters']),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    clusterRoleBinding('system:discovery', 'system:discovery', ['system:authenticated']),
    clusterRoleBinding('system:monitoring', 'system:monitoring', ['system:monitoring']),
  ];
}

export function systemPriorityClasses(): StoredObject[] {
  return [
    ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
    ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
  ].map(([name, value, description]) => ({
    key: `/priorityclasses/${name}`,
    object: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta(name as string), value, description, preemptionPolicy: 'PreemptLowerPriority' },
  }));
}

export function authenticationInfo(clientCA: string | null): StoredObject {
  return {
    key: '/configmaps/kube-system/extension-apiserver-authentication',
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('extension-apiserver-authentication', 'kube-system'),
      data: clientCA ? { 'client-ca-file': clientCA } : {},
    },
  };
}

/** An APIService for one group version this server serves itself (no service: local). */
export function localApiService(group: string, version: string): StoredObject {
  const name = `${version}.${group}`;
  return {
    key: `/apiregistration.k8s.io/apiservices/${name}`,
    object: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { ...meta(name), labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
      spec: { group, version, groupPriorityMinimum: 18000, versionPriority: 15 },
      status: {},
    },
  };
}
