// What the filters and scores know about one node (upstream's framework.NodeInfo): the Node, the pods that count
// against it, its allocatable resources, what those pods request (as written, and with the scoring defaults for
// missing cpu and memory requests), and the host ports they hold.
//
// Which pods count is the caller's choice; the scheduler's cache passes every non-terminated pod assigned to the
// node, including pods it assumed onto the node before the watch shows their binding, as upstream does.
import { HostPorts, hostPortsOf } from './host-ports';
import { amountsOf, podRequests, resourcesOf, type Amounts, type Resources } from './resources';
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

const sum = (lists: Amounts[]): Amounts => {
  const out: Amounts = new Map();
  for (const l of lists) for (const [name, v] of l) out.set(name, (out.get(name) ?? 0) + v);
  return out;
};

export function nodeInfoFor(node: Node, pods: readonly Pod[] = []): NodeInfo {
  const usedPorts = new HostPorts();
  for (const p of pods) for (const port of hostPortsOf(p)) usedPorts.add(port);
  return {
    node,
    pods,
    allocatable: resourcesOf(amountsOf(node.status?.allocatable)),
    requested: resourcesOf(sum(pods.map((p) => podRequests(p)))),
    nonZeroRequested: resourcesOf(sum(pods.map((p) => podRequests(p, { defaultMissing: true })))),
    usedPorts,
  };
}
