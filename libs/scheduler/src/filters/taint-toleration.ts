// TaintToleration: a node's NoSchedule and NoExecute taints keep off every pod that does not tolerate them; the
// reason names the first such taint in the node's order. The taints that mirror conditions are judged by
// node-readiness.ts from the conditions instead (this project has no node lifecycle controller to keep them).
import type { NodeInfo } from '../node-info';
import type { Pod } from '../types';
import { CONDITION_TAINT_KEYS } from './node-readiness';
import { firstUntoleratedTaint, untoleratedTaintReason } from './tolerations';

export function taintToleration(pod: Pod, nodeInfo: NodeInfo): string | null {
  const taints = (nodeInfo.node.spec?.taints ?? []).filter((t) => !CONDITION_TAINT_KEYS.has(t.key));
  const taint = firstUntoleratedTaint(taints, pod.spec?.tolerations);
  return taint ? untoleratedTaintReason(taint) : null;
}
