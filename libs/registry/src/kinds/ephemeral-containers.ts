// pods/<name>/ephemeralcontainers (upstream's podEphemeralContainersStrategy): GET answers the pod; PUT and
// PATCH may add debugging containers to spec.ephemeralContainers and change nothing else. Existing ephemeral
// containers may not be changed or removed, and the new ones are validated as upstream validates them.
//
// The generic endpoint serves POST subresources (actions) and status only, so this subresource is a second view of
// the pods' storage with this strategy: the server routes the subresource's requests to it as if they were writes
// of the pod itself (see `podEphemeralContainersStore`).
import { fieldErrors, FieldPath, type FieldError, type KubeObject } from '@cl/apimachinery';
import { pod as podKind } from '@cl/api';
import type { Store } from '@cl/store';
import type { Admission } from '../admission';
import { jsonEqual } from '@cl/apimachinery';
import { ResourceStore } from '../resource-store';
import type { Strategy } from '../strategy';
import { podTable } from './pod-printer';
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

export const podEphemeralContainersStrategy: Strategy = {
  prepareForUpdate(o, old) {
    // Everything but spec.ephemeralContainers stays as stored, metadata included (upstream's dropNonEphemeralContainerUpdates).
    const ephemeral = podOf(o).spec?.ephemeralContainers;
    for (const k of Object.keys(o)) if (k !== 'apiVersion' && k !== 'kind') delete o[k];
    for (const [k, v] of Object.entries(old)) if (k !== 'apiVersion' && k !== 'kind') o[k] = structuredClone(v);
    o.metadata = { ...o.metadata, resourceVersion: old.metadata?.resourceVersion };
    const spec = (podOf(o).spec ??= {});
    if (ephemeral === undefined) delete spec.ephemeralContainers;
    else spec.ephemeralContainers = ephemeral;
    // A spec change bumps the generation (1.33).
    if (!jsonEqual(spec, podOf(old).spec ?? {})) o.metadata.generation = (old.metadata?.generation ?? 1) + 1;
  },
  validateUpdate: validateEphemeralContainersUpdate,
  table: podTable,
};

/**
 * The pods as the ephemeralcontainers subresource writes them: the same keys in the store as the pods resource,
 * with the strategy above. Its reads and writes go straight to the store (it keeps no watch cache of its own).
 */
export function podEphemeralContainersStore(store: Store, admission: Admission, log?: (line: string) => void): ResourceStore {
  const view = new ResourceStore(podKind, store, podEphemeralContainersStrategy, { log });
  view.setAdmission(admission);
  return view;
}
