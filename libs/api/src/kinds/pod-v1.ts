// core/v1 Pod as of Kubernetes 1.33: the spec (containers, volumes, scheduling, security) and the status kubelets
// report. Field numbers are those of k8s.io/api core/v1 generated.proto; list strategies those of types.go.
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomic, atomicList, bool, int32, int64, intOrString, labelSelector, mergeList, nullWhenUnset, object, objectMeta, pb, quantity, required, str, stringMap, time, typeMeta, valueStruct } from '../schema';
import { setPodDefaults } from './pod-defaults';

// ---- helpers (candidates for schema.ts) ----

/** A ResourceList: resource names ("cpu", "memory", "nvidia.com/gpu") to quantities. */
export const resourceList = (description?: string) => Type.Record(Type.String(), quantity(), { description });

const strings = (description?: string) => atomicList(Type.String(), description);

/** The same schema with its own description, for a shared struct used by several fields. */
export const doc = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description }) as T;

/**
 * A list keyed by `keys` (`+listType=map`) with no patchStrategy tag: server-side apply merges it by key, strategic
 * merge patch replaces it whole.
 */
function keyedList<T extends TSchema>(item: T, keys: string[], description?: string) {
  return Type.Array(item, { description, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
}

/** A merge list whose list-map keys are more than its merge key (container ports: containerPort and protocol). */
function mergeListKeys<T extends TSchema>(item: T, mergeKey: string, listMapKeys: string[], description?: string) {
  return Object.assign(mergeList(item, mergeKey, description), { 'x-kubernetes-list-map-keys': listMapKeys });
}

/** `patchStrategy:"merge,retainKeys"`: merged by key, and a patched item drops the fields its `$retainKeys` leaves out. */
function mergeRetainKeysList<T extends TSchema>(item: T, mergeKey: string, description?: string) {
  return Object.assign(mergeList(item, mergeKey, description), { 'x-kubernetes-patch-strategy': 'merge,retainKeys' });
}

/** `patchStrategy:"merge"` by a key on a `+listType=atomic` list (pod hostIPs): merged by key, applied whole. */
function atomicMergeList<T extends TSchema>(item: T, mergeKey: string, description?: string) {
  const list = mergeList(item, mergeKey, description);
  delete list['x-kubernetes-list-map-keys'];
  list['x-kubernetes-list-type'] = 'atomic';
  return list;
}

/**
 * A field of a Go struct embedded inline (`json:",inline"`): a plain field in JSON, but in protobuf field `inner` of
 * the embedded message, itself field `outer` of the parent (Volume.volumeSource = 2, Probe.handler = 1,
 * EphemeralContainer.ephemeralContainerCommon = 1, the LocalObjectReference of key selectors = 1). It carries no
 * `x-cl-proto` of its own, so a protobuf decoder that does not know `x-cl-proto-embedded` skips it rather than
 * reading the wrong bytes.
 */
export function embedded<T extends TSchema>(outer: number, inner: number, schema: T): T {
  const { 'x-cl-proto': _dropped, ...rest } = schema as T & { 'x-cl-proto'?: number };
  return { ...rest, 'x-cl-proto-embedded': [outer, inner] } as unknown as T;
}

/** Every field of `props` (each with its `pb` number) embedded inline at field `outer` of the parent. */
function embedAll<P extends TProperties>(outer: number, props: P): P {
  return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, embedded(outer, s['x-cl-proto'] as number, s)])) as P;
}

// ---- references and selectors ----

// The +structType=atomic types of core/v1 types.go are owned whole by server-side apply (x-kubernetes-map-type).
export const localObjectReference = atomic(object({ name: pb(1, str('Name of the referenced object, in the same namespace.')) }));
/** The `name` of an inline LocalObjectReference (field 1 of the parent). */
const refName = (description: string) => embedded(1, 1, str(description));

const objectFieldSelector = atomic(
  object({
    apiVersion: pb(1, str('Version of the schema fieldPath is written against; "v1" when empty.')),
    fieldPath: pb(2, required(str('Path of the field to read, such as metadata.name or status.podIP.'))),
  }),
);

const resourceFieldSelector = atomic(
  object({
    containerName: pb(1, str('Container whose resources are read; needed in volumes, optional in env.')),
    resource: pb(2, required(str('Which resource value to read, such as limits.cpu or requests.memory.'))),
    divisor: pb(3, quantity('Unit the value is divided by before it is exposed; 1 when unset.')),
  }),
);

const keyToPath = object({
  key: pb(1, required(str('Key of the source whose value becomes the file.'))),
  path: pb(2, required(str('Relative path of the file inside the volume; must not contain "..".'))),
  mode: pb(3, int32('Permission bits of this one file (octal 0000-0777); the volume defaultMode when unset.')),
});
const keyToPaths = (what: string) => atomicList(keyToPath, `Which keys of the ${what} to project and where; every key by its own name when empty.`);

const downwardAPIVolumeFile = object({
  path: pb(1, required(str('Relative path of the file to create; must not contain "..".'))),
  fieldRef: pb(2, doc(objectFieldSelector, 'A pod field to write (metadata.name, metadata.labels, ...).')),
  resourceFieldRef: pb(3, doc(resourceFieldSelector, 'A container resource limit or request to write.')),
  mode: pb(4, int32('Permission bits of this file; the volume defaultMode when unset.')),
});

// ---- volumes ----

const emptyDirVolumeSource = object({
  medium: pb(1, str('Backing storage: "" for the node default medium, "Memory" for tmpfs.')),
  sizeLimit: pb(2, quantity('Most local storage the volume may use before the pod is evicted.')),
});

const hostPathVolumeSource = object({
  path: pb(1, required(str('Path on the node; a symlink is followed to its target.'))),
  type: pb(2, str('What must exist at the path: "" (no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.')),
});

const secretVolumeSource = object({
  secretName: pb(1, str('Secret in the pod namespace to expose.')),
  items: pb(2, keyToPaths('secret')),
  defaultMode: pb(3, int32('Permission bits of the created files (0644 when unset).')),
  optional: pb(4, bool('If true, a missing secret or key is not an error.')),
});

const configMapVolumeSource = object({
  name: refName('ConfigMap in the pod namespace to expose.'),
  items: pb(2, keyToPaths('config map')),
  defaultMode: pb(3, int32('Permission bits of the created files (0644 when unset).')),
  optional: pb(4, bool('If true, a missing config map or key is not an error.')),
});

const downwardAPIVolumeSource = object({
  items: pb(1, atomicList(downwardAPIVolumeFile, 'The files to create.')),
  defaultMode: pb(2, int32('Permission bits of the created files (0644 when unset).')),
});

const serviceAccountTokenProjection = object({
  audience: pb(1, str('Audience the token is issued for; the API server audiences when empty.')),
  expirationSeconds: pb(2, int64('Requested token lifetime in seconds; at least 600, 3600 when unset. The kubelet refreshes the token before it expires.')),
  path: pb(3, required(str('File path, relative to the mount point, the token is written to.'))),
});

const clusterTrustBundleProjection = object({
  name: pb(1, str('One ClusterTrustBundle by name; excludes signerName and labelSelector.')),
  signerName: pb(2, str('All ClusterTrustBundles of this signer (narrowed by labelSelector).')),
  labelSelector: pb(3, doc(labelSelector, 'With signerName, only bundles whose labels match.')),
  optional: pb(5, bool('If true, a missing bundle leaves an empty file instead of blocking the pod.')),
  path: pb(4, required(str('File path, relative to the volume root, the certificates are written to.'))),
});

const volumeProjection = object({
  secret: pb(1, object({ name: refName('Secret to project.'), items: pb(2, keyToPaths('secret')), optional: pb(4, bool('If true, a missing secret or key is not an error.')) }, { description: 'Keys of a secret.' })),
  downwardAPI: pb(2, object({ items: pb(1, atomicList(downwardAPIVolumeFile, 'The files to create.')) }, { description: 'Pod fields and resources.' })),
  configMap: pb(3, object({ name: refName('ConfigMap to project.'), items: pb(2, keyToPaths('config map')), optional: pb(4, bool('If true, a missing config map or key is not an error.')) }, { description: 'Keys of a config map.' })),
  serviceAccountToken: pb(4, doc(serviceAccountTokenProjection, 'A bound token of the pod service account.')),
  clusterTrustBundle: pb(5, doc(clusterTrustBundleProjection, 'Certificates of ClusterTrustBundle objects.')),
});

const projectedVolumeSource = object({
  sources: pb(1, atomicList(volumeProjection, 'The sources merged into the volume.')),
  defaultMode: pb(2, int32('Permission bits of the created files (0644 when unset).')),
});

const persistentVolumeClaimVolumeSource = object({
  claimName: pb(1, required(str('PersistentVolumeClaim in the pod namespace.'))),
  readOnly: pb(2, bool('Mount read-only regardless of the mount settings.')),
});

const nfsVolumeSource = object({
  server: pb(1, required(str('Host name or IP of the NFS server.'))),
  path: pb(2, required(str('Exported path on the server.'))),
  readOnly: pb(3, bool('Mount the export read-only.')),
});

const csiVolumeSource = object({
  driver: pb(1, required(str('Name of the CSI driver that provides the volume.'))),
  readOnly: pb(2, bool('Mount read-only.')),
  fsType: pb(3, str('Filesystem to mount, such as ext4; the driver decides when empty.')),
  volumeAttributes: pb(4, stringMap('Driver-specific settings.')),
  nodePublishSecretRef: pb(5, doc(localObjectReference, 'Secret passed to the driver on NodePublishVolume calls.')),
});

const typedLocalObjectReference = atomic(
  object({
    apiGroup: pb(1, str('API group of the referent; empty for the core group.')),
    kind: pb(2, required(str('Kind of the referent.'))),
    name: pb(3, required(str('Name of the referent.'))),
  }),
);

const persistentVolumeClaimSpec = object({
  accessModes: pb(1, strings('How the volume may be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod.')),
  selector: pb(4, doc(labelSelector, 'Labels of the volumes the claim may bind to.')),
  resources: pb(2, valueStruct(object({ limits: pb(1, resourceList('Most storage the claim may use.')), requests: pb(2, resourceList('Least storage the claim needs.')) }, { description: 'Storage the claim asks for.' }))),
  volumeName: pb(3, str('A specific PersistentVolume to bind to.')),
  storageClassName: pb(5, str('StorageClass that provisions the volume.')),
  volumeMode: pb(6, str('Filesystem (the default) or Block.')),
  dataSource: pb(7, doc(typedLocalObjectReference, 'Snapshot or claim in the same namespace to populate the volume from.')),
  dataSourceRef: pb(
    8,
    object(
      {
        apiGroup: pb(1, str('API group of the referent; empty for the core group.')),
        kind: pb(2, required(str('Kind of the referent.'))),
        name: pb(3, required(str('Name of the referent.'))),
        namespace: pb(4, str('Namespace of the referent, when it differs (needs a ReferenceGrant).')),
      },
      { description: 'Any object (possibly of a volume populator) to populate the volume from.' },
    ),
  ),
  volumeAttributesClassName: pb(9, str('VolumeAttributesClass of the claim.')),
});

const ephemeralVolumeSource = object({
  volumeClaimTemplate: pb(
    1,
    object(
      {
        metadata: pb(1, doc(objectMeta, 'Labels and annotations copied to the created claim.')),
        spec: pb(2, required(valueStruct(doc(persistentVolumeClaimSpec, 'Spec of the created claim.')))),
      },
      { description: 'Claim created for the pod (named <pod>-<volume>) and deleted with it.' },
    ),
  ),
});

const imageVolumeSource = object({
  reference: pb(1, str('Image or artifact reference to mount, as for a container image.')),
  pullPolicy: pb(2, str('Always, Never or IfNotPresent; Always for :latest, else IfNotPresent.')),
});

// Sources kept for old manifests; most are served by CSI drivers now.
const fsType = (n: number) => pb(n, str('Filesystem type to mount, such as ext4.'));
const readOnly = (n: number) => pb(n, bool('Mount read-only.'));
const secretRef = (n: number, what: string) => pb(n, doc(localObjectReference, `Secret with the ${what} credentials.`));

const legacySources = {
  gcePersistentDisk: pb(
    3,
    object({ pdName: pb(1, required(str('Name of the GCE persistent disk.'))), fsType: fsType(2), partition: pb(3, int32('Partition number to mount; the whole disk when 0.')), readOnly: readOnly(4) }, { description: 'A GCE persistent disk (deprecated, use the CSI driver).' }),
  ),
  awsElasticBlockStore: pb(
    4,
    object({ volumeID: pb(1, required(str('ID of the EBS volume.'))), fsType: fsType(2), partition: pb(3, int32('Partition number to mount; the whole disk when 0.')), readOnly: readOnly(4) }, { description: 'An AWS EBS volume (deprecated, use the CSI driver).' }),
  ),
  gitRepo: pb(
    5,
    object(
      { repository: pb(1, required(str('URL of the repository.'))), revision: pb(2, str('Commit to check out.')), directory: pb(3, str('Directory to clone into; "." for the volume root.')) },
      { description: 'A git clone made before the pod starts (deprecated, use an init container).' },
    ),
  ),
  iscsi: pb(
    8,
    object(
      {
        targetPortal: pb(1, required(str('Target portal, IP or host with optional port.'))),
        iqn: pb(2, required(str('iSCSI qualified name of the target.'))),
        lun: pb(3, required(int32('Logical unit number.'))),
        iscsiInterface: pb(4, str('iSCSI interface name; "default" (tcp) when unset.', { default: 'default' })),
        fsType: fsType(5),
        readOnly: readOnly(6),
        portals: pb(7, strings('Further target portals.')),
        chapAuthDiscovery: pb(8, bool('Use CHAP authentication for discovery.')),
        chapAuthSession: pb(11, bool('Use CHAP authentication for the session.')),
        secretRef: secretRef(10, 'CHAP'),
        initiatorName: pb(12, str('Custom initiator name.')),
      },
      { description: 'An iSCSI disk.' },
    ),
  ),
  glusterfs: pb(
    9,
    object(
      { endpoints: pb(1, required(str('Endpoints object naming the Glusterfs servers.'))), path: pb(2, required(str('Glusterfs volume path.'))), readOnly: readOnly(3) },
      { description: 'A Glusterfs mount (removed from kubelets in 1.26).' },
    ),
  ),
  rbd: pb(
    11,
    object(
      {
        monitors: pb(1, required(strings('Ceph monitors.'))),
        image: pb(2, required(str('Name of the RADOS image.'))),
        fsType: fsType(3),
        pool: pb(4, str('RADOS pool; "rbd" when unset.', { default: 'rbd' })),
        user: pb(5, str('RADOS user; "admin" when unset.', { default: 'admin' })),
        keyring: pb(6, str('Keyring path; /etc/ceph/keyring when unset.', { default: '/etc/ceph/keyring' })),
        secretRef: secretRef(7, 'RBD user'),
        readOnly: readOnly(8),
      },
      { description: 'A Ceph RBD image (deprecated).' },
    ),
  ),
  flexVolume: pb(
    12,
    object(
      { driver: pb(1, required(str('Name of the FlexVolume driver.'))), fsType: fsType(2), secretRef: secretRef(3, 'driver'), readOnly: readOnly(4), options: pb(5, stringMap('Extra driver options.')) },
      { description: 'A volume of a FlexVolume driver (deprecated).' },
    ),
  ),
  cinder: pb(
    13,
    object({ volumeID: pb(1, required(str('ID of the Cinder volume.'))), fsType: fsType(2), readOnly: readOnly(3), secretRef: secretRef(4, 'OpenStack') }, { description: 'An OpenStack Cinder volume (deprecated).' }),
  ),
  cephfs: pb(
    14,
    object(
      {
        monitors: pb(1, required(strings('Ceph monitors.'))),
        path: pb(2, str('Path within the filesystem to mount; / when unset.')),
        user: pb(3, str('RADOS user; admin when unset.')),
        secretFile: pb(4, str('Path of the keyring for the user.')),
        secretRef: secretRef(5, 'Ceph user'),
        readOnly: readOnly(6),
      },
      { description: 'A CephFS mount (deprecated).' },
    ),
  ),
  flocker: pb(15, object({ datasetName: pb(1, str('Flocker dataset name.')), datasetUUID: pb(2, str('Flocker dataset UUID.')) }, { description: 'A Flocker dataset (deprecated).' })),
  fc: pb(
    17,
    object(
      { targetWWNs: pb(1, strings('Fibre Channel target world wide names.')), lun: pb(2, int32('Logical unit number.')), fsType: fsType(3), readOnly: readOnly(4), wwids: pb(5, strings('Volume world wide identifiers; excludes targetWWNs and lun.')) },
      { description: 'A Fibre Channel disk.' },
    ),
  ),
  azureFile: pb(
    18,
    object(
      { secretName: pb(1, required(str('Secret with the storage account name and key.'))), shareName: pb(2, required(str('Name of the file share.'))), readOnly: readOnly(3) },
      { description: 'An Azure file share (deprecated, use the CSI driver).' },
    ),
  ),
  vsphereVolume: pb(
    20,
    object(
      { volumePath: pb(1, required(str('Path of the vSphere disk.'))), fsType: fsType(2), storagePolicyName: pb(3, str('Storage policy name.')), storagePolicyID: pb(4, str('Storage policy ID.')) },
      { description: 'A vSphere virtual disk (deprecated, use the CSI driver).' },
    ),
  ),
  quobyte: pb(
    21,
    object(
      {
        registry: pb(1, required(str('Quobyte registry (host:port, comma-separated).'))),
        volume: pb(2, required(str('Name of the Quobyte volume.'))),
        readOnly: readOnly(3),
        user: pb(4, str('User the volume is accessed as.')),
        group: pb(5, str('Group the volume is accessed as.')),
        tenant: pb(6, str('Tenant that owns the volume.')),
      },
      { description: 'A Quobyte mount (removed from kubelets).' },
    ),
  ),
  azureDisk: pb(
    22,
    object(
      {
        diskName: pb(1, required(str('Name of the data disk.'))),
        diskURI: pb(2, required(str('URI of the data disk.'))),
        cachingMode: pb(3, str('Host caching: None, ReadOnly or ReadWrite (the default).', { default: 'ReadWrite' })),
        fsType: pb(4, str('Filesystem type to mount; ext4 when unset.', { default: 'ext4' })),
        readOnly: pb(5, Type.Boolean({ description: 'Mount read-only; false when unset.', default: false })),
        kind: pb(6, str('Shared (the default), Dedicated or Managed.', { default: 'Shared' })),
      },
      { description: 'An Azure data disk (deprecated, use the CSI driver).' },
    ),
  ),
  photonPersistentDisk: pb(23, object({ pdID: pb(1, required(str('ID of the Photon disk.'))), fsType: fsType(2) }, { description: 'A Photon Controller disk (deprecated).' })),
  portworxVolume: pb(24, object({ volumeID: pb(1, required(str('ID of the Portworx volume.'))), fsType: fsType(2), readOnly: readOnly(3) }, { description: 'A Portworx volume (deprecated).' })),
  scaleIO: pb(
    25,
    object(
      {
        gateway: pb(1, required(str('Address of the ScaleIO API gateway.'))),
        system: pb(2, required(str('Name of the storage system.'))),
        secretRef: pb(3, required(doc(localObjectReference, 'Secret with the ScaleIO user credentials.'))),
        sslEnabled: pb(4, bool('Talk to the gateway over TLS.')),
        protectionDomain: pb(5, str('Protection domain of the storage.')),
        storagePool: pb(6, str('Storage pool of the protection domain.')),
        storageMode: pb(7, str('ThickProvisioned or ThinProvisioned (the default).', { default: 'ThinProvisioned' })),
        volumeName: pb(8, str('Name of an existing ScaleIO volume.')),
        fsType: pb(9, str('Filesystem type to mount; xfs when unset.', { default: 'xfs' })),
        readOnly: readOnly(10),
      },
      { description: 'A ScaleIO volume (deprecated).' },
    ),
  ),
  storageos: pb(
    27,
    object(
      { volumeName: pb(1, str('Name of the StorageOS volume.')), volumeNamespace: pb(2, str('StorageOS namespace of the volume; the pod namespace when unset.')), fsType: fsType(3), readOnly: readOnly(4), secretRef: secretRef(5, 'StorageOS API') },
      { description: 'A StorageOS volume (deprecated).' },
    ),
  ),
};

/** VolumeSource: exactly one of these is set. */
const volumeSources = {
  hostPath: pb(1, doc(hostPathVolumeSource, 'A file or directory of the node; for system agents, not for applications.')),
  emptyDir: pb(2, doc(emptyDirVolumeSource, 'A scratch directory that lives as long as the pod.')),
  secret: pb(6, doc(secretVolumeSource, 'The keys of a secret as files.')),
  nfs: pb(7, doc(nfsVolumeSource, 'An NFS export.')),
  persistentVolumeClaim: pb(10, doc(persistentVolumeClaimVolumeSource, 'The volume bound to a claim in the pod namespace.')),
  downwardAPI: pb(16, doc(downwardAPIVolumeSource, 'Pod fields and container resources as files.')),
  configMap: pb(19, doc(configMapVolumeSource, 'The keys of a config map as files.')),
  projected: pb(26, doc(projectedVolumeSource, 'Secrets, config maps, downward API data, tokens and trust bundles in one directory.')),
  csi: pb(28, doc(csiVolumeSource, 'An ephemeral volume of a CSI driver.')),
  ephemeral: pb(29, doc(ephemeralVolumeSource, 'A volume provisioned for this pod through a claim created and deleted with it.')),
  image: pb(30, doc(imageVolumeSource, 'The content of an OCI image or artifact, read-only (feature gate ImageVolume).')),
  ...legacySources,
};

const volume = object({
  name: pb(1, required(str('Name of the volume, unique in the pod; volume mounts refer to it.'))),
  ...embedAll(2, volumeSources),
});

// ---- containers ----

const containerPort = object({
  name: pb(1, str('IANA service name of the port, unique in the pod; services may refer to it.')),
  hostPort: pb(2, int32('Port opened on the node for this port; most pods do not need one.')),
  containerPort: pb(3, required(int32('Port number on the pod IP.'))),
  protocol: pb(4, str('TCP (the default), UDP or SCTP.', { default: 'TCP' })),
  hostIP: pb(5, str('Node address the host port binds to.')),
});

const envFromSource = object({
  prefix: pb(1, str('Prepended to every variable name taken from the source.')),
  configMapRef: pb(2, object({ name: refName('ConfigMap whose keys become variables.'), optional: pb(2, bool('If true, a missing config map is not an error.')) }, { description: 'Every key of a config map.' })),
  secretRef: pb(3, object({ name: refName('Secret whose keys become variables.'), optional: pb(2, bool('If true, a missing secret is not an error.')) }, { description: 'Every key of a secret.' })),
});

const envVar = object({
  name: pb(1, required(str('Name of the variable.'))),
  value: pb(2, str('Value, with $(VAR) references to earlier variables expanded; $$ escapes a $.')),
  valueFrom: pb(
    3,
    object(
      {
        fieldRef: pb(1, doc(objectFieldSelector, 'A field of the pod: metadata.name, metadata.namespace, metadata.uid, spec.nodeName, status.podIP, ...')),
        resourceFieldRef: pb(2, doc(resourceFieldSelector, 'A resource limit or request of a container.')),
        configMapKeyRef: pb(3, atomic(object({ name: refName('ConfigMap to read.'), key: pb(2, required(str('Key to read.'))), optional: pb(3, bool('If true, a missing config map or key is not an error.')) }, { description: 'A key of a config map.' }))),
        secretKeyRef: pb(4, atomic(object({ name: refName('Secret to read.'), key: pb(2, required(str('Key to read.'))), optional: pb(3, bool('If true, a missing secret or key is not an error.')) }, { description: 'A key of a secret.' }))),
      },
      { description: 'Where the value comes from, when value is empty.' },
    ),
  ),
});

const resourceRequirements = object({
  limits: pb(1, resourceList('Most of each resource the container may use.')),
  requests: pb(2, resourceList('Least of each resource the container needs, used for scheduling; the limit when unset.')),
  claims: pb(
    3,
    keyedList(
      object({ name: pb(1, required(str('Name of an entry of spec.resourceClaims.'))), request: pb(2, str('One request of the claim; the whole claim when empty.')) }),
      ['name'],
      'Dynamically allocated resources (spec.resourceClaims) the container uses.',
    ),
  ),
});

const volumeMount = object({
  name: pb(1, required(str('Name of the pod volume to mount.'))),
  readOnly: pb(2, bool('Mount read-only.')),
  recursiveReadOnly: pb(7, str('Disabled (the default), IfPossible or Enabled: whether submounts are read-only too.')),
  mountPath: pb(3, required(str('Path in the container to mount at; must not contain ":".'))),
  subPath: pb(4, str('Path within the volume to mount instead of its root.')),
  mountPropagation: pb(5, str('None (the default), HostToContainer or Bidirectional.')),
  subPathExpr: pb(6, str('Like subPath, with $(VAR) expanded from the container environment.')),
});

const volumeDevice = object({
  name: pb(1, required(str('Name of a persistentVolumeClaim volume of the pod.'))),
  devicePath: pb(2, required(str('Path of the raw block device in the container.'))),
});

const execAction = object({ command: pb(1, strings('Command line to run in the container, without a shell; exit code 0 is success.')) });

const httpGetAction = object({
  path: pb(1, str('Request path; "/" when unset.')),
  port: pb(2, required(intOrString('Port number or name of a container port.'))),
  host: pb(3, str('Host to connect to; the pod IP when unset.')),
  scheme: pb(4, str('HTTP (the default) or HTTPS.')),
  httpHeaders: pb(5, atomicList(object({ name: pb(1, required(str('Header name.'))), value: pb(2, required(str('Header value.'))) }), 'Extra request headers.')),
});

const tcpSocketAction = object({
  port: pb(1, required(intOrString('Port number or name of a container port.'))),
  host: pb(2, str('Host to connect to; the pod IP when unset.')),
});

const grpcAction = object({
  port: pb(1, required(int32('Port of the gRPC health service.'))),
  service: pb(2, str('Service name sent in the health check request; "" for the server as a whole.', { default: '' })),
});

const probeHandler = {
  exec: pb(1, doc(execAction, 'Run a command in the container.')),
  httpGet: pb(2, doc(httpGetAction, 'An HTTP GET; a status from 200 to 399 is success.')),
  tcpSocket: pb(3, doc(tcpSocketAction, 'Open a TCP connection.')),
  grpc: pb(4, doc(grpcAction, 'A gRPC health check.')),
};

const probe = object({
  ...embedAll(1, probeHandler),
  initialDelaySeconds: pb(2, int32('Seconds after the container starts before the first probe.')),
  timeoutSeconds: pb(3, int32('Seconds before a probe attempt times out; 1 when unset.')),
  periodSeconds: pb(4, int32('Seconds between probes; 10 when unset.')),
  successThreshold: pb(5, int32('Consecutive successes that count after a failure; 1 when unset, and 1 for liveness and startup.')),
  failureThreshold: pb(6, int32('Consecutive failures that count as failed; 3 when unset.')),
  terminationGracePeriodSeconds: pb(7, int64('Grace period when a failed probe kills the container, instead of the pod one.')),
});

const lifecycleHandler = object({
  exec: pb(1, doc(execAction, 'Run a command in the container.')),
  httpGet: pb(2, doc(httpGetAction, 'Send an HTTP GET.')),
  tcpSocket: pb(3, doc(tcpSocketAction, 'Kept for compatibility; not supported as a hook.')),
  sleep: pb(4, object({ seconds: pb(1, required(int64('How long to sleep.'))) }, { description: 'Wait a number of seconds.' })),
});

const lifecycle = object({
  postStart: pb(1, doc(lifecycleHandler, 'Runs right after the container is created; the container is restarted if it fails.')),
  preStop: pb(2, doc(lifecycleHandler, 'Runs before the container is stopped by an API request or management event; the grace period includes it.')),
  stopSignal: pb(3, str('Signal sent to stop the container; the image STOPSIGNAL or the runtime default when unset.')),
});

const seLinuxOptions = object({
  user: pb(1, str('SELinux user label.')),
  role: pb(2, str('SELinux role label.')),
  type: pb(3, str('SELinux type label.')),
  level: pb(4, str('SELinux level label.')),
});

const windowsSecurityContextOptions = object({
  gmsaCredentialSpecName: pb(1, str('Name of the GMSA credential spec to use.')),
  gmsaCredentialSpec: pb(2, str('Content of the GMSA credential spec, filled in by an admission webhook.')),
  runAsUserName: pb(3, str('Windows user the entrypoint runs as.')),
  hostProcess: pb(4, bool('Run as a Windows host process container.')),
});

const seccompProfile = object({
  type: pb(1, required(str('Localhost, RuntimeDefault or Unconfined.'))),
  localhostProfile: pb(2, str('With Localhost: profile file relative to the kubelet seccomp directory.')),
});

const appArmorProfile = object({
  type: pb(1, required(str('Localhost, RuntimeDefault or Unconfined.'))),
  localhostProfile: pb(2, str('With Localhost: name of a profile loaded on the node.')),
});

const securityContext = object({
  capabilities: pb(1, object({ add: pb(1, strings('Capabilities to add.')), drop: pb(2, strings('Capabilities to drop.')) }, { description: 'Linux capabilities to add to or drop from the runtime default.' })),
  privileged: pb(2, bool('Run as privileged: like root on the host.')),
  seLinuxOptions: pb(3, doc(seLinuxOptions, 'SELinux labels of the container; overrides the pod setting.')),
  windowsOptions: pb(10, doc(windowsSecurityContextOptions, 'Windows-only settings; overrides the pod setting.')),
  runAsUser: pb(4, int64('UID the entrypoint runs as; overrides the pod setting and the image.')),
  runAsGroup: pb(8, int64('GID the entrypoint runs as; overrides the pod setting.')),
  runAsNonRoot: pb(5, bool('Refuse to start the container as UID 0.')),
  readOnlyRootFilesystem: pb(6, bool('Mount the root filesystem read-only.')),
  allowPrivilegeEscalation: pb(7, bool('Whether a process may gain more privileges than its parent (no_new_privs off).')),
  procMount: pb(9, str('Default (masked /proc paths) or Unmasked.')),
  seccompProfile: pb(11, doc(seccompProfile, 'Seccomp profile of the container; overrides the pod setting.')),
  appArmorProfile: pb(12, doc(appArmorProfile, 'AppArmor profile of the container; overrides the pod setting.')),
});

/** Container fields, by their numbers in Container and EphemeralContainerCommon (the same numbers). */
const containerFields = {
  name: pb(1, required(str('Name of the container, a DNS label unique in the pod.'))),
  image: pb(2, str('Container image reference.')),
  command: pb(3, strings('Entrypoint, run without a shell; the image ENTRYPOINT when unset. $(VAR) is expanded.')),
  args: pb(4, strings('Arguments to the entrypoint; the image CMD when unset. $(VAR) is expanded.')),
  workingDir: pb(5, str('Working directory; the image default when unset.')),
  ports: pb(6, mergeListKeys(containerPort, 'containerPort', ['containerPort', 'protocol'], 'Ports the container exposes; informational, any listening port is reachable.')),
  envFrom: pb(19, atomicList(envFromSource, 'Sources whose keys all become variables; env wins on a clash.')),
  env: pb(7, mergeList(envVar, 'name', 'Environment variables.')),
  resources: pb(8, valueStruct(doc(resourceRequirements, 'Compute resources the container needs and may use.'))),
  resizePolicy: pb(
    23,
    atomicList(
      object({ resourceName: pb(1, required(str('cpu or memory.'))), restartPolicy: pb(2, required(str('NotRequired (the default) or RestartContainer.'))) }),
      'How the container takes an in-place resize of each resource.',
    ),
  ),
  restartPolicy: pb(24, str('Only "Always", for init containers: makes it a sidecar that keeps running beside the regular containers.')),
  volumeMounts: pb(9, mergeList(volumeMount, 'mountPath', 'Pod volumes mounted into the container.')),
  volumeDevices: pb(21, mergeList(volumeDevice, 'devicePath', 'Raw block devices of the pod the container uses.')),
  livenessProbe: pb(10, doc(probe, 'Restarts the container when it fails.')),
  readinessProbe: pb(11, doc(probe, 'Removes the pod from service endpoints while it fails.')),
  startupProbe: pb(22, doc(probe, 'Holds the other probes back until it succeeds; the container restarts if it fails.')),
  lifecycle: pb(12, doc(lifecycle, 'Hooks the kubelet runs on container start and stop.')),
  terminationMessagePath: pb(13, str('File whose content becomes the termination message; /dev/termination-log when unset.')),
  terminationMessagePolicy: pb(20, str('File (the default) or FallbackToLogsOnError: use the log tail when the file is empty and the container failed.')),
  imagePullPolicy: pb(14, str('Always, Never or IfNotPresent; Always for :latest or no tag, else IfNotPresent.')),
  securityContext: pb(15, doc(securityContext, 'Security settings of the container; override the pod ones.')),
  stdin: pb(16, bool('Keep a stdin buffer open for attach; reads get EOF when false.')),
  stdinOnce: pb(17, bool('Close stdin after the first attach session ends.')),
  tty: pb(18, bool('Allocate a TTY; needs stdin.')),
};

export const container = object(containerFields);

const ephemeralContainer = object({
  ...embedAll(1, containerFields),
  targetContainerName: pb(2, str('Container whose process namespaces this one joins; the runtime must support it.')),
});

// ---- scheduling ----

const nodeSelectorRequirement = object({
  key: pb(1, required(str('Label or field key.'))),
  operator: pb(2, required(str('In, NotIn, Exists, DoesNotExist, Gt or Lt.'))),
  values: pb(3, strings('Values to compare with: several for In and NotIn, none for Exists and DoesNotExist, one integer for Gt and Lt.')),
});

const nodeSelectorTerm = atomic(
  object({
    matchExpressions: pb(1, atomicList(nodeSelectorRequirement, 'Requirements on node labels.')),
    matchFields: pb(2, atomicList(nodeSelectorRequirement, 'Requirements on node fields (metadata.name).')),
  }),
);

const podAffinityTerm = object({
  labelSelector: pb(1, doc(labelSelector, 'Pods to be placed with or away from.')),
  namespaces: pb(2, strings('Namespaces of those pods; the namespace of this pod when empty along with namespaceSelector.')),
  topologyKey: pb(3, required(str('Node label whose value defines the domain ("same node", "same zone").'))),
  namespaceSelector: pb(4, doc(labelSelector, 'Namespaces of those pods, by label; added to namespaces. Empty matches all.')),
  matchLabelKeys: pb(5, strings('Label keys whose values on this pod are added to labelSelector as In requirements.')),
  mismatchLabelKeys: pb(6, strings('Label keys whose values on this pod are added to labelSelector as NotIn requirements.')),
});

const weightedPodAffinityTerm = object({
  weight: pb(1, required(int32('Weight, 1 to 100, added to the node score when the term matches.'))),
  podAffinityTerm: pb(2, required(valueStruct(doc(podAffinityTerm, 'The term.')))),
});

const podAffinityRules = (what: string) =>
  object(
    {
      requiredDuringSchedulingIgnoredDuringExecution: pb(1, atomicList(podAffinityTerm, `Terms that must all hold for the pod to be scheduled ${what}.`)),
      preferredDuringSchedulingIgnoredDuringExecution: pb(2, atomicList(weightedPodAffinityTerm, `Terms the scheduler favours, for placing the pod ${what}.`)),
    },
    { description: `Placing the pod ${what} other pods.` },
  );

const affinity = object({
  nodeAffinity: pb(
    1,
    object(
      {
        requiredDuringSchedulingIgnoredDuringExecution: pb(
          1,
          atomic(object({ nodeSelectorTerms: pb(1, required(atomicList(nodeSelectorTerm, 'Terms, ORed; the requirements of each are ANDed.'))) }, { description: 'Nodes the pod may be scheduled to.' })),
        ),
        preferredDuringSchedulingIgnoredDuringExecution: pb(
          2,
          atomicList(
            object({ weight: pb(1, required(int32('Weight, 1 to 100, added to the node score when the term matches.'))), preference: pb(2, required(valueStruct(doc(nodeSelectorTerm, 'The term.')))) }),
            'Node terms the scheduler favours.',
          ),
        ),
      },
      { description: 'Rules on the node labels.' },
    ),
  ),
  podAffinity: pb(2, podAffinityRules('near')),
  podAntiAffinity: pb(3, podAffinityRules('away from')),
});

const toleration = object({
  key: pb(1, str('Taint key matched; empty with Exists matches every taint.')),
  operator: pb(2, str('Equal (the default) or Exists.')),
  value: pb(3, str('Taint value matched with Equal.')),
  effect: pb(4, str('Taint effect matched: NoSchedule, PreferNoSchedule or NoExecute; all when empty.')),
  tolerationSeconds: pb(5, int64('With NoExecute: how long the pod stays bound after the taint appears; forever when unset.')),
});

const topologySpreadConstraint = object({
  maxSkew: pb(1, required(int32('Largest allowed difference of matching pod counts between domains.'))),
  topologyKey: pb(2, required(str('Node label whose values are the domains.'))),
  whenUnsatisfiable: pb(3, required(str('DoNotSchedule or ScheduleAnyway.'))),
  labelSelector: pb(4, doc(labelSelector, 'Pods counted in each domain.')),
  minDomains: pb(5, int32('Fewest eligible domains; fewer count as skew from zero (DoNotSchedule only).')),
  nodeAffinityPolicy: pb(6, str('Honor (the default) or Ignore: whether nodeAffinity and nodeSelector limit the domains.')),
  nodeTaintsPolicy: pb(7, str('Honor or Ignore (the default): whether untolerated tainted nodes are left out.')),
  matchLabelKeys: pb(8, strings('Label keys whose values on this pod narrow labelSelector.')),
});

const podSecurityContext = object({
  seLinuxOptions: pb(1, doc(seLinuxOptions, 'SELinux labels of every container.')),
  windowsOptions: pb(8, doc(windowsSecurityContextOptions, 'Windows-only settings of every container.')),
  runAsUser: pb(2, int64('UID every container entrypoint runs as, unless the container sets one.')),
  runAsGroup: pb(6, int64('GID every container entrypoint runs as, unless the container sets one.')),
  runAsNonRoot: pb(3, bool('Refuse to start containers as UID 0.')),
  supplementalGroups: pb(4, atomicList(int64(), 'Groups added to the first process of every container.')),
  supplementalGroupsPolicy: pb(12, str('Merge (the default: with the image /etc/group) or Strict (only these groups).')),
  fsGroup: pb(5, int64('Group that owns the volumes (and is added to every container) where the volume supports it.')),
  sysctls: pb(7, atomicList(object({ name: pb(1, required(str('Name of the sysctl.'))), value: pb(2, required(str('Value to set.'))) }), 'Namespaced sysctls set for the pod.')),
  fsGroupChangePolicy: pb(9, str('OnRootMismatch or Always (the default): when volume ownership is changed to fsGroup.')),
  seccompProfile: pb(10, doc(seccompProfile, 'Seccomp profile of every container.')),
  appArmorProfile: pb(11, doc(appArmorProfile, 'AppArmor profile of every container.')),
  seLinuxChangePolicy: pb(13, str('MountOption or Recursive: how volumes get their SELinux label.')),
});

const podResourceClaim = object({
  name: pb(1, required(str('Name of the entry, referred to by container resources.claims.'))),
  resourceClaimName: pb(3, str('An existing ResourceClaim in the pod namespace.')),
  resourceClaimTemplateName: pb(4, str('A ResourceClaimTemplate a claim for this pod is made from.')),
});

// ---- spec ----

export const podSpec = object({
  volumes: pb(1, mergeRetainKeysList(volume, 'name', 'Volumes the containers may mount.')),
  initContainers: pb(20, mergeList(container, 'name', 'Containers run one by one, each to success, before the regular containers; those with restartPolicy Always keep running as sidecars.')),
  containers: pb(2, required(nullWhenUnset(mergeList(container, 'name', 'The containers of the pod; at least one.')))),
  ephemeralContainers: pb(34, mergeList(ephemeralContainer, 'name', 'Debugging containers added to a running pod through the ephemeralcontainers subresource.')),
  restartPolicy: pb(3, str('Always (the default), OnFailure or Never: when containers are restarted after they exit.')),
  terminationGracePeriodSeconds: pb(4, int64('Seconds between the stop signal and the kill on deletion; 30 when unset, 0 for an immediate kill.')),
  activeDeadlineSeconds: pb(5, int64('Seconds the pod may be active on a node before it is failed.')),
  dnsPolicy: pb(6, str('ClusterFirst (the default), ClusterFirstWithHostNet, Default or None.')),
  nodeSelector: pb(7, atomic(stringMap('Labels a node must have for the pod to be scheduled to it.'))),
  serviceAccountName: pb(8, str('Service account the pod runs as.')),
  serviceAccount: pb(9, str('Old name of serviceAccountName.')),
  automountServiceAccountToken: pb(21, bool('Whether an API token is mounted; overrides the service account setting.')),
  nodeName: pb(10, str('Node the pod is bound to; set by the scheduler, or by a client to skip it.')),
  hostNetwork: pb(11, bool('Use the node network namespace; container ports are then host ports.')),
  hostPID: pb(12, bool('Use the node PID namespace.')),
  hostIPC: pb(13, bool('Use the node IPC namespace.')),
  shareProcessNamespace: pb(27, bool('One PID namespace for all containers of the pod.')),
  securityContext: pb(14, doc(podSecurityContext, 'Security settings of the pod and defaults for its containers.')),
  imagePullSecrets: pb(15, mergeList(localObjectReference, 'name', 'Secrets in the pod namespace used to pull the images.')),
  hostname: pb(16, str('Hostname of the pod; the pod name when unset.')),
  subdomain: pb(17, str('With it, the pod FQDN is <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.')),
  affinity: pb(18, doc(affinity, 'Scheduling constraints on nodes and other pods.')),
  schedulerName: pb(19, str('Scheduler that places the pod; default-scheduler when unset.')),
  tolerations: pb(22, atomicList(toleration, 'Taints the pod tolerates.')),
  hostAliases: pb(23, mergeList(object({ ip: pb(1, required(str('IP address of the entry.'))), hostnames: pb(2, strings('Hostnames for the address.')) }), 'ip', 'Entries added to the /etc/hosts of the pod.')),
  priorityClassName: pb(24, str('PriorityClass whose value becomes the pod priority.')),
  priority: pb(25, int32('Priority, filled in from priorityClassName by admission.')),
  dnsConfig: pb(
    26,
    object(
      {
        nameservers: pb(1, strings('DNS server IPs added to those of the policy.')),
        searches: pb(2, strings('Search domains added to those of the policy.')),
        options: pb(3, atomicList(object({ name: pb(1, str('Resolver option name.')), value: pb(2, str('Resolver option value.')) }), 'Resolver options merged with those of the policy.')),
      },
      { description: 'DNS settings merged into the resolv.conf made from dnsPolicy.' },
    ),
  ),
  readinessGates: pb(28, atomicList(object({ conditionType: pb(1, required(str('Pod condition type that must be True.'))) }), 'Extra conditions that must be True for the pod to be ready.')),
  runtimeClassName: pb(29, str('RuntimeClass of the container runtime handler that runs the pod.')),
  enableServiceLinks: pb(30, bool('Whether service addresses are injected as environment variables (Docker links style); true when unset.')),
  preemptionPolicy: pb(31, str('PreemptLowerPriority (the default) or Never.')),
  overhead: pb(32, resourceList('Resources the runtime itself takes for the pod, set by RuntimeClass admission.')),
  topologySpreadConstraints: pb(33, mergeListKeys(topologySpreadConstraint, 'topologyKey', ['topologyKey', 'whenUnsatisfiable'], 'How matching pods are spread across topology domains.')),
  setHostnameAsFQDN: pb(35, bool('Make the kernel hostname the pod FQDN.')),
  os: pb(36, object({ name: pb(1, required(str('linux or windows.'))) }, { description: 'Operating system the pod needs; changes which fields are validated.' })),
  hostUsers: pb(37, bool('Use the node user namespace; false gives the pod its own.')),
  schedulingGates: pb(38, mergeList(object({ name: pb(1, required(str('Name of the gate.'))) }), 'name', 'Gates that hold the pod back from scheduling until they are all removed.')),
  resourceClaims: pb(39, mergeRetainKeysList(podResourceClaim, 'name', 'Dynamically allocated resources the pod uses.')),
  resources: pb(40, doc(resourceRequirements, 'Resources of the whole pod (feature gate PodLevelResources; cpu and memory).')),
});

// ---- status ----

const containerState = object({
  waiting: pb(1, object({ reason: pb(1, str('Why the container is not running yet.')), message: pb(2, str('Details of the reason.')) }, { description: 'Not running yet.' })),
  running: pb(2, object({ startedAt: pb(1, time('When the container last started.')) }, { description: 'Running.' })),
  terminated: pb(
    3,
    object(
      {
        exitCode: pb(1, required(int32('Exit status of the last run.'))),
        signal: pb(2, int32('Signal that ended it.')),
        reason: pb(3, str('Short reason of the termination.')),
        message: pb(4, str('Details of the termination.')),
        startedAt: pb(5, time('When the last run started.')),
        finishedAt: pb(6, time('When the last run ended.')),
        containerID: pb(7, str('Runtime ID of the container, <type>://<id>.')),
      },
      { description: 'Ran and ended.' },
    ),
  ),
});

const containerStatus = object({
  name: pb(1, required(str('Name of the container in the spec.'))),
  state: pb(2, valueStruct(doc(containerState, 'Current state.'))),
  lastState: pb(3, valueStruct(doc(containerState, 'State of the previous run, usually how it terminated.'))),
  ready: pb(4, required(bool('Whether the readiness probe passes (or the container runs, without one).'))),
  restartCount: pb(5, required(int32('Times the container was restarted.'))),
  image: pb(6, required(str('Image the container runs, as the runtime reports it.'))),
  imageID: pb(7, required(str('ID of that image.'))),
  containerID: pb(8, str('Runtime ID of the container, <type>://<id>.')),
  started: pb(9, bool('Whether the startup probe passed (or the container started, without one).')),
  allocatedResources: pb(10, resourceList('Resources the node has set aside for the container.')),
  resources: pb(11, doc(resourceRequirements, 'Resources the container actually has.')),
  volumeMounts: pb(
    12,
    mergeList(
      object({
        name: pb(1, required(str('Name of the volume.'))),
        mountPath: pb(2, required(str('Path the volume is mounted at.'))),
        readOnly: pb(3, bool('Whether it is mounted read-only.')),
        recursiveReadOnly: pb(4, str('Whether submounts are read-only: Disabled or Enabled.')),
      }),
      'mountPath',
      'Volumes as actually mounted.',
    ),
  ),
  user: pb(
    13,
    object(
      {
        linux: pb(
          1,
          object(
            {
              uid: pb(1, required(int64('UID of the first process.'))),
              gid: pb(2, required(int64('GID of the first process.'))),
              supplementalGroups: pb(3, atomicList(int64(), 'Supplemental groups of the first process.')),
            },
            { description: 'Linux identity.' },
          ),
        ),
      },
      { description: 'Identity the first process runs with, as the runtime reports it.' },
    ),
  ),
  allocatedResourcesStatus: pb(
    14,
    mergeList(
      object({
        name: pb(1, required(str('Resource name (from limits, requests or claims).'))),
        resources: pb(
          2,
          keyedList(
            object({ resourceID: pb(1, required(str('ID of the device or resource instance.'))), health: pb(2, str('Healthy, Unhealthy or Unknown.')) }),
            ['resourceID'],
            'Health of each allocated instance.',
          ),
        ),
      }),
      'name',
      'Health of the resources allocated to the container.',
    ),
  ),
  stopSignal: pb(15, str('Signal that will stop the container.')),
});

export const podStatus = object({
  observedGeneration: pb(17, int64('metadata.generation the status was computed from.')),
  phase: pb(1, str('Pending, Running, Succeeded, Failed or Unknown.')),
  conditions: pb(
    2,
    mergeList(
      object({
        type: pb(1, required(str('PodScheduled, Initialized, ContainersReady, Ready, ...'))),
        observedGeneration: pb(7, int64('metadata.generation the condition was computed from.')),
        status: pb(2, required(str('True, False or Unknown.'))),
        lastProbeTime: pb(3, time('When the condition was last checked.')),
        lastTransitionTime: pb(4, time('When the status last changed.')),
        reason: pb(5, str('CamelCase reason of the last change.')),
        message: pb(6, str('Details of the last change.')),
      }),
      'type',
      'Observed conditions of the pod.',
    ),
  ),
  message: pb(3, str('Details of why the pod is in this state.')),
  reason: pb(4, str('CamelCase reason the pod is in this state, e.g. Evicted.')),
  nominatedNodeName: pb(11, str('Node a preemption is freeing room on for the pod.')),
  hostIP: pb(5, str('Primary IP of the node the pod runs on.')),
  hostIPs: pb(16, atomicMergeList(object({ ip: pb(1, required(str('IP address of the node.'))) }), 'ip', 'IPs of the node, the first being hostIP.')),
  podIP: pb(6, str('Primary IP of the pod.')),
  podIPs: pb(12, mergeList(object({ ip: pb(1, required(str('IP address of the pod.'))) }), 'ip', 'IPs of the pod, at most one per family, the first being podIP.')),
  startTime: pb(7, time('When the kubelet accepted the pod, before its images were pulled.')),
  initContainerStatuses: pb(10, atomicList(containerStatus, 'Status of each init container.')),
  containerStatuses: pb(8, atomicList(containerStatus, 'Status of each regular container.')),
  qosClass: pb(9, str('Guaranteed, Burstable or BestEffort, from the resource requests and limits.')),
  ephemeralContainerStatuses: pb(13, atomicList(containerStatus, 'Status of each ephemeral container.')),
  resize: pb(14, str('State of an in-place resize (deprecated in favour of the PodResizePending and PodResizeInProgress conditions).')),
  resourceClaimStatuses: pb(15, mergeRetainKeysList(object({ name: pb(1, required(str('Entry of spec.resourceClaims.'))), resourceClaimName: pb(2, str('Name of the ResourceClaim made for it.')) }), 'name', 'Names of the claims made from templates.')),
});

const podSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: pb(2, valueStruct(doc(podSpec, 'Desired state of the pod.'))),
  status: pb(3, valueStruct(doc(podStatus, 'Observed state of the pod, written by the kubelet and the scheduler.'))),
});

export type Pod = Static<typeof podSchema>;
export type PodSpec = Static<typeof podSpec>;
export type Container = Static<typeof container>;

export const pod = defineKind({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: ['status', 'binding', 'eviction', 'ephemeralcontainers', 'log', 'exec', 'attach', 'portforward', 'proxy'],
  description: 'A group of containers scheduled together onto one node, sharing network and volumes.',
  schema: podSchema,
  setDefaults: setPodDefaults,
});
