// NodePorts: a pod that asks for a host port fits only a node where no pod already holds that port on the same
// protocol and an overlapping host IP.
import { hostPortsOf } from '../host-ports';
import type { NodeInfo } from '../node-info';
import type { Pod } from '../types';

export const NODE_PORTS_REASON = "node(s) didn't have free ports for the requested pod ports";

export function nodePorts(pod: Pod, nodeInfo: NodeInfo): string | null {
  return hostPortsOf(pod).some((p) => nodeInfo.usedPorts.conflicts(p)) ? NODE_PORTS_REASON : null;
}
