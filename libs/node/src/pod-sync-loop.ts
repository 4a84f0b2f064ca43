// The node's pod loop, as upstream's syncLoop and pod workers, for any runtime behind PodLifecycle: sources ->
// desired pods -> admission -> per-pod workers (one sync at a time per pod, pods in parallel) -> runtime. A
// relist every second wakes the pods whose runtime state changed (upstream's PLEG); a housekeeping every two
// seconds kills what runs though no source wants it; every syncFrequency each pod is synced anyway.
import { PeriodicTasks, systemClock, type LoopClock } from './periodic-tasks';
import { PodSyncFailure, type AdmissionRefusal, type PodLifecycle, type PodLike, type PodStatusLike } from './pod-lifecycle';
import { PodSourceSets, podFullName, type PodSourceName } from './pod-source-sets';
import { CONFIG_SOURCE_ANNOTATION } from './node-agent';
import type { Pod, PodStatus } from './types';

/**
 * The loop's log: NodeLog's arguments plus klog's verbosity. Lines with `v` are debug detail (4: every sync, 5:
 * every relist wake-up) that a logger shows only when asked; one that ignores `v` prints them all.
 */
export type PodSyncLoopLog = (msg: string, fields?: Record<string, unknown>, severity?: 'I' | 'W' | 'E', v?: number) => void;

/** Where the loop's findings go (NodeAgent's reportStatus, reportTerminated and reportStaticPods in a cluster). */
export interface PodSyncReports<P extends PodLike = Pod, S extends PodStatusLike = PodStatus> {
  /** Every status the loop computed: each sync's, an admission refusal's, a deleted pod's last. */
  status(pod: P, status: S): void;
  /** A pod the API server is deleting has nothing running any more: its deletion may be confirmed. */
  terminated(pod: P): void;
  /** The static pods (every source but the API server) after a static source changed: the whole set. */
  staticPods(pods: P[]): void;
}

export interface PodSyncLoopOptions<P extends PodLike = Pod, S extends PodStatusLike = PodStatus> {
  lifecycle: PodLifecycle<P, S>;
  /** The sources that will hand over sets; pods are taken for gone (orphans killed) only once each has, once. */
  sources: readonly PodSourceName[];
  /** Pods admitted at once; more are refused as OutOfpods (default 110). */
  maxPods?: number;
  /** Every pod is synced this often even when nothing changed (syncFrequency, default 1 min). */
  syncFrequencyMs?: number;
  /** Upstream's constants when absent: relist 1 s, housekeeping 2 s. */
  relistPeriodMs?: number;
  housekeepingPeriodMs?: number;
  reports?: PodSyncReports<P, S>;
  log: PodSyncLoopLog;
  clock?: LoopClock;
}

interface Entry<P, S> {
  pod: P;
  /** What the loop last computed or was given (the source's own status until the first sync). */
  status: S | undefined;
  rejected: boolean;
  /** Deleted by the API server and stopped: only a change of the pod syncs it again. */
  terminated: boolean;
}

interface Worker {
  running: boolean;
  again: boolean;
  done: Promise<void>;
}

/** A failed sync or kill is tried again after this (upstream's pod worker back-off on error). */
const ERROR_RETRY_MS = 10_000;
/**
 * A retry fires this much after the time the runtime asked for: a back-off that ends at `retryAt` has surely
 * ended when the sync looks at it.
 */
const RETRY_SLACK_MS = 20;
const HEALTH_FLOOR_MS = 5 * 60_000;

export class PodSyncLoop<P extends PodLike = Pod, S extends PodStatusLike = PodStatus> {
  private readonly lifecycle: PodLifecycle<P, S>;
  private readonly log: PodSyncLoopLog;
  private readonly clock: LoopClock;
  private readonly syncFrequencyMs: number;
  private readonly sourceSets: PodSourceSets<P>;
  private readonly entries = new Map<string, Entry<P, S>>();
  private readonly workers = new Map<string, Worker>();
  private readonly retryTimers = new Map<string, unknown>();
  /** The fingerprint each pod's last sync returned; the relist compares against it. */
  private readonly fingerprints = new Map<string, string>();
  private readonly periodic: PeriodicTasks;
  /** Syncs asked for before start(), run by it. */
  private readonly beforeStart = new Set<string>();
  private lastRelist: number;
  private started = false;
  private stopped = false;

  constructor(private readonly o: PodSyncLoopOptions<P, S>) {
    this.lifecycle = o.lifecycle;
    this.log = o.log;
    this.clock = o.clock ?? systemClock;
    this.syncFrequencyMs = o.syncFrequencyMs ?? 60_000;
    this.sourceSets = new PodSourceSets<P>((msg) => o.log(msg), () => this.clock.now());
    this.periodic = new PeriodicTasks((e) => this.log('Periodic task failed', { err: (e as Error)?.message ?? String(e) }), this.clock);
    this.lastRelist = this.clock.now();
  }

  /** Starts the workers (pods handed over before are synced now) and the periodic relist, housekeeping and resync. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.periodic.every(this.o.relistPeriodMs ?? 1000, () => this.relist());
    this.periodic.every(this.o.housekeepingPeriodMs ?? 2000, () => this.housekeeping());
    this.periodic.every(this.syncFrequencyMs, () => {
      for (const uid of this.entries.keys()) this.requestSync(uid);
    });
    for (const uid of this.beforeStart) this.requestSync(uid);
    this.beforeStart.clear();
  }

  /** Ends the loops and retries; resolves once every sync, kill and listing under way has returned. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.retryTimers.values()) this.clock.clearTimeout(t);
    this.retryTimers.clear();
    await Promise.all([
      this.periodic.stop(),
      ...[...this.workers.values()].map((w) => w.done.catch(() => undefined)),
    ]);
  }

  /** One source's pods now, the whole set. */
  setSourcePods(source: PodSourceName, pods: readonly P[]): void {
    this.sourceSets.set(source, pods);
    this.reconcile();
    if (source !== 'api') {
      this.o.reports?.staticPods([...this.entries.values()].map((e) => e.pod).filter((p) => p.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION] !== 'api'));
    }
  }

  /** The API server's pods for this node: a PodSyncLoop<Pod> is NodeAgent's `runtime` (PodRuntimeHost) as it is. */
  setApiPods(pods: P[]): void {
    this.setSourcePods('api', pods);
  }

  /** Syncs the pod soon (at once, or after the sync under way): the runtime saw something change. */
  requestSync(uid: string): void {
    if (this.stopped) return;
    if (!this.started) {
      this.beforeStart.add(uid);
      return;
    }
    const w = this.workers.get(uid);
    if (w?.running) {
      w.again = true;
      return;
    }
    const worker: Worker = { running: true, again: false, done: Promise.resolve() };
    worker.done = (async () => {
      do {
        worker.again = false;
        await this.syncOne(uid);
      } while (worker.again && !this.stopped);
      worker.running = false;
      if (this.workers.get(uid) === worker) this.workers.delete(uid);
    })();
    this.workers.set(uid, worker);
  }

  /** Every pod some source wants, with the status the loop last computed (the node's /pods). */
  pods(): P[] {
    return [...this.entries.values()].map((e) => ({ ...e.pod, status: e.status ?? e.pod.status }) as P);
  }

  /** The pods admitted to run (not refused), as the sources gave them plus the loop's annotations. */
  admittedPods(): P[] {
    return [...this.entries.values()].filter((e) => !e.rejected).map((e) => e.pod);
  }

  /** Whether some source wants the pod (refused ones included). */
  hasPod(uid: string): boolean {
    return this.entries.has(uid);
  }

  /** Every expected source has handed over a set once: only now may a pod the runtime holds be taken for gone. */
  allSourcesReady(): boolean {
    return this.o.sources.every((s) => this.sourceSets.reported(s));
  }

  /** The `syncloop` health check: an error once the relist has not run for max(2 x syncFrequency, 5 min). */
  syncLoopHealthy(): Error | null {
    const limit = Math.max(2 * this.syncFrequencyMs, HEALTH_FLOOR_MS);
    return this.clock.now() - this.lastRelist > limit ? new Error('sync Loop took longer than expected') : null;
  }

  // ---- desired pods and admission ----

  private reconcile(): void {
    const desired = this.sourceSets.desired();
    for (const uid of [...this.entries.keys()]) {
      if (desired.has(uid)) continue;
      this.entries.delete(uid);
      this.fingerprints.delete(uid);
      this.log('Pod removed from its source, killing it', { podUID: uid });
      this.requestSync(uid); // the worker finds no entry and kills the pod
    }
    const maxPods = this.o.maxPods ?? 110;
    let admitted = [...this.entries.values()].filter((e) => !e.rejected).length;
    for (const [uid, pod] of desired) {
      const existing = this.entries.get(uid);
      if (existing) {
        // An API pod that changed (deleted, its image or labels edited) is synced at once, as upstream's UPDATE;
        // a static pod changes only through a new uid.
        const changed = existing.pod.metadata.resourceVersion !== pod.metadata.resourceVersion;
        existing.pod = pod;
        if (changed) {
          existing.terminated = false;
          this.requestSync(uid);
        }
        continue;
      }
      const refusal: AdmissionRefusal | null | undefined = admitted >= maxPods
        ? { reason: 'OutOfpods', message: `Node didn't have enough resource: pods, requested: 1, used: ${admitted}, capacity: ${maxPods}` }
        : this.lifecycle.admit?.(pod);
      const entry: Entry<P, S> = { pod, status: pod.status as S | undefined, rejected: !!refusal, terminated: false };
      this.entries.set(uid, entry);
      if (refusal) {
        // Upstream admission: the pod is refused, never run, and reported Failed.
        entry.status = { phase: 'Failed', reason: refusal.reason, message: refusal.message, startTime: new Date(this.clock.now()).toISOString() } as unknown as S;
        this.log('Pod admission denied', { pod: podFullName(pod), reason: refusal.reason, message: refusal.message });
        this.o.reports?.status(pod, entry.status);
        continue;
      }
      admitted++;
      this.requestSync(uid);
    }
  }

  // ---- one pod ----

  private async syncOne(uid: string): Promise<void> {
    const entry = this.entries.get(uid);
    try {
      if (!entry) {
        await this.lifecycle.kill(uid, null);
        return;
      }
      if (entry.pod.metadata.deletionTimestamp) {
        await this.terminate(uid, entry);
        return;
      }
      if (entry.rejected) return;
      const pod = entry.pod;
      // As upstream's pod workers at -v=4: every sync, with the pod it is for.
      this.log('SyncPod enter', { pod: podFullName(pod), podUID: uid }, 'I', 4);
      const result = await this.lifecycle.sync(pod);
      entry.status = result.status;
      this.o.reports?.status(pod, result.status);
      this.fingerprints.set(uid, result.fingerprint);
      this.log('SyncPod exit', { pod: podFullName(pod), podUID: uid, phase: result.status.phase }, 'I', 4);
      this.scheduleRetry(uid, result.retryAt);
    } catch (e) {
      this.log('Error syncing pod, skipping', { pod: entry ? podFullName(entry.pod) : uid, podUID: uid, err: e }, 'E');
      if (entry && e instanceof PodSyncFailure) {
        entry.status = e.status as S;
        this.o.reports?.status(entry.pod, entry.status);
      }
      this.scheduleRetry(uid, this.clock.now() + ERROR_RETRY_MS);
    }
  }

  /**
   * A pod the API server is deleting: the runtime stops it within the grace period it was given, its last status
   * gets a final phase, and the API server hears it may remove the pod.
   */
  private async terminate(uid: string, entry: Entry<P, S>): Promise<void> {
    const pod = entry.pod;
    this.log('Killing pod the API server is deleting', { pod: podFullName(pod), podUID: uid, gracePeriod: requestedGracePeriod(pod) });
    const after = (await this.lifecycle.kill(uid, pod)) ?? entry.status;
    if (after) {
      entry.status = { ...after, phase: terminalPhase(after) } as S;
      this.o.reports?.status(pod, entry.status);
    }
    entry.terminated = true;
    this.o.reports?.terminated(pod);
  }

  private scheduleRetry(uid: string, at: number): void {
    const pending = this.retryTimers.get(uid);
    if (pending !== undefined) this.clock.clearTimeout(pending);
    this.retryTimers.delete(uid);
    if (!at || this.stopped) return;
    const delay = Math.max(0, at - this.clock.now()) + RETRY_SLACK_MS;
    this.retryTimers.set(uid, this.clock.setTimeout(() => {
      this.retryTimers.delete(uid);
      this.requestSync(uid);
    }, delay));
  }

  // ---- relist and housekeeping ----

  private async relist(): Promise<void> {
    this.lastRelist = this.clock.now();
    const { fingerprints } = await this.lifecycle.relist();
    for (const [uid, entry] of this.entries) {
      if (entry.rejected || entry.terminated) continue;
      if (this.fingerprints.get(uid) === (fingerprints.get(uid) ?? '')) continue;
      this.log('Pod runtime state changed, syncing', { podUID: uid }, 'I', 5);
      this.requestSync(uid);
    }
  }

  private async housekeeping(): Promise<void> {
    this.log('SyncLoop (housekeeping)', {}, 'I', 4);
    if (!this.allSourcesReady()) return;
    const { running } = await this.lifecycle.relist();
    for (const uid of running) if (!this.entries.has(uid) && !this.workers.get(uid)?.running) this.requestSync(uid);
  }
}

/** The grace period a pod asks for (the runtime may hold a floor of its own, as upstream's 2 s). */
function requestedGracePeriod(pod: PodLike): number {
  const spec = pod.spec as { terminationGracePeriodSeconds?: number } | undefined;
  return pod.metadata.deletionGracePeriodSeconds ?? spec?.terminationGracePeriodSeconds ?? 30;
}

/**
 * The phase of a pod stopped for deletion: whatever its restart policy, nothing will run again, so it Succeeded
 * when every container exited 0 and Failed otherwise (upstream's getPhase with podIsTerminal).
 */
function terminalPhase(status: PodStatusLike): string {
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return status.phase;
  const containers = ((status as { containerStatuses?: unknown }).containerStatuses ?? []) as Array<{ state?: { terminated?: { exitCode?: number } } }>;
  return containers.length > 0 && containers.every((c) => c.state?.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
}
