// The objects kube-apiserver's post-start hooks create in a new cluster, so a fresh cl store holds what a
// Kubernetes user expects to find (the four system namespaces, the two system priority classes, the local APIServices).
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

// The bootstrap RBAC policy is @cl/rbac's (reconciled by ./authz/bootstrap-reconcile).

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
