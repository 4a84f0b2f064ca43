// ControllerRefs as upstream's controller_ref_manager: which object controls which, what a controller does with
// an object its selector may or may not match (own it, adopt it, release it, leave it), and the strategic merge
// patches that adopt and release. The patches carry the dependent's uid, so a dependent deleted and created
// again under the same name refuses them (the server rejects a changed uid).
import { labelSelectorFromMeta, type LabelSelector, type MetaLabelSelector } from '@cl/apimachinery';
import type { Informer } from '@cl/kube-client';
import type { ObjectMeta, OwnerReference } from './types';

interface Owner {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** The ownerReference with controller=true (metav1.GetControllerOf). */
export function controllerOf(obj: { metadata: ObjectMeta }): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** metav1.NewControllerRef: the reference a controller puts on what it creates or adopts. */
export function controllerRefTo(owner: Owner): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

export type ClaimDecision = 'owned' | 'adopt' | 'release' | 'ignore';

/**
 * BaseControllerRefManager.ClaimObject's decision for one object: keep what we control and still match, release
 * what we control and no longer match (unless we are being deleted), adopt matching orphans (unless either side
 * is being deleted or they live in another namespace), and leave everything else alone.
 */
export function claimDecision(controller: { metadata: ObjectMeta }, obj: { metadata: ObjectMeta }, matches: boolean): ClaimDecision {
  const ref = controllerOf(obj);
  if (ref) {
    if (ref.uid !== controller.metadata.uid) return 'ignore';
    if (matches) return 'owned';
    return controller.metadata.deletionTimestamp ? 'ignore' : 'release';
  }
  if (controller.metadata.deletionTimestamp || !matches) return 'ignore';
  if (obj.metadata.deletionTimestamp) return 'ignore';
  if (controller.metadata.namespace && controller.metadata.namespace !== obj.metadata.namespace) return 'ignore';
  return 'adopt';
}

export function adoptPatch(owner: Owner, dependentUid: string | undefined): Record<string, unknown> {
  return { metadata: { ownerReferences: [controllerRefTo(owner)], uid: dependentUid } };
}

export function releasePatch(ownerUid: string | undefined, dependentUid: string | undefined): Record<string, unknown> {
  return { metadata: { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: dependentUid } };
}

/** The controller's spec.selector parsed; undefined when it is invalid (such a controller selects nothing). */
export function selectorOf(controller: { spec?: { selector?: MetaLabelSelector | null } }): LabelSelector | undefined {
  try {
    return labelSelectorFromMeta(controller.spec?.selector);
  } catch {
    return undefined;
  }
}

/** The controller of `kind` that `ref` names in `namespace`, if the informer holds it with that uid (resolveControllerRef). */
export function resolveControllerRef<T extends { metadata: ObjectMeta }>(controllers: Informer<T>, kind: string, namespace: string | undefined, ref: OwnerReference): T | undefined {
  if (ref.kind !== kind) return undefined;
  const c = controllers.get(`${namespace ?? ''}/${ref.name}`);
  return c && c.metadata.uid === ref.uid ? c : undefined;
}

/** Controllers of the object's namespace whose selector matches its labels: candidates to adopt it as an orphan. */
export function controllersSelecting<T extends { metadata: ObjectMeta; spec?: { selector?: MetaLabelSelector | null } }>(controllers: readonly T[], obj: { metadata: ObjectMeta }): T[] {
  const labels = obj.metadata.labels ?? {};
  if (Object.keys(labels).length === 0) return [];
  return controllers.filter((c) => {
    if (c.metadata.namespace !== obj.metadata.namespace) return false;
    const selector = selectorOf(c);
    return !!selector && !selector.empty && selector.matches(labels);
  });
}
