// TaintToleration: a node's NoSchedule and NoExecute taints keep off every pod that does not tolerate them; the
// reason names the first such taint in the node's order. Readiness is among them, as upstream: the
// TaintNodesByCondition admission taints a new node not-ready and node lifecycle (@cl/controllers) keeps the
// condition taints in step with the node's conditions.
import type { NodeInfo } from '../node-info';
import type { Pod } from '../types';
import { firstUntoleratedTaint, untoleratedTaintReason } from './tolerations';

export function taintToleration(pod: Pod, nodeInfo: NodeInfo): string | null {
  const taint = firstUntoleratedTaint(nodeInfo.node.spec?.taints ?? [], pod.spec?.tolerations);
  return taint ? untoleratedTaintReason(taint) : null;
}
