// core/v1 Node as of Kubernetes 1.33: what the kubelet registers and reports about a machine that runs pods.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { atomicList, bool, int32, int64, mergeList, object, objectMeta, pb, required, setList, str, time, typeMeta, valueStruct } from '../schema';
import { setNodeDefaults } from './pod-defaults';
import { resourceList } from './pod-v1';

const doc = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description }) as T;

const taint = object({
  key: pb(1, required(str('Taint key.'))),
  value: pb(2, str('Taint value.')),
  effect: pb(3, required(str('NoSchedule, PreferNoSchedule or NoExecute: what happens to pods that do not tolerate it.'))),
  timeAdded: pb(4, time('When the taint was added (NoExecute taints).')),
});

const nodeConfigSource = object(
  {
    configMap: pb(
      2,
      object(
        {
          namespace: pb(1, required(str('Namespace of the config map.'))),
          name: pb(2, required(str('Name of the config map.'))),
          uid: pb(3, str('UID of the config map.')),
          resourceVersion: pb(4, str('Resource version of the config map.')),
          kubeletConfigKey: pb(5, required(str('Key of the config map holding the KubeletConfiguration.'))),
        },
        { description: 'A config map holding a kubelet configuration.' },
      ),
    ),
  },
  { description: 'Where a dynamic kubelet configuration comes from (the feature is removed; kept for old objects).' },
);

const nodeSpec = object({
  podCIDR: pb(1, str('Pod IP range of the node (the first of podCIDRs).')),
  podCIDRs: pb(7, setList(Type.String(), 'Pod IP ranges of the node, at most one per IP family.')),
  providerID: pb(3, str('ID of the node at its cloud provider, <provider>://<id>.')),
  unschedulable: pb(4, bool('If true, new pods are not scheduled to the node (cordoned).')),
  taints: pb(5, atomicList(taint, 'Taints that repel pods that do not tolerate them.')),
  configSource: pb(6, doc(nodeConfigSource, 'Dynamic kubelet configuration to use (removed feature; ignored).')),
  externalID: pb(2, str('Deprecated; not used.')),
});

const nodeSystemInfo = object({
  machineID: pb(1, required(str('/etc/machine-id of the node.'))),
  systemUUID: pb(2, required(str('System UUID the firmware reports.'))),
  bootID: pb(3, required(str('ID of the current boot.'))),
  kernelVersion: pb(4, required(str('Kernel version (uname -r).'))),
  osImage: pb(5, required(str('Operating system name and version (/etc/os-release).'))),
  containerRuntimeVersion: pb(6, required(str('Container runtime name and version, <runtime>://<version>.'))),
  kubeletVersion: pb(7, required(str('Kubelet version.'))),
  kubeProxyVersion: pb(8, required(str('Deprecated; not reliable.'))),
  operatingSystem: pb(9, required(str('GOOS the kubelet runs on.'))),
  architecture: pb(10, required(str('GOARCH the kubelet runs on.'))),
  swap: pb(11, object({ capacity: pb(1, int64('Swap memory in bytes.')) }, { description: 'Swap memory of the node.' })),
});

const nodeStatus = object({
  capacity: pb(1, resourceList('Total resources of the node.')),
  allocatable: pb(2, resourceList('Resources left for pods; the capacity when unset.')),
  phase: pb(3, str('Deprecated; not set.')),
  conditions: pb(
    4,
    mergeList(
      object({
        type: pb(1, required(str('Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable, ...'))),
        status: pb(2, required(str('True, False or Unknown.'))),
        lastHeartbeatTime: pb(3, time('When the kubelet last reported the condition.')),
        lastTransitionTime: pb(4, time('When the status last changed.')),
        reason: pb(5, str('CamelCase reason of the last change.')),
        message: pb(6, str('Details of the last change.')),
      }),
      'type',
      'Observed conditions of the node.',
    ),
  ),
  addresses: pb(
    5,
    mergeList(
      object({ type: pb(1, required(str('Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.'))), address: pb(2, required(str('The address.'))) }),
      'type',
      'Addresses the node is reachable at.',
    ),
  ),
  daemonEndpoints: valueStruct(pb(
    6,
    object(
      { kubeletEndpoint: valueStruct(pb(1, object({ Port: pb(1, required(int32('Port number.'))) }, { description: 'Port of the kubelet API.' }))) },
      { description: 'Ports of the daemons on the node.' },
    ),
  )),
  nodeInfo: valueStruct(pb(7, doc(nodeSystemInfo, 'Identity and software versions of the machine.'))),
  images: pb(8, atomicList(object({ names: pb(1, atomicList(Type.String(), 'Names and digests the image is known by.')), sizeBytes: pb(2, int64('Size of the image in bytes.')) }), 'Images present on the node.')),
  volumesInUse: pb(9, atomicList(Type.String(), 'Attachable volumes in use (mounted) on the node.')),
  volumesAttached: pb(10, atomicList(object({ name: pb(1, required(str('Name of the attached volume.'))), devicePath: pb(2, required(str('Where the device shows up on the node.'))) }), 'Volumes attached to the node.')),
  config: pb(
    11,
    object(
      {
        assigned: pb(1, doc(nodeConfigSource, 'Configuration the node was told to use.')),
        active: pb(2, doc(nodeConfigSource, 'Configuration the node uses.')),
        lastKnownGood: pb(3, doc(nodeConfigSource, 'Configuration the node falls back to.')),
        error: pb(4, str('Error in using the configuration.')),
      },
      { description: 'Status of the dynamic kubelet configuration (removed feature).' },
    ),
  ),
  runtimeHandlers: pb(
    12,
    atomicList(
      object({
        name: pb(1, str('Name of the handler; empty for the default one.')),
        features: pb(
          2,
          object(
            { recursiveReadOnlyMounts: pb(1, bool('Whether recursive read-only mounts are supported.')), userNamespaces: pb(2, bool('Whether user namespaces are supported, volumes included.')) },
            { description: 'What the handler supports.' },
          ),
        ),
      }),
      'Runtime handlers the container runtime offers.',
    ),
  ),
  features: pb(13, object({ supplementalGroupsPolicy: pb(1, bool('Whether supplementalGroupsPolicy is honoured.')) }, { description: 'Features the node supports.' })),
});

const nodeSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(2, doc(nodeSpec, 'How the node is configured.'))),
  status: valueStruct(pb(3, doc(nodeStatus, 'Observed state of the node, reported by its kubelet.'))),
});

export type Node = Static<typeof nodeSchema>;

export const node = defineKind({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status', 'proxy'],
  description: 'A machine (physical or virtual) whose kubelet runs pods.',
  schema: nodeSchema,
  setDefaults: setNodeDefaults,
});
