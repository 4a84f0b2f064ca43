// The five conditions the namespace controller reports on a namespace being deleted (pkg/controller/namespace/
// deletion/status_condition_utils.go), each with upstream's reasons and messages: `kubectl describe ns` shows
// them, and tools read them to learn why a namespace is stuck in Terminating.

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** What one pass over a namespace's content found. */
export interface ContentReport {
  discoveryFailures: string[];
  deletionFailures: string[];
  /** "pods." (resource.group) → instances still there. */
  remainingResources: Map<string, number>;
  /** finalizer → instances still carrying it. */
  remainingFinalizers: Map<string, number>;
}

const sorted = (m: Map<string, number>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

export function namespaceConditions(r: ContentReport): NamespaceCondition[] {
  const remaining = sorted(r.remainingResources);
  const finalizers = sorted(r.remainingFinalizers);
  return [
    r.discoveryFailures.length
      ? { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed for some groups, ${r.discoveryFailures.length} failing: ${r.discoveryFailures.join(', ')}` }
      : { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    r.deletionFailures.length
      ? { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${r.deletionFailures.length} remaining: ${r.deletionFailures.join(', ')}` }
      : { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    remaining.length
      ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining.map(([k, n]) => `${k} has ${n} resource instances`).join(', ')}` }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers.length
      ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${finalizers.map(([f, n]) => `${f} in ${n} resource instances`).join(', ')}` }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

/**
 * The namespace's conditions with these merged in: a condition whose status, reason and message are unchanged
 * keeps its transition time; undefined when nothing changed (no write).
 */
export function mergeConditions(current: NamespaceCondition[] | undefined, next: NamespaceCondition[], now: string): NamespaceCondition[] | undefined {
  const existing = current ?? [];
  let changed = false;
  const merged = existing.filter((c) => !next.some((n) => n.type === c.type));
  for (const n of next) {
    const old = existing.find((c) => c.type === n.type);
    if (old && old.status === n.status && old.reason === n.reason && old.message === n.message) merged.push(old);
    else {
      changed = true;
      merged.push({ ...n, lastTransitionTime: old && old.status === n.status ? old.lastTransitionTime ?? now : now });
    }
  }
  return changed ? merged : undefined;
}
