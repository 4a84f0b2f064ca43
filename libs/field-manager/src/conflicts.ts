// An apply refused because it would change fields other managers own, with upstream's message and one cause per
// field (the API server turns it into the 409 Status kubectl prints).
import { formatPath, type PathKey } from './field-set';
import type { Managed } from './managed-fields';

export interface Conflict {
  manager: Pick<Managed, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;
  path: PathKey[];
}

/** How upstream names a manager in conflicts: `"name"`, with its subresource, and `using <version>` for updaters. */
export function describeManager(m: Conflict['manager']): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

export class ApplyConflictError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }

  /** metav1.StatusCause entries: reason FieldManagerConflict, one per field. */
  get causes(): { reason: string; message: string; field: string }[] {
    return this.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c.manager)}`, field: formatPath(c.path) }));
  }
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0].manager)}: ${formatPath(conflicts[0].path)}`;
  // Grouped by manager, managers in the order of their identities (upstream sorts its encoded identifiers).
  const byManager = new Map<string, { name: string; paths: string[] }>();
  for (const c of conflicts) {
    const key = JSON.stringify([c.manager.manager, c.manager.operation, c.manager.apiVersion, c.manager.subresource]);
    let g = byManager.get(key);
    if (!g) byManager.set(key, (g = { name: describeManager(c.manager), paths: [] }));
    g.paths.push(formatPath(c.path));
  }
  const lines: string[] = [];
  for (const key of [...byManager.keys()].sort()) {
    const g = byManager.get(key)!;
    lines.push(`conflicts with ${g.name}:`, ...g.paths.map((p) => `- ${p}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
