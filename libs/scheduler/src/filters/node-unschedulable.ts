// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the taint
// `node.kubernetes.io/unschedulable:NoSchedule`, the one `kubectl cordon`'s node lifecycle controller would add.
import type { NodeInfo } from '../node-info';
import type { Pod, Taint } from '../types';
import { tolerationsTolerateTaint } from './tolerations';

export const NODE_UNSCHEDULABLE_REASON = 'node(s) were unschedulable';

export const UNSCHEDULABLE_TAINT: Taint = Object.freeze({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' });

export function nodeUnschedulable(pod: Pod, nodeInfo: NodeInfo): string | null {
  if (!nodeInfo.node.spec?.unschedulable) return null;
  return tolerationsTolerateTaint(pod.spec?.tolerations, UNSCHEDULABLE_TAINT) ? null : NODE_UNSCHEDULABLE_REASON;
}
