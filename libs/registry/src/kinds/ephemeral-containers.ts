// pods/<name>/ephemeralcontainers (upstream's podEphemeralContainersStrategy): a view of the pod that is the pod
// itself. GET answers the pod; PUT and PATCH may add debugging containers to spec.ephemeralContainers and change
// nothing else. Existing ephemeral containers may not be changed or removed, and the new ones are validated as
// upstream validates them.
import { fieldErrors, FieldPath, type FieldError, type KubeObject } from '@cl/apimachinery';
import { pod as podKind } from '@cl/api';
import { jsonEqual } from '@cl/apimachinery';
import type { SubresourceView } from '../strategy';
import { validatePodSpec, type EphemeralContainer } from './pod-validation';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const EPHEMERAL = FieldPath.root('spec', 'ephemeralContainers');

type PodLike = KubeObject & { spec?: Record<string, unknown> & { ephemeralContainers?: EphemeralContainer[] }; status?: unknown };
const podOf = (o: KubeObject) => o as PodLike;

/** What differs between two versions of one ephemeral container, one line per field. */
function describeChange(old: EphemeralContainer, next: EphemeralContainer): string {
  const fields = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  return fields
    .filter((f) => !jsonEqual(old[f], next[f]))
    .map((f) => `\t${f}: ${JSON.stringify(old[f]) ?? 'null'} -> ${JSON.stringify(next[f]) ?? 'null'}`)
    .join('\n');
}

/** Upstream's ValidatePodEphemeralContainersUpdate: the new pod is valid, and existing ephemeral containers stay as they were. */
export function validateEphemeralContainersUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  if (old.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) return [fieldErrors.forbidden(FieldPath.root(''), 'static pods do not support ephemeral containers')];
  const errs = validatePodSpec(o);
  const next = new Map((podOf(o).spec?.ephemeralContainers ?? []).filter(Boolean).map((c) => [c.name, c]));
  for (const before of podOf(old).spec?.ephemeralContainers ?? []) {
    if (!before) continue;
    const after = next.get(before.name);
    if (!after) errs.push(fieldErrors.forbidden(EPHEMERAL, `existing ephemeral containers ${JSON.stringify(before.name)} may not be removed\n`));
    else if (!jsonEqual(before, after)) errs.push(fieldErrors.forbidden(EPHEMERAL, `existing ephemeral containers ${JSON.stringify(before.name)} may not be changed\n${describeChange(before, after)}`));
  }
  return errs;
}

/**
 * The view: the pod as it is, and a written pod of which only spec.ephemeralContainers is taken (upstream's
 * dropNonEphemeralContainerUpdates). Its resourceVersion and uid are the update's preconditions. The pod strategy's
 * prepareForUpdate then bumps the generation of the changed spec.
 */
export const podEphemeralContainersView: SubresourceView = {
  def: podKind,
  get: (pod) => pod,
  apply(written, current) {
    const spec = (podOf(current).spec ??= {});
    const ephemeral = podOf(written).spec?.ephemeralContainers;
    if (ephemeral === undefined) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = ephemeral;
    const meta = written.metadata ?? {};
    current.metadata = { ...current.metadata, resourceVersion: meta.resourceVersion, ...(meta.uid ? { uid: meta.uid } : {}) };
    return current;
  },
  validateUpdate: validateEphemeralContainersUpdate,
};
