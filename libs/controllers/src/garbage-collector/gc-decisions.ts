// What the garbage collector does with one object, as upstream's attemptToDeleteItem and
// processDeletingDependentsItem decide it (pkg/controller/garbagecollector/garbagecollector.go), as pure functions
// of what is known about it and its owners, so the rules are table-tested apart from the API calls.
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, type OwnerReference } from '@cl/apimachinery';

/** An owner reference, judged: the owner exists (solid), is gone (dangling), or is waiting for its dependents to go. */
export type OwnerState = 'solid' | 'dangling' | 'waitingForDependentsDeletion';

export type DependentAction =
  | { action: 'none' }
  /** Keep the object, dropping the references to owners that are gone or being deleted in the foreground. */
  | { action: 'removeOwnerReferences'; uids: string[] }
  | { action: 'delete'; propagationPolicy: 'Background' | 'Foreground' | 'Orphan' };

export interface DependentFacts {
  deleting: boolean;
  finalizers: string[];
  /** Whether anything names this object as its owner. */
  hasDependents: boolean;
  owners: Array<{ ref: OwnerReference; state: OwnerState }>;
}

/** attemptToDeleteItem for an object with owner references. */
export function dependentAction(f: DependentFacts): DependentAction {
  // Being deleted already, and not by this collector's foreground handling: nothing to add.
  if (f.deleting || f.owners.length === 0) return { action: 'none' };
  const solid = f.owners.filter((o) => o.state === 'solid');
  const notSolid = f.owners.filter((o) => o.state !== 'solid').map((o) => o.ref.uid);
  if (solid.length > 0) return notSolid.length ? { action: 'removeOwnerReferences', uids: notSolid } : { action: 'none' };
  const waiting = f.owners.some((o) => o.state === 'waitingForDependentsDeletion');
  // An owner going in the foreground waits for this object, so this object's own dependents go first too.
  if (waiting && f.hasDependents) return { action: 'delete', propagationPolicy: 'Foreground' };
  return { action: 'delete', propagationPolicy: defaultPolicy(f.finalizers) };
}

/** The deletion an object asks for through its finalizers (upstream's deletion of an item with no owners left). */
export function defaultPolicy(finalizers: readonly string[]): 'Background' | 'Foreground' | 'Orphan' {
  if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)) return 'Orphan';
  if (finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) return 'Foreground';
  return 'Background';
}

/** How an owner's state reads from what the collector knows of it. */
export function ownerState(owner: { uid: string; deleting: boolean; finalizers: string[] } | undefined, ref: OwnerReference): OwnerState {
  if (!owner || owner.uid !== ref.uid) return 'dangling';
  if (owner.deleting && owner.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) return 'waitingForDependentsDeletion';
  return 'solid';
}

/**
 * An owner deleted in the foreground keeps its finalizer while a dependent whose reference to it blocks owner
 * deletion remains (processDeletingDependentsItem); none left means it may go now.
 */
export function blockingDependents<T extends { owners: OwnerReference[] }>(ownerUid: string, dependents: readonly T[]): T[] {
  return dependents.filter((d) => d.owners.some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true));
}
