// What the filters and scores know about one node (upstream's framework.NodeInfo): the Node, the pods that count
// against it, its allocatable resources, what those pods request (as written, and with the scoring defaults for
// missing cpu and memory requests), and the host ports they hold.
//
// Which pods count is the caller's choice; the scheduler's cache passes every non-terminated pod assigned to the
// node, including pods it assumed onto the node before the watch shows their binding, as upstream does.
import { HostPorts, hostPortsOf } from './host-ports';
import { amountsOf, podResources, resourcesOf, sumResources, type Resources } from './resources';
import type { Node, Pod } from './types';

export interface NodeInfo {
  readonly node: Node;
  readonly pods: readonly Pod[];
  /** status.allocatable; a node that reports none has nothing to give. */
  readonly allocatable: Resources;
  /** The sum of the pods' effective requests. */
  readonly requested: Resources;
  /** The same with 100m cpu / 200 MiB memory for containers that name none: what the scores compare. */
  readonly nonZeroRequested: Resources;
  readonly usedPorts: HostPorts;
}

export function nodeInfoFor(node: Node, pods: readonly Pod[] = []): NodeInfo {
  const usedPorts = new HostPorts();
  for (const p of pods) for (const port of hostPortsOf(p)) usedPorts.add(port);
  return {
    node,
    pods,
    allocatable: resourcesOf(amountsOf(node.status?.allocatable)),
    requested: sumResources(pods.map((p) => podResources(p))),
    nonZeroRequested: sumResources(pods.map((p) => podResources(p, { defaultMissing: true }))),
    usedPorts,
  };
}
