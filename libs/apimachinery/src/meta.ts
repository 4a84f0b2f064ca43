// The parts of every object the machinery reads (metav1.ObjectMeta, TypeMeta), as plain JSON types: the kinds'
// own schemas (libs/api) describe the whole objects.
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  selfLink?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface DeleteOptions {
  kind?: string;
  apiVersion?: string;
  gracePeriodSeconds?: number | null;
  preconditions?: { uid?: string | null; resourceVersion?: string | null } | null;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | null;
  orphanDependents?: boolean | null;
  dryRun?: string[] | null;
}

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions?: TableColumnDefinition[];
  rows: TableRow[];
}
