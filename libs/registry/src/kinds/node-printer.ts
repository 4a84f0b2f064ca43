// `kubectl get nodes` as kubectl's printer computes it: STATUS from the Ready condition (plus
// SchedulingDisabled when cordoned), ROLES from node-role.kubernetes.io/* labels, and the wide columns.
import type { KubeObject } from '@cl/apimachinery';
import type { TableConvertor } from '../strategy';
import { AGE, ageOf, column } from './columns';

interface NodeShape {
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: Array<{ type?: string; status?: string }>;
    addresses?: Array<{ type?: string; address?: string }>;
    nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
  };
}

const shape = (o: KubeObject) => o as KubeObject & NodeShape;

export function nodeStatus(o: KubeObject): string {
  const n = shape(o);
  const ready = (n.status?.conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (n.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

export function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

const address = (n: NodeShape, type: string) => (n.status?.addresses ?? []).find((a) => a.type === type)?.address || '<none>';

export const nodeTable: TableConvertor = {
  columns: [
    column('Status', 'string', 'The readiness of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE,
    column('Version', 'string', 'The node agent version'),
    column('Internal-IP', 'string', 'The internal address', 1),
    column('External-IP', 'string', 'The external address', 1),
    column('OS-Image', 'string', 'The operating system image', 1),
    column('Kernel-Version', 'string', 'The kernel version', 1),
    column('Container-Runtime', 'string', 'The container runtime and its version', 1),
  ],
  cells(o, now) {
    const n = shape(o);
    const info = n.status?.nodeInfo ?? {};
    return [nodeStatus(o), nodeRoles(o), ageOf(o, now), info.kubeletVersion ?? '', address(n, 'InternalIP'), address(n, 'ExternalIP'), info.osImage || '<unknown>', info.kernelVersion || '<unknown>', info.containerRuntimeVersion || '<unknown>'];
  },
};
