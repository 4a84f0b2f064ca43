// The API objects a pod refers to by name, as one walk that every reader of those references shares: the Node
// authorizer lets a node read what the pods bound to it name, while NodeRestriction and the ServiceAccount plugin
// refuse mirror pods (which a node creates itself) that name anything. A path the graph followed but admission did
// not check would let a node credential grant itself any Secret or ConfigMap, so both read this one list.
// The paths are upstream's: pkg/api/pod VisitPodSecretNames / VisitPodConfigmapNames over all containers, and the
// node graph's AddPod (service account, claim volumes, ephemeral volumes' generated claims, resource claims).

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** A mirror pod: the annotation is there, whatever its value (upstream tests presence). */
export const isMirrorPod = (pod: { metadata?: { annotations?: Record<string, string> } } | null | undefined): boolean =>
  pod?.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;

export type PodReferenceKind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'resourceclaims' | 'clustertrustbundles' | 'serviceaccounts';

/**
 * The field a reference sits in. Readers tell some apart: a claim volume from an ephemeral volume's generated
 * claim, the pod's own account from a token projected for it.
 */
export type PodReferenceField = 'serviceAccountName' | 'serviceAccountToken' | 'imagePullSecrets' | 'env' | 'envFrom' | 'volume' | 'projected' | 'ephemeral' | 'resourceClaims';

export interface PodReference {
  kind: PodReferenceKind;
  /** '' when the field names no object yet (a claim made from a template not created yet, a bundle chosen by signer). */
  name: string;
  field: PodReferenceField;
}

interface NameRef {
  name?: string;
}
interface ContainerLike {
  env?: Array<{ valueFrom?: { secretKeyRef?: NameRef; configMapKeyRef?: NameRef } }>;
  envFrom?: Array<{ secretRef?: NameRef; configMapRef?: NameRef }>;
}
type Source = Record<string, unknown> | undefined;
interface VolumeLike {
  name?: string;
  [source: string]: unknown;
}
interface ProjectionLike {
  secret?: NameRef;
  configMap?: NameRef;
  serviceAccountToken?: unknown;
  clusterTrustBundle?: { name?: string; signerName?: string };
}
export interface PodLike {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: {
    serviceAccountName?: string;
    serviceAccount?: string;
    imagePullSecrets?: NameRef[];
    containers?: ContainerLike[];
    initContainers?: ContainerLike[];
    ephemeralContainers?: ContainerLike[];
    volumes?: VolumeLike[];
    resourceClaims?: Array<{ name?: string; resourceClaimName?: string }>;
  };
  status?: { resourceClaimStatuses?: Array<{ name?: string; resourceClaimName?: string }> };
}

const refName = (o: unknown) => (o as NameRef | undefined)?.name;

// Volume sources that name a secret, and where (upstream's VisitPodSecretNames).
const SECRET_VOLUME_SOURCES: Record<string, (s: Record<string, unknown>) => string | undefined> = {
  secret: (s) => s.secretName as string | undefined,
  azureFile: (s) => s.secretName as string | undefined,
  cephfs: (s) => refName(s.secretRef),
  cinder: (s) => refName(s.secretRef),
  flexVolume: (s) => refName(s.secretRef),
  rbd: (s) => refName(s.secretRef),
  scaleIO: (s) => refName(s.secretRef),
  iscsi: (s) => refName(s.secretRef),
  storageos: (s) => refName(s.secretRef),
  csi: (s) => refName(s.nodePublishSecretRef),
};

/**
 * Every reference the pod makes, in spec order. Secret, config map and account names that are empty are no
 * reference (upstream's visitors skip them); a claim volume, an ephemeral volume, a resource claim or a trust
 * bundle projection is one by being there, as upstream's checks test the field, not its name.
 */
export function* podReferences(pod: PodLike): Generator<PodReference> {
  const spec = pod.spec ?? {};
  const named = (kind: PodReferenceKind, field: PodReferenceField, name: string | undefined): PodReference[] => (name ? [{ kind, name, field }] : []);

  // The deprecated serviceAccount field stands for serviceAccountName when that is empty (the v1 conversion).
  const account = spec.serviceAccountName || spec.serviceAccount || '';
  yield* named('serviceaccounts', 'serviceAccountName', account);
  for (const s of spec.imagePullSecrets ?? []) yield* named('secrets', 'imagePullSecrets', s.name);

  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      yield* named('secrets', 'envFrom', e.secretRef?.name);
      yield* named('configmaps', 'envFrom', e.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      yield* named('secrets', 'env', e.valueFrom?.secretKeyRef?.name);
      yield* named('configmaps', 'env', e.valueFrom?.configMapKeyRef?.name);
    }
  }

  for (const v of spec.volumes ?? []) {
    for (const [source, nameOf] of Object.entries(SECRET_VOLUME_SOURCES)) {
      const s = v[source] as Source;
      if (s) yield* named('secrets', 'volume', nameOf(s));
    }
    yield* named('configmaps', 'volume', refName(v.configMap));
    const pvc = v.persistentVolumeClaim as { claimName?: string } | undefined;
    if (pvc) yield { kind: 'persistentvolumeclaims', name: pvc.claimName ?? '', field: 'volume' };
    // The claim an ephemeral volume's template makes is named <pod>-<volume> (upstream's ephemeral.VolumeClaimName).
    if (v.ephemeral) yield { kind: 'persistentvolumeclaims', name: pod.metadata?.name && v.name ? `${pod.metadata.name}-${v.name}` : '', field: 'ephemeral' };
    for (const p of ((v.projected as { sources?: ProjectionLike[] } | undefined)?.sources ?? [])) {
      yield* named('secrets', 'projected', p.secret?.name);
      yield* named('configmaps', 'projected', p.configMap?.name);
      // A projected token is issued for the pod's account (default when it names none).
      if (p.serviceAccountToken) yield { kind: 'serviceaccounts', name: account || 'default', field: 'serviceAccountToken' };
      if (p.clusterTrustBundle) yield { kind: 'clustertrustbundles', name: p.clusterTrustBundle.name ?? '', field: 'projected' };
    }
  }

  // A claim from a template is named in the status once the controller made it.
  const made = new Map((pod.status?.resourceClaimStatuses ?? []).map((s) => [s.name, s.resourceClaimName]));
  for (const rc of spec.resourceClaims ?? []) yield { kind: 'resourceclaims', name: rc.resourceClaimName ?? made.get(rc.name) ?? '', field: 'resourceClaims' };
}
