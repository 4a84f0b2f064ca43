// The NodeRestriction admission plugin (upstream plugin/pkg/admission/noderestriction), for the writes a node
// (`system:node:<name>` in `system:nodes`) may make at all: its own Node object only, without changing its taints
// or `node-restriction.kubernetes.io/` labels; mirror pods bound to itself that refer to no other API object, and
// the status and deletion of pods bound to itself; its own lease in kube-node-lease; service account tokens bound
// to pods scheduled on itself, for audiences those pods name or it was granted (admitNodeTokenRequest, applied by
// the TokenRequest route). Other users are not restricted. Texts as upstream's.
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { UserInfo } from '@cl/auth';
import { isMirrorPod, MIRROR_POD_ANNOTATION, podReferences, type AdmissionAttributes, type AdmissionPlugin, type PodLike, type PodReference } from '@cl/registry';

const RESTRICTED_LABEL_PREFIX = 'node-restriction.kubernetes.io/';

function nodeOf(user: unknown): string | undefined {
  const u = user as UserInfo | undefined;
  if (!u?.groups?.includes('system:nodes') || !u.username.startsWith('system:node:')) return undefined;
  return u.username.slice('system:node:'.length) || undefined;
}

const specOf = (o: KubeObject | null) => (o?.spec ?? {}) as { nodeName?: string; taints?: unknown };
const labelsOf = (o: KubeObject | null) => o?.metadata?.labels ?? {};

function restrictedLabelChanges(o: KubeObject | null, old: KubeObject | null): string[] {
  const a = labelsOf(o);
  const b = labelsOf(old);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k.startsWith(RESTRICTED_LABEL_PREFIX) && a[k] !== b[k]).sort();
}

// What a mirror pod may not refer to, so that a node cannot link itself to an object in the Node authorizer's graph
// by writing a pod. The references are the graph's own walk; the rows are upstream's checks in upstream's order
// (admitPodCreate; resource claims since 1.33.2, CVE-2025-4563), so a pod naming several kinds gets upstream's
// message. The last two rows are this server's: upstream admits an ephemeral volume (its generated claim) and a
// projected token, leaving them to its graph, which skips mirror pods as ours does, and to the ServiceAccount plugin;
// refusing them here too means a node names no claim or account through a mirror pod even with that plugin off.
const MIRROR_POD_REFUSALS: ReadonlyArray<[(r: PodReference) => boolean, string]> = [
  [(r) => r.field === 'serviceAccountName', 'reference a service account'],
  [(r) => r.kind === 'secrets', 'reference secrets'],
  [(r) => r.kind === 'configmaps', 'reference configmaps'],
  [(r) => r.kind === 'clustertrustbundles', 'reference clustertrustbundles'],
  [(r) => r.kind === 'persistentvolumeclaims' && r.field === 'volume', 'reference persistentvolumeclaims'],
  [(r) => r.kind === 'resourceclaims', 'reference resourceclaims'],
  [(r) => r.field === 'ephemeral', 'reference persistentvolumeclaims'],
  [(r) => r.field === 'serviceAccountToken', 'reference a service account'],
];

/** The refusal for a node's mirror pod that refers to other API objects, or undefined when it refers to none. */
export function mirrorPodReferenceRefusal(pod: PodLike, node: string): string | undefined {
  const refs = [...podReferences(pod)];
  for (const [matches, what] of MIRROR_POD_REFUSALS) if (refs.some(matches)) return `node "${node}" can not create pods that ${what}`;
  return undefined;
}

function admitPod(a: AdmissionAttributes, node: string): void {
  const forbid = (why: string) => apiErrors.forbidden(a.resource, a.name, why);
  if (a.subresource === 'status') {
    if (specOf(a.oldObject).nodeName !== node) throw forbid(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    return;
  }
  if (a.subresource) return;
  switch (a.operation) {
    case 'CREATE': {
      if (!isMirrorPod(a.object)) throw forbid(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
      if (specOf(a.object).nodeName !== node) throw forbid(`node "${node}" can only create pods with spec.nodeName set to itself`);
      const refusal = mirrorPodReferenceRefusal(a.object as PodLike, node);
      if (refusal) throw forbid(refusal);
      return;
    }
    case 'DELETE':
      if (specOf(a.oldObject).nodeName !== node) throw forbid(`node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    case 'UPDATE':
      throw forbid(`node "${node}" is not allowed to update pods`);
  }
}

function admitNode(a: AdmissionAttributes, node: string): void {
  const name = a.name || a.object?.metadata?.name || '';
  if (name !== node) throw apiErrors.forbidden(a.resource, name, `node "${node}" is not allowed to modify node "${name}"`);
  if (a.operation === 'DELETE') return;
  // A node may register with taints; only later changes are refused.
  if (a.operation === 'UPDATE' && !a.subresource && JSON.stringify(specOf(a.object).taints ?? []) !== JSON.stringify(specOf(a.oldObject).taints ?? [])) {
    throw apiErrors.forbidden(a.resource, name, `node "${node}" is not allowed to modify taints`);
  }
  const changed = restrictedLabelChanges(a.object, a.operation === 'CREATE' ? null : a.oldObject);
  if (changed.length > 0) throw apiErrors.forbidden(a.resource, name, `is not allowed to modify labels: ${changed.join(', ')}`);
}

export interface BoundObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

/** Asks the authorizer chain (RBAC, webhooks) about a node's request; true when it is allowed. */
export type NodeRequestAuthorizer = (attrs: { user: UserInfo; verb: string; namespace: string; apiGroup: string; resource: string; name: string }) => Promise<boolean>;

export interface NodeTokenRequest {
  namespace: string;
  serviceAccount: string;
  boundObjectRef?: BoundObjectReference;
  /** As the request named them (none: the API server's own audiences). */
  audiences?: string[];
}

interface ProjectedSource { serviceAccountToken?: { audience?: string } }
interface PodVolume { projected?: { sources?: ProjectedSource[] } }

/**
 * Whether the pod's spec already names the audience: a projected service account token source asking for it
 * (no audience there and none requested both mean the API server's). Upstream also looks through CSI drivers'
 * token requests (inline, ephemeral and PVC-backed volumes); this API server serves no CSIDriver, PV or PVC
 * objects and the node agent mounts none of those volumes, so a projected source is the only reference there is.
 */
function podReferencesAudience(pod: KubeObject, audience: string): boolean {
  const volumes = ((pod.spec ?? {}) as { volumes?: PodVolume[] }).volumes ?? [];
  return volumes.some((v) => (v.projected?.sources ?? []).some((s) => s.serviceAccountToken !== undefined && (s.serviceAccountToken.audience ?? '') === audience));
}

/**
 * upstream's admitServiceAccount: a node's TokenRequest must be bound to a pod (with its uid) that is scheduled on
 * that node, so a node's credentials cannot mint tokens for pods elsewhere; and (ServiceAccountNodeAudienceRestriction,
 * beta and on in 1.33) for at most one audience, one the pod's spec names or one an administrator granted the node
 * with the `request-serviceaccounts-token-audience` verb on the audience as resource (RBAC `resources: [<audience>]`,
 * `resourceNames` the service account). Throws the refusal; other users pass.
 */
export async function admitNodeTokenRequest(user: UserInfo, tr: NodeTokenRequest, getPod: (namespace: string, name: string) => Promise<KubeObject | undefined>,
  authorize: NodeRequestAuthorizer): Promise<void> {
  const node = nodeOf(user);
  if (!node) return;
  const forbid = (why: string) => apiErrors.forbidden({ group: '', resource: 'serviceaccounts' }, tr.serviceAccount, why);
  const ref = tr.boundObjectRef;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbid('node requested token not bound to a pod');
  if (!ref.uid) throw forbid('node requested token with a pod binding without a uid');
  const pod = await getPod(tr.namespace, ref.name);
  if (!pod) throw apiErrors.notFound({ group: '', resource: 'pods' }, ref.name);
  if (pod.metadata?.uid !== ref.uid) {
    throw forbid(`the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (specOf(pod).nodeName !== node) throw forbid('node requested token bound to a pod scheduled on a different node');

  const audiences = tr.audiences ?? [];
  if (audiences.length > 1) throw forbid('node may only request 0 or 1 audiences');
  const audience = audiences[0] ?? '';
  if (podReferencesAudience(pod, audience)) return;
  const granted = await authorize({ user, verb: 'request-serviceaccounts-token-audience', namespace: tr.namespace, apiGroup: '', resource: audience, name: tr.serviceAccount });
  if (!granted) throw forbid(`audience "${audience}" not found in pod spec volume, system:node:${node} is not authorized to request tokens for this audience`);
}

export function nodeRestriction(): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    validate(a) {
      const node = nodeOf(a.user);
      if (!node) return;
      const { group, resource } = a.resource;
      if (group === '' && resource === 'pods') return admitPod(a, node);
      if (group === '' && resource === 'nodes') return admitNode(a, node);
      if (group === 'coordination.k8s.io' && resource === 'leases' && a.namespace === 'kube-node-lease') {
        const name = a.name || a.object?.metadata?.name || '';
        if (name !== node) throw apiErrors.forbidden(a.resource, name, 'can only access node lease with the same name as the requesting node');
      }
    },
  };
}
