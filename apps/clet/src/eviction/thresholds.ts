// Eviction thresholds: the configuration parsed into thresholds (upstream's ParseThresholdConfig), and the
// bookkeeping of synchronize() as pure functions of the observations and the time: which thresholds are met
// (with minimum reclaim once met), since when, which node conditions they raise and how long those are held.
import { parseDuration } from '@cl/flags';
import { parseQuantity } from '../pods/quantity';
import { SIGNALS, isSignal, type NodeConditionType, type Observations, type Signal } from './signals';

/** An absolute amount (bytes, inodes, pids) or a fraction of the capacity (0.1 for `10%`). */
export type ThresholdValue = { quantity: number; text: string } | { percentage: number };

export interface Threshold {
  signal: Signal;
  /** Every threshold is `signal < value` (upstream's only operator, LessThan). */
  value: ThresholdValue;
  /** 0 for a hard threshold: it acts the moment it is observed. */
  gracePeriodMs: number;
  hard: boolean;
  minReclaim?: ThresholdValue;
}

export interface EvictionSettings {
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionMinimumReclaim: Record<string, string>;
}

function parseValue(text: string): ThresholdValue | null {
  if (text.endsWith('%')) {
    // As upstream, 0% and 100% are no threshold at all.
    if (text === '0%' || text === '100%') return null;
    return { percentage: Number(text.slice(0, -1)) / 100 };
  }
  return { quantity: parseQuantity(text), text };
}

/**
 * The thresholds of a configuration that passed validation (config/eviction.ts refuses the rest at start): hard ones
 * first, then soft ones with their grace periods, each with its signal's minimum reclaim.
 */
export function parseThresholds(s: EvictionSettings): Threshold[] {
  const out: Threshold[] = [];
  const add = (signal: string, text: string, hard: boolean) => {
    if (!isSignal(signal)) return;
    const value = parseValue(text);
    if (!value) return;
    const reclaimText = s.evictionMinimumReclaim[signal];
    const minReclaim = reclaimText ? parseValue(reclaimText) ?? undefined : undefined;
    const gracePeriodMs = hard ? 0 : parseDuration(s.evictionSoftGracePeriod[signal] ?? '0s');
    out.push({ signal, value, gracePeriodMs, hard, ...(minReclaim ? { minReclaim } : {}) });
  };
  for (const [signal, text] of Object.entries(s.evictionHard)) add(signal, text, true);
  for (const [signal, text] of Object.entries(s.evictionSoft)) add(signal, text, false);
  return out;
}

/** The threshold as an amount of a resource with this capacity (upstream's GetThresholdQuantity: truncated). */
export function thresholdQuantity(v: ThresholdValue, capacity: number): number {
  return 'percentage' in v ? Math.trunc(capacity * v.percentage) : v.quantity;
}

/** A threshold's identity between synchronizations (upstream compares the whole threshold). */
export const thresholdKey = (t: Threshold) => `${t.signal}/${t.hard ? 'hard' : 'soft'}`;

/**
 * The thresholds whose signal is below them now. With `withMinReclaim`, the minimum reclaim is added: a threshold
 * that was met stays met until that much more is free (upstream's enforceMinReclaim). No observation, not met.
 */
export function thresholdsMet(thresholds: readonly Threshold[], obs: Observations, withMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const o = obs[t.signal];
    if (!o) return false;
    let limit = thresholdQuantity(t.value, o.capacity);
    if (withMinReclaim && t.minReclaim) limit += thresholdQuantity(t.minReclaim, o.capacity);
    return limit > o.available;
  });
}

/** Both lists, each threshold once. */
export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const seen = new Set(a.map(thresholdKey));
  return [...a, ...b.filter((t) => !seen.has(thresholdKey(t)))];
}

/** When each threshold met now was first met: kept from before, now for a new one; the others are forgotten. */
export function firstObservedAt(met: readonly Threshold[], before: ReadonlyMap<string, { threshold: Threshold; at: number }>, now: number): Map<string, { threshold: Threshold; at: number }> {
  const out = new Map<string, { threshold: Threshold; at: number }>();
  for (const t of met) out.set(thresholdKey(t), { threshold: t, at: before.get(thresholdKey(t))?.at ?? now });
  return out;
}

/** The thresholds met for at least their grace period: these drive eviction. */
export function metGracePeriod(first: ReadonlyMap<string, { threshold: Threshold; at: number }>, now: number): Threshold[] {
  return [...first.values()].filter(({ threshold, at }) => now - at >= threshold.gracePeriodMs).map(({ threshold }) => threshold);
}

/** The node conditions the thresholds raise, each once, in the order met (upstream's nodeConditions). */
export function conditionsOf(met: readonly Threshold[]): NodeConditionType[] {
  return [...new Set(met.map((t) => SIGNALS[t.signal].condition))];
}

/** When each condition was last raised: now for those raised now, as before for the others. */
export function conditionsLastObservedAt(raised: readonly NodeConditionType[], before: ReadonlyMap<NodeConditionType, number>, now: number): Map<NodeConditionType, number> {
  const out = new Map(before);
  for (const c of raised) out.set(c, now);
  return out;
}

/**
 * The conditions reported: those raised within the pressure transition period, so a condition does not flap
 * off and on while usage hovers at the threshold (upstream's nodeConditionsObservedSince).
 */
export function conditionsHeld(lastObserved: ReadonlyMap<NodeConditionType, number>, transitionMs: number, now: number): NodeConditionType[] {
  // In the node status' order (upstream's comes from a Go map: any order).
  return CONDITION_ORDER.filter((c) => {
    const at = lastObserved.get(c);
    return at !== undefined && now - at < transitionMs;
  });
}

const CONDITION_ORDER: NodeConditionType[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

/**
 * The threshold eviction acts on and the resource it reclaims: memory signals first, then the first with a
 * resource (upstream's byEvictionPriority and getReclaimableThreshold).
 */
export function thresholdToReclaim(met: readonly Threshold[]): { threshold: Threshold; resource: string } | null {
  const memory = met.find((t) => t.signal === 'memory.available' || t.signal === 'allocatableMemory.available');
  const t = memory ?? met[0];
  return t ? { threshold: t, resource: SIGNALS[t.signal].resource } : null;
}
