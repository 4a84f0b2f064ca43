// The node-pressure eviction manager, as kubelet's (pkg/kubelet/eviction): every monitoring period it observes the
// signals, decides which thresholds are met (hard at once, soft after their grace period, each held until its
// minimum reclaim is free), raises the node conditions (held for the pressure transition period), evicts the pods
// past their local storage limits, reclaims what the node itself holds (dead containers, unused images), and if that
// is not enough evicts one pod. Under pressure it also refuses pods at admission.
import type { Pod } from '../pods/api-types';
import { qosClass } from '../pods/runtime-spec';
import { admissionMessage, evictionMessage, EVICTED_REASON } from './messages';
import { hasLocalStorageLimits, localStorageViolation } from './local-storage';
import type { PodUsage } from './pod-usage';
import { rankPods, isCriticalPod } from './ranking';
import { observe, type Measurements, type NodeConditionType, type Observations, type Signal } from './signals';
import {
  conditionsHeld, conditionsLastObservedAt, conditionsOf, firstObservedAt, mergeThresholds, metGracePeriod, thresholdsMet, thresholdToReclaim,
  type Threshold,
} from './thresholds';

/** Upstream's housekeeping interval, the eviction monitoring period. */
export const DEFAULT_MONITORING_PERIOD_MS = 10_000;
/** How long the passes after an eviction wait for the evicted pods to be cleaned up (upstream's podCleanupTimeout). */
export const POD_CLEANUP_TIMEOUT_MS = 30_000;
/** Grace period of a hard eviction (upstream's immediateEvictionGracePeriodSeconds). */
export const HARD_EVICTION_GRACE_SECONDS = 1;

export interface EvictionRequest {
  pod: Pod;
  gracePeriodSeconds: number;
  message: string;
  /** The signal the eviction reclaims for, or a local storage limit's pseudo-signal (the evictions metric's label). */
  signal: string;
  /** Node pressure (not a local storage limit): the pod gets a DisruptionTarget condition, as upstream. */
  disruptionCondition: boolean;
}

export interface EvictionManagerOptions {
  thresholds: Threshold[];
  pressureTransitionPeriodMs: number;
  /** evictionMaxPodGracePeriod: the most a soft eviction waits. */
  maxPodGracePeriodSeconds: number;
  /** --local-storage-capacity-isolation: pods past their emptyDir sizeLimit or ephemeral-storage limits are evicted. */
  localStorageCapacityIsolation?: boolean;
  measure(): Promise<Measurements> | Measurements;
  /** The pods that may be evicted: admitted, not finished, not evicted already. */
  activePods(): Pod[];
  usage(pods: readonly Pod[]): Promise<ReadonlyMap<string, PodUsage>>;
  /** Frees what the node holds for a signal (upstream's node reclaim functions); none for memory and pids. */
  reclaim(signal: Signal): Array<() => Promise<unknown>>;
  /** Kills the pod (grace period as given), reports it Failed/Evicted, records the event. */
  evict(req: EvictionRequest): void | Promise<void>;
  /** Whether an evicted pod's containers are stopped and its volumes torn down. */
  cleanedUp(pod: Pod): boolean;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** An event about the node (EvictionThresholdMet); none in standalone mode. */
  nodeEvent?(type: 'Warning', reason: string, message: string): void;
  now?: () => number;
}

export interface NodePressure {
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
}

export class EvictionManager {
  private readonly now: () => number;
  private firstObserved = new Map<string, { threshold: Threshold; at: number }>();
  private lastObservedConditions = new Map<NodeConditionType, number>();
  private conditions: NodeConditionType[] = [];
  /** Thresholds met (grace periods past) at the last synchronization, held until their minimum reclaim is free. */
  private met: Threshold[] = [];
  private lastObservations: Observations = {};
  /** The last pass's evictions, until cleaned up or POD_CLEANUP_TIMEOUT_MS passed. */
  private awaitingCleanup: { pods: Pod[]; since: number } | undefined;

  constructor(private readonly o: EvictionManagerOptions) {
    this.now = o.now ?? Date.now;
  }

  /** The node conditions to report. */
  pressure(): NodePressure {
    const has = (c: NodeConditionType) => this.conditions.includes(c);
    return { memoryPressure: has('MemoryPressure'), diskPressure: has('DiskPressure'), pidPressure: has('PIDPressure') };
  }

  /**
   * Upstream's eviction admission: no condition admits; critical pods are admitted anyway; under memory pressure
   * alone only BestEffort pods are refused (unless they tolerate the memory-pressure taint); any other condition
   * refuses every pod.
   */
  admit(pod: Pod): { reason: string; message: string } | null {
    if (this.conditions.length === 0 || isCriticalPod(pod)) return null;
    if (this.conditions.length === 1 && this.conditions[0] === 'MemoryPressure') {
      if (qosClass(pod) !== 'BestEffort') return null;
      if (toleratesMemoryPressure(pod)) return null;
    }
    this.o.log('Failed to admit pod to node', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, nodeCondition: this.conditions });
    return { reason: EVICTED_REASON, message: admissionMessage(this.conditions) };
  }

  /**
   * One monitoring pass; returns the pods it evicted. After an eviction, passes do nothing until the evicted pods
   * are cleaned up (at most POD_CLEANUP_TIMEOUT_MS), as upstream waits: their space is not free before, and a second
   * pod would go for nothing.
   */
  async synchronize(): Promise<Pod[]> {
    const waiting = this.awaitingCleanup;
    if (waiting) {
      if (!waiting.pods.every((p) => this.o.cleanedUp(p)) && this.now() - waiting.since < POD_CLEANUP_TIMEOUT_MS) return [];
      this.awaitingCleanup = undefined;
    }
    const evicted = await this.pass();
    if (evicted.length > 0) this.awaitingCleanup = { pods: evicted, since: this.now() };
    return evicted;
  }

  private async pass(): Promise<Pod[]> {
    const thresholds = this.o.thresholds;
    if (thresholds.length === 0) {
      // Nothing to observe: only the local storage limits (which measure the node only for pods that set one).
      return this.o.localStorageCapacityIsolation ? this.localStorageEviction(async () => (await this.o.measure()).imagefs !== undefined) : [];
    }
    const measured = await this.o.measure();
    const observations = observe(measured);
    // Met now, or met before and not yet past their minimum reclaim.
    let met = thresholdsMet(thresholds, observations, false);
    if (this.met.length > 0) met = mergeThresholds(met, thresholdsMet(this.met, observations, true));
    const now = this.now();
    this.firstObserved = firstObservedAt(met, this.firstObserved, now);
    // Conditions follow every met threshold, grace period or not (upstream raises them before its grace filter).
    this.lastObservedConditions = conditionsLastObservedAt(conditionsOf(met), this.lastObservedConditions, now);
    this.conditions = conditionsHeld(this.lastObservedConditions, this.o.pressureTransitionPeriodMs, now);
    this.met = metGracePeriod(this.firstObserved, now);
    // Only thresholds whose observation is new act (upstream's thresholdsUpdatedStats).
    const acting = this.met.filter((t) => {
      const before = this.lastObservations[t.signal];
      return !before || before.time !== observations[t.signal]?.time;
    });
    this.lastObservations = observations;
    if (this.o.localStorageCapacityIsolation) {
      const evicted = await this.localStorageEviction(async () => measured.imagefs !== undefined);
      if (evicted.length > 0) return evicted;
    }
    const target = thresholdToReclaim(acting);
    if (!target) return [];
    this.o.log('Eviction manager: attempting to reclaim', { resourceName: target.resource });
    this.o.nodeEvent?.('Warning', 'EvictionThresholdMet', `Attempting to reclaim ${target.resource}`);

    if (await this.reclaimNodeLevel(target.threshold.signal, target.resource)) {
      this.o.log('Eviction manager: able to reduce resource pressure without evicting pods.', { resourceName: target.resource });
      return [];
    }
    const active = this.o.activePods();
    if (active.length === 0) {
      this.o.log('Eviction manager: eviction thresholds have been met, but no pods are active to evict');
      return [];
    }
    this.o.log('Eviction manager: must evict pod(s) to reclaim', { resourceName: target.resource });
    const usages = await this.o.usage(active);
    const ranked = rankPods(active, target.resource, usages);
    for (const pod of ranked) {
      if (isCriticalPod(pod)) {
        this.o.log('Eviction manager: cannot evict a critical pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
        continue;
      }
      const gracePeriodSeconds = target.threshold.hard
        ? HARD_EVICTION_GRACE_SECONDS
        : Math.min(this.o.maxPodGracePeriodSeconds, pod.spec.terminationGracePeriodSeconds ?? 30);
      const message = evictionMessage(target.resource, pod, usages.get(pod.metadata.uid ?? ''), acting, observations);
      await this.o.evict({ pod, gracePeriodSeconds, message, signal: target.threshold.signal, disruptionCondition: true });
      return [pod];
    }
    this.o.log('Eviction manager: unable to evict any pods from the node');
    return [];
  }

  /** Every pod past one of its local storage limits goes at once (only pods that set one are measured). */
  private async localStorageEviction(hasDedicatedImageFs: () => Promise<boolean>): Promise<Pod[]> {
    const limited = this.o.activePods().filter(hasLocalStorageLimits);
    if (limited.length === 0) return [];
    const usages = await this.o.usage(limited);
    const dedicatedImageFs = await hasDedicatedImageFs();
    const evicted: Pod[] = [];
    for (const pod of limited) {
      const usage = usages.get(pod.metadata.uid ?? '');
      const violation = usage && localStorageViolation(pod, usage, dedicatedImageFs);
      if (!violation || isCriticalPod(pod)) continue;
      await this.o.evict({ pod, gracePeriodSeconds: HARD_EVICTION_GRACE_SECONDS, message: violation.message, signal: violation.signal, disruptionCondition: false });
      evicted.push(pod);
    }
    return evicted;
  }

  /** Runs the node's reclaim functions for the signal, then tells whether every threshold is now past its minimum reclaim. */
  private async reclaimNodeLevel(signal: Signal, resource: string): Promise<boolean> {
    const fns = this.o.reclaim(signal);
    if (fns.length === 0) return false;
    for (const fn of fns) {
      try {
        await fn();
      } catch (e) {
        this.o.log('Eviction manager: unexpected error when attempting to reduce resource pressure', { resourceName: resource, err: (e as Error).message });
      }
    }
    const after = observe(await this.o.measure());
    return thresholdsMet(this.o.thresholds, after, true).length === 0;
  }
}

function toleratesMemoryPressure(pod: Pod): boolean {
  return (pod.spec.tolerations ?? []).some((t) => {
    const keyMatches = t.key === 'node.kubernetes.io/memory-pressure' || (!t.key && t.operator === 'Exists');
    const effectMatches = !t.effect || t.effect === 'NoSchedule';
    const valueMatches = t.operator === 'Exists' || (t.value ?? '') === '';
    return keyMatches && effectMatches && valueMatches;
  });
}

