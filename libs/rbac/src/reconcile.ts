// Bootstrap policy reconciliation at start (upstream pkg/registry/rbac/reconciliation): a missing role or binding
// is created; an existing one is completed with the expected rules, aggregation selectors, labels, annotations
// and subjects it lacks, never stripped of what an administrator added; one annotated
// `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone; a binding whose roleRef differs is
// recreated (roleRef cannot change).
import { AUTOUPDATE_ANNOTATION } from './bootstrap-policy';
import { covers } from './escalation';
import type { Binding, ClusterRole, LabelSelectorLite, Subject } from './types';

export type Reconciled<T> = { action: 'none' } | { action: 'create' | 'update' | 'recreate'; object: T };

const isProtected = (o: { metadata: { annotations?: Record<string, string> } }) => o.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

function mergeMeta<T extends ClusterRole | Binding>(existing: T, expected: T): { object: T; changed: boolean } {
  const labels = { ...(expected.metadata.labels ?? {}), ...(existing.metadata.labels ?? {}) };
  const annotations = { ...(expected.metadata.annotations ?? {}), ...(existing.metadata.annotations ?? {}) };
  const changed = JSON.stringify(labels) !== JSON.stringify(existing.metadata.labels ?? {}) || JSON.stringify(annotations) !== JSON.stringify(existing.metadata.annotations ?? {});
  return { object: { ...existing, metadata: { ...existing.metadata, labels, annotations } }, changed };
}

export function reconcileClusterRole(existing: ClusterRole | undefined, expected: ClusterRole): Reconciled<ClusterRole> {
  if (!existing) return { action: 'create', object: expected };
  if (isProtected(existing)) return { action: 'none' };
  const merged = mergeMeta(existing, expected);
  let changed = merged.changed;
  const object = merged.object;
  if (expected.aggregationRule) {
    // Rules of an aggregated role belong to the aggregation controller; only the selectors are completed.
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const key = (s: LabelSelectorLite) => JSON.stringify(s);
    const missing = (expected.aggregationRule.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => key(h) === key(s)));
    if (missing.length > 0 || !existing.aggregationRule) {
      object.aggregationRule = { clusterRoleSelectors: [...have, ...missing] };
      changed = true;
    }
  } else {
    const { missing } = covers(existing.rules ?? [], expected.rules ?? []);
    if (missing.length > 0) {
      object.rules = [...(existing.rules ?? []), ...missing];
      changed = true;
    }
  }
  return changed ? { action: 'update', object } : { action: 'none' };
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

export function reconcileBinding(existing: Binding | undefined, expected: Binding): Reconciled<Binding> {
  if (!existing) return { action: 'create', object: expected };
  if (isProtected(existing)) return { action: 'none' };
  if (existing.roleRef.kind !== expected.roleRef.kind || existing.roleRef.name !== expected.roleRef.name) {
    return { action: 'recreate', object: { ...expected, subjects: [...(existing.subjects ?? []), ...(expected.subjects ?? []).filter((s) => !(existing.subjects ?? []).some((e) => sameSubject(e, s)))] } };
  }
  const merged = mergeMeta(existing, expected);
  const missing = (expected.subjects ?? []).filter((s) => !(existing.subjects ?? []).some((e) => sameSubject(e, s)));
  if (missing.length > 0) merged.object.subjects = [...(existing.subjects ?? []), ...missing];
  return merged.changed || missing.length > 0 ? { action: 'update', object: merged.object } : { action: 'none' };
}
