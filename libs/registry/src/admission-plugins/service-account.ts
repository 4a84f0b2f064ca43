// The ServiceAccount admission plugin, as upstream's plugin/pkg/admission/serviceaccount: a pod runs as `default`
// unless it names another account, which must exist; and unless the pod (or else its account) says
// `automountServiceAccountToken: false`, every init and regular container gets the API credentials mounted
// read-only at /var/run/secrets/kubernetes.io/serviceaccount from one projected `kube-api-access-<5 random>`
// volume (a 3607 s bound token, the cluster CA from the kube-root-ca.crt ConfigMap, the namespace). A container
// that already mounts something there keeps it; ephemeral containers are not touched (upstream). Mirror pods are
// not modified (no account, no volume): their agent would see a spec that differs from its file. They may not name
// an account, a secret or a projected token either (upstream's texts), so a static pod never runs with API
// credentials and a node cannot reach a secret by writing a mirror pod.
import { randomInt } from 'node:crypto';
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import { isMirrorPod, podReferences, type PodLike } from '../pod-references';
import type { ResourceStore } from '../resource-store';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const API_ACCESS_VOLUME_PREFIX = 'kube-api-access-';
// Upstream's SimpleNameGenerator alphabet: no vowels (no words), no look-alike characters.
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Container {
  volumeMounts?: VolumeMount[];
}
interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: Array<{ name: string }>;
  containers?: Container[];
  initContainers?: Container[];
}

const isPodCreate = (a: { operation: string; resource: { group: string; resource: string }; subresource: string }) =>
  a.operation === 'CREATE' && a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === '';

/**
 * Upstream's mirror pod rules, in its order: the pod's own account first, then any secret (over every path upstream's
 * VisitPodSecretNames walks), then a projected token. Throws the refusal.
 */
function refuseMirrorPodReferences(a: AdmissionAttributes): void {
  const refs = [...podReferences(a.object as PodLike)];
  const refuse = (why: string) => apiErrors.forbidden(a.resource, a.name, why);
  if (refs.some((r) => r.field === 'serviceAccountName')) throw refuse('a mirror pod may not reference service accounts');
  if (refs.some((r) => r.kind === 'secrets')) throw refuse('a mirror pod may not reference secrets');
  if (refs.some((r) => r.field === 'serviceAccountToken')) throw refuse('a mirror pod may not use ServiceAccountToken volume projections');
}

/** A name upstream's generator could have made: `kube-api-access-` and five characters of its alphabet. */
export function apiAccessVolumeName(random: (n: number) => number = randomInt): string {
  let s = API_ACCESS_VOLUME_PREFIX;
  for (let i = 0; i < 5; i++) s += ALPHABET[random(ALPHABET.length)];
  return s;
}

/** The projected volume upstream's plugin adds (TokenVolumeSource with the default mode 0644). */
export function apiAccessVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** Whether the token is mounted: the pod's setting wins, then the service account's; default yes. */
export function shouldAutomount(pod: PodSpec, serviceAccount: KubeObject | undefined): boolean {
  if (pod.automountServiceAccountToken !== undefined) return pod.automountServiceAccountToken;
  const sa = serviceAccount?.automountServiceAccountToken;
  return typeof sa === 'boolean' ? sa : true;
}

/** Adds the mount to every container without one at the path, and the volume when some container took the mount. */
export function mountServiceAccountToken(spec: PodSpec, newName: () => string = () => apiAccessVolumeName()): void {
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(API_ACCESS_VOLUME_PREFIX));
  const name = existing?.name ?? newName();
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    const mounts = (c.volumeMounts ??= []);
    if (mounts.some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
    mounts.push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
    needed = true;
  }
  if (!existing && needed) (spec.volumes ??= []).push(apiAccessVolume(name) as { name: string });
}

async function lookup(serviceAccounts: ResourceStore, namespace: string, name: string): Promise<KubeObject | undefined> {
  return serviceAccounts.cache.get(serviceAccounts.key(namespace, name))?.object ?? (await serviceAccounts.get(namespace, name).catch(() => undefined));
}

export function serviceAccountAdmission(serviceAccounts: ResourceStore): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    async mutate(a) {
      if (!isPodCreate(a) || !a.object) return;
      // Upstream's Admit runs Validate for a mirror pod, so it is refused before any other plugin sees it.
      if (isMirrorPod(a.object)) return refuseMirrorPodReferences(a);
      const spec = ((a.object as { spec?: PodSpec }).spec ??= {});
      spec.serviceAccountName ||= spec.serviceAccount || 'default';
      // A missing account is validate's error; here it only means "no automount setting".
      const sa = await lookup(serviceAccounts, a.namespace, spec.serviceAccountName);
      if (shouldAutomount(spec, sa)) mountServiceAccountToken(spec);
    },
    async validate(a) {
      if (!isPodCreate(a) || !a.object) return;
      // A mirror pod has no account to look up.
      if (isMirrorPod(a.object)) return refuseMirrorPodReferences(a);
      const name = (a.object as { spec?: { serviceAccountName?: string } }).spec?.serviceAccountName ?? 'default';
      const found = await lookup(serviceAccounts, a.namespace, name);
      if (!found) throw apiErrors.forbidden(a.resource, a.name, `service account ${a.namespace}/${name} was not found, retry after the service account is created`);
    },
  };
}
