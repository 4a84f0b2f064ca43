// Whether a pod's tolerations cover a node's taints (k8s.io/api/core/v1 Toleration.ToleratesTaint and
// component-helpers' FindMatchingUntoleratedTaint).
import type { Taint, Toleration } from '../types';
import { toleratesTaint } from '@cl/apimachinery';

export { toleratesTaint };


export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** The taints that keep pods off a node (helper.DoNotScheduleTaintsFilterFunc): NoSchedule and NoExecute. */
export const blocksScheduling = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

/** The first taint, in the node's order, that blocks scheduling and that no toleration covers. */
export function firstUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): Taint | undefined {
  return taints.find((taint) => blocksScheduling(taint) && !tolerationsTolerateTaint(tolerations, taint));
}

/** Upstream 1.33's reason. (Later releases, and 1.34 patch releases, say `node(s) had untolerated taint(s)`.) */
export const untoleratedTaintReason = (taint: Taint): string => `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
