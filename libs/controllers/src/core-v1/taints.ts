// Taints and tolerations as k8s.io/api/core/v1 and upstream's taint helpers compare them: a taint is identified
// by key and effect (Taint.MatchTaint); a toleration covers a taint by effect, key and operator
// (Toleration.ToleratesTaint); each taint takes the first toleration that covers it (GetMatchingTolerations).
import type { Taint, Toleration } from './types';
import { toleratesTaint } from '@cl/apimachinery';

export { toleratesTaint };

/** Same key and effect: the same taint as far as adding and removing go (value and timeAdded aside). */
export const sameTaint = (a: Pick<Taint, 'key' | 'effect'>, b: Pick<Taint, 'key' | 'effect'>): boolean => a.key === b.key && a.effect === b.effect;

export const hasTaint = (taints: readonly Taint[] | undefined, taint: Pick<Taint, 'key' | 'effect'>): boolean => (taints ?? []).some((t) => sameTaint(t, taint));


/**
 * For each taint, the first toleration that covers it, in the taints' order; undefined when some taint has none
 * (the pod does not tolerate the node).
 */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): Toleration[] | undefined {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = (tolerations ?? []).find((tol) => toleratesTaint(tol, taint));
    if (!t) return undefined;
    used.push(t);
  }
  return used;
}
