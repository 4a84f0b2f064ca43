// rbac.authorization.k8s.io/v1 objects as plain data: only the fields authorization reads.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface ObjectMetaLite {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Role {
  metadata: ObjectMetaLite;
  rules?: PolicyRule[];
}

export interface LabelSelectorLite {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface ClusterRole extends Role {
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorLite[] };
}

export interface Binding {
  metadata: ObjectMetaLite;
  roleRef: RoleRef;
  subjects?: Subject[];
}

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
