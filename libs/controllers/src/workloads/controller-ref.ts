// ControllerRefs as upstream's controller_ref_manager: which object controls which, what a controller does with
// an object its selector may or may not match (own it, adopt it, release it, leave it), and the strategic merge
// patches that adopt and release. The patches carry the dependent's uid, so a dependent deleted and created
// again under the same name refuses them (the server rejects a changed uid).
import { labelSelectorFromMeta, type LabelSelector, type MetaLabelSelector } from '@cl/apimachinery';
import { isInvalid, isNotFound, type Informer, type KubeClient } from '@cl/kube-client';
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
/** A controller claiming objects: what it is, and where it is read from before an adoption. */
export interface Claimant extends Owner {
  path: string;
}

/**
 * ControllerRefManager.Claim*: the candidates the controller controls once the orphans it selects are adopted and
 * the objects it no longer selects are released (adopted ones as the server answered the patch). Before the first
 * adoption the controller is read from the server, so one that is gone or being deleted adopts nothing
 * (RecheckDeletionTimestamp). Throws the first failed claim after trying them all: the caller's sync retries
 * rather than acting on a partial list.
 */
export async function claimObjects<T extends { metadata: ObjectMeta }>(client: KubeClient, controller: Claimant, selector: LabelSelector, candidates: readonly T[], pathOf: (obj: T) => string): Promise<T[]> {
  const owned: T[] = [];
  const errors: unknown[] = [];
  let canAdopt: Promise<void> | undefined;
  for (const obj of candidates) {
    const decision = claimDecision(controller, obj, selector.matches(obj.metadata.labels ?? {}));
    if (decision === 'owned') owned.push(obj);
    if (decision === 'adopt') {
      try {
        await (canAdopt ??= recheckNotDeleted(client, controller));
        owned.push(await client.patch<T>(pathOf(obj), adoptPatch(controller, obj.metadata.uid), 'strategic'));
      } catch (e) {
        if (!isNotFound(e)) errors.push(e);
      }
    }
    if (decision === 'release') {
      try {
        await client.patch(pathOf(obj), releasePatch(controller.metadata.uid, obj.metadata.uid), 'strategic');
      } catch (e) {
        // Gone, or deleted and created again (the uid no longer matches): nothing left to release.
        if (!isNotFound(e) && !isInvalid(e)) errors.push(e);
      }
    }
  }
  if (errors.length) throw errors[0];
  return owned;
}

async function recheckNotDeleted(client: KubeClient, controller: Claimant): Promise<void> {
  const fresh = await client.get<{ metadata: ObjectMeta }>(controller.path);
  const { namespace, name, uid } = controller.metadata;
  if (fresh.metadata.uid !== uid) throw new Error(`original ${controller.kind} ${namespace}/${name} is gone: got uid ${fresh.metadata.uid}, wanted ${uid}`);
  if (fresh.metadata.deletionTimestamp) throw new Error(`${controller.kind} ${namespace}/${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
}

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
