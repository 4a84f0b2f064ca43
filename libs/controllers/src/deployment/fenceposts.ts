// maxSurge and maxUnavailable of a rolling update as numbers of pods (upstream's intstr
// GetScaledValueFromIntOrPercent, ResolveFenceposts, MaxSurge, MaxUnavailable): a percentage of the desired
// replicas, surge rounded up and unavailability rounded down, and never both zero.
import { specReplicas, type Deployment, type IntOrPercent } from '../workloads/types';

export const ROLLING_UPDATE = 'RollingUpdate';
export const RECREATE = 'Recreate';

/** An int as itself, a percentage of `total` rounded up or down; throws for a string that is no percentage. */
export function scaledValue(v: IntOrPercent, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return Math.trunc(v);
  if (!v.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const digits = v.slice(0, -1);
  // strconv.Atoi: an optional sign and decimal digits.
  if (!/^[+-]?[0-9]+$/.test(digits)) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`);
  const x = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/**
 * Both fenceposts for `desired` replicas: surge rounded up, unavailable rounded down; an absent value is 0. When
 * both come out 0 (rounding can do that), unavailable is 1, so a rollout can always move.
 */
export function resolveFenceposts(maxSurge: IntOrPercent | null | undefined, maxUnavailable: IntOrPercent | null | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? ROLLING_UPDATE) === ROLLING_UPDATE;
}

/** The rolling update parameters, with apps/v1's defaults (25% each) where absent. */
function rollingParameters(d: Deployment): { maxSurge: IntOrPercent | null | undefined; maxUnavailable: IntOrPercent | null | undefined } {
  const ru = d.spec?.strategy?.rollingUpdate;
  return { maxSurge: ru ? ru.maxSurge : '25%', maxUnavailable: ru ? ru.maxUnavailable : '25%' };
}

/** Pods a rolling Deployment may run above spec.replicas; 0 for Recreate. */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const { maxSurge: s, maxUnavailable: u } = rollingParameters(d);
  return resolveFenceposts(s, u, specReplicas(d)).surge;
}

/** Pods a rolling Deployment may have unavailable, at most spec.replicas; 0 for Recreate or zero replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const { maxSurge: s, maxUnavailable: u } = rollingParameters(d);
  return Math.min(resolveFenceposts(s, u, replicas).unavailable, replicas);
}
