// The node agent's pods, wired: the static pod sources and the API server feed the node library's sync loop, whose
// runtime is containerd through CRI (CriPodLifecycle). Around the loop, the chores only a container runtime has:
// container GC, image GC and log rotation, each on its own period; and --runonce, which syncs each pod itself.
import { ApiVolumeStep, removeApiVolumes } from '../volumes';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CriClient } from '@cl/cri';
import { Registry } from 'prom-client';
import { parseDuration } from '@cl/flags';
import { PeriodicTasks, PodSyncLoop, type PodLifecycle, type PodSourceName, type PodSyncLoopLog } from '@cl/node';
import type { CletConfiguration } from '../config/types';
import type { Pod, PodStatus } from './api-types';
import { CriPodLifecycle, admitAll } from './cri-pod-lifecycle';
import { collectContainers, collectImages, rotateContainerLogs } from './gc';
import { ImagePuller } from './image-puller';
import { logLine, type LogFn } from './log';
import { PodRuntime, gracePeriodOverrides, gracePeriodSeconds, sooner } from './pod-runtime';
import { parseQuantity } from './quantity';
import { RuntimeSpecContext, podDir, podFullName } from './runtime-spec';
import { DEFAULT_MONITORING_PERIOD_MS, EVICTED_REASON, EvictionManager, HARD_EVICTION_GRACE_SECONDS, hostMeasurements, parseThresholds, podUsages, type EvictionRequest, type NodePressure } from '../eviction';
import { ProbeManager } from './probe-manager';
import { appArmorAdmission, hostHasAppArmor, osAdmission, sysctlAdmission, type AdmissionRejection } from './security-context';
import { FileSource, HttpSource, PodSource } from './sources';
import { runPodsOnce } from './run-once';
import type { PodManager, PodManagerOptions } from './index';

/** The first non-loopback IPv4 address (upstream's default node IP), else 127.0.0.1. */
export function defaultNodeIP(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

const ms = (d: string | undefined, dflt: number) => (d ? parseDuration(d) : dflt);

/** --runonce fails when no source has handed over its pods by then. */
const RUN_ONCE_FIRST_UPDATE_MS = 1000;

export class CriPodManager implements PodManager {
  private readonly config: CletConfiguration;
  private readonly log: LogFn;
  private readonly nodeIP: string;
  private readonly ctx: RuntimeSpecContext;
  private readonly admit: (pod: Pod) => AdmissionRejection | null;
  private readonly loop: PodSyncLoop<Pod, PodStatus>;
  private readonly sources: PodSource[] = [];
  private readonly chores: PeriodicTasks;
  private readonly imageFirstSeen = new Map<string, number>();
  private cri: CriClient | undefined;
  private runtime: PodRuntime | undefined;
  private volumeStep: ApiVolumeStep | undefined;
  private probes: ProbeManager | undefined;
  private lifecycle: CriPodLifecycle | undefined;
  private firstUpdate: (() => void) | undefined;
  private readonly eviction: EvictionManager;
  /**
   * Pods the agent ended, by uid: evicted (node pressure, local storage) or past their activeDeadlineSeconds
   * (`reason` DeadlineExceeded); never synced again; `final` once their containers are stopped.
   */
  private readonly evicted = new Map<string, { req: EvictionRequest; reason?: string; final?: PodStatus }>();
  /** When each pod was first synced (ms): its start for activeDeadlineSeconds when its status names none. */
  private readonly firstSynced = new Map<string, number>();
  /** Pods that reached Succeeded or Failed by themselves: no deadline applies to them any more. */
  private readonly completed = new Set<string>();
  /** The clock of the sync loop and of the deadlines (a test's, or the wall clock). */
  private readonly now: () => number;
  private imageFsMount: string | undefined;

  constructor(private readonly opts: PodManagerOptions) {
    const c = opts.config;
    this.config = c;
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
    this.nodeIP = opts.nodeIP || defaultNodeIP();
    this.ctx = {
      podLogsDir: c.podLogsDir || '/var/log/pods',
      containerLogsDir: opts.containerLogsDir ?? '/var/log/containers',
      rootDir: opts.rootDir ?? '/var/lib/clet',
      resolvConf: c.resolvConf ?? '/etc/resolv.conf',
      clusterDNS: c.clusterDNS ?? [],
      clusterDomain: c.clusterDomain ?? '',
      nodeIP: this.nodeIP,
      security: { seccompDefault: c.seccompDefault ?? false, seccompProfileRoot: path.join(opts.rootDir ?? '/var/lib/clet', 'seccomp') },
      ...(opts.cgroups ? { cgroups: opts.cgroups } : {}),
    };
    this.eviction = this.evictionManager();
    // Admission beyond the pod count, in upstream's order; an allowlist entry that is not namespaced stops the agent.
    // A pod evicted before (its API status says so) is never run again, so pressure has nothing to refuse.
    this.admit = admitAll([(pod) => (wasEvicted(pod) ? null : this.eviction.admit(pod)), sysctlAdmission(c.allowedUnsafeSysctls ?? []), appArmorAdmission(hostHasAppArmor()), osAdmission()]);
    const sources: PodSourceName[] = [];
    if (c.staticPodPath) sources.push('file');
    if (c.staticPodURL) sources.push('http');
    // In API-server mode the API source is expected too: nothing is an orphan before its first set.
    if (opts.reports) sources.push('api');
    const clock = { now: this.now, setTimeout: (fn: () => void, t: number) => setTimeout(fn, t), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
    // The loop exists from the start, so pods(), setApiPods and the health check answer before the CRI is
    // connected; it calls its runtime only once start() connected it and started the loop.
    const lifecycle: PodLifecycle<Pod, PodStatus> = {
      sync: async (pod) => {
        if (this.evictedBefore(pod)) return this.syncEvicted(pod);
        const deadline = this.activeDeadline(pod);
        if (deadline !== undefined && this.now() >= deadline) {
          this.endForDeadline(pod);
          return this.syncEvicted(pod);
        }
        // Its secrets and config maps become readable (a watch each under the default strategy) before it runs.
        this.opts.apiObjects?.registerPod(pod);
        const result = await this.connected().sync(pod);
        // A pod that finished on its own keeps its phase: the deadline is for pods still active.
        if (result.status.phase === 'Succeeded' || result.status.phase === 'Failed') this.completed.add(pod.metadata.uid!);
        // Synced again when the deadline comes (upstream's activeDeadlineHandler.ShouldSync).
        else if (deadline !== undefined) result.retryAt = sooner(result.retryAt, deadline);
        return result;
      },
      kill: async (uid, pod) => {
        const after = await this.connected().kill(uid, pod);
        // The pod is going away: its secret, config map and token files leave the disk with it, the agent stops
        // reading (watching) what only it named, and its tokens are forgotten (upstream's DeleteServiceAccountToken).
        removeApiVolumes(podDir(this.ctx, uid));
        this.opts.apiObjects?.unregisterPod(uid);
        this.volumeStep?.tokens?.forgetPod(uid);
        // An evicted pod keeps its Failed/Evicted status when the API server deletes it; one no source wants is forgotten.
        const final = pod ? this.evicted.get(uid)?.final : undefined;
        if (!pod) {
          this.evicted.delete(uid);
          this.firstSynced.delete(uid);
          this.completed.delete(uid);
        }
        return final ?? after;
      },
      relist: () => this.connected().relist(),
      admit: this.admit,
    };
    this.loop = new PodSyncLoop<Pod, PodStatus>({
      lifecycle,
      sources,
      maxPods: c.maxPods ?? 110,
      syncFrequencyMs: ms(c.syncFrequency, 60_000),
      relistPeriodMs: opts.relistPeriodMs,
      housekeepingPeriodMs: opts.housekeepingPeriodMs,
      reports: opts.reports,
      log: loopLog(this.log),
      clock,
    });
    this.chores = new PeriodicTasks((e) => this.log(logLine('Periodic task failed', { err: (e as Error).message })), clock);
  }

  async start(): Promise<void> {
    const c = this.config;
    this.cri = await CriClient.connect({
      runtimeEndpoint: c.containerRuntimeEndpoint,
      imageEndpoint: c.imageServiceEndpoint || c.containerRuntimeEndpoint,
      timeoutMs: ms(c.runtimeRequestTimeout, 120_000),
    });
    const cri = this.cri;
    const runtimeName = (await cri.version()).runtimeName || 'containerd';
    const events = this.opts.reports?.events;
    const puller = new ImagePuller(cri, { serialize: c.serializeImagePulls ?? true, qps: c.registryPullQPS ?? 5, burst: c.registryBurst ?? 10, credentials: this.opts.imageCredentials, secrets: this.opts.pullSecrets }, this.log, events);
    this.volumeStep = new ApiVolumeStep(this.opts.apiObjects);
    this.runtime = new PodRuntime(cri, puller, this.ctx, this.log, events, this.volumeStep);
    this.probes = new ProbeManager(cri, this.opts.probeMetrics ?? new Registry(), {
      unhealthy: (pod, container, id, type, grace, message) => {
        this.log(logLine(`Container ${container.name} failed ${type.toLowerCase()} probe, will be restarted`, { pod: podFullName(pod), containerID: id, message }));
        const seconds = grace ?? gracePeriodSeconds(pod);
        void cri.stopContainer(id, seconds).catch((e: Error) => this.log(logLine('Failed to kill an unhealthy container', { containerID: id }, { severity: 'E', err: e }))).then(() => this.loop.requestSync(pod.metadata.uid!));
      },
      changed: (uid) => this.loop.requestSync(uid),
    }, this.log);
    this.lifecycle = new CriPodLifecycle({ cri, runtime: this.runtime, probes: this.probes, nodeIP: this.nodeIP, runtimeName, admit: this.admit, cgroups: this.opts.cgroups });

    const firstUpdate = new Promise<void>((resolve) => { this.firstUpdate = resolve; });
    const onSet = (source: 'file' | 'http', pods: Pod[]) => this.setSourcePods(source, pods);
    if (c.staticPodPath) this.sources.push(new FileSource(c.staticPodPath, this.opts.nodeName, ms(c.fileCheckFrequency, 20_000), onSet, this.log));
    if (c.staticPodURL) {
      this.sources.push(new HttpSource(c.staticPodURL, c.staticPodURLHeader ?? {}, this.opts.nodeName, ms(c.httpCheckFrequency, 20_000), onSet, this.log));
    }
    // --runonce syncs the pods itself, so the loop's workers never race it.
    if (!c.runOnce) this.loop.start();
    for (const s of this.sources) s.start();

    if (c.runOnce) {
      await this.runOnce(firstUpdate);
      return;
    }
    this.chores.every(this.opts.containerGCPeriodMs ?? 60_000, () => this.containerGC());
    this.chores.every(this.opts.imageGCPeriodMs ?? 300_000, () => this.imageGC());
    this.chores.every(ms(c.containerLogMonitorInterval, 10_000), () => this.rotateLogs());
    this.imageFsMount = (await cri.imageFsInfo().catch(() => null))?.imageFilesystems[0]?.fsId?.mountpoint || undefined;
    this.chores.every(this.opts.evictionMonitoringPeriodMs ?? DEFAULT_MONITORING_PERIOD_MS, async () => {
      await this.eviction.synchronize();
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sources) s.stop();
    await Promise.all([this.loop.stop(), this.chores.stop()]);
    // After the loop: a sync that was still running would start probe workers again.
    this.probes?.stop();
    this.cri?.close();
  }

  pods(): object[] {
    return this.loop.pods();
  }

  syncLoopHealthy(): Error | null {
    return this.loop.syncLoopHealthy();
  }

  nodePressure(): NodePressure {
    return this.eviction.pressure();
  }

  setApiPods(pods: Pod[]): void {
    this.loop.setApiPods(pods);
    this.firstUpdate?.();
  }

  private setSourcePods(source: PodSourceName, pods: Pod[]): void {
    this.loop.setSourcePods(source, pods);
    this.firstUpdate?.();
  }

  private connected(): CriPodLifecycle {
    if (!this.lifecycle) throw new Error('the container runtime is not connected yet');
    return this.lifecycle;
  }

  // ---- the container runtime's chores ----

  private async containerGC(): Promise<void> {
    const ready = this.loop.allSourcesReady();
    await collectContainers(this.cri!, {
      minAgeMs: this.opts.minimumContainerTTLDuration ?? 0,
      maxPerPodContainer: this.opts.maximumDeadContainersPerContainer ?? 1,
      maxContainers: this.opts.maximumDeadContainers ?? -1,
    }, (uid) => !ready || this.loop.hasPod(uid), this.log, {
      containerLogsDir: this.ctx.containerLogsDir,
      ...(ready ? { podLogsDir: this.ctx.podLogsDir } : {}),
    });
    this.runtime!.backoff.gc();
  }

  private async imageGC(): Promise<void> {
    const c = this.config;
    const removed = await collectImages(this.cri!, {
      highThresholdPercent: c.imageGCHighThresholdPercent ?? 85,
      lowThresholdPercent: c.imageGCLowThresholdPercent ?? 80,
      minAgeMs: ms(c.imageMinimumGCAge, 120_000),
      pinnedImages: this.opts.podInfraContainerImage ? [this.opts.podInfraContainerImage] : [],
    }, this.imageFirstSeen, this.log);
    for (const id of removed) this.log(logLine('Removed unused image', { imageID: id }));
  }

  private async rotateLogs(): Promise<void> {
    const maxBytes = parseQuantity(this.config.containerLogMaxSize || '10Mi');
    await rotateContainerLogs(this.cri!, maxBytes, Math.max(2, this.config.containerLogMaxFiles ?? 5), this.log);
  }

  // ---- node-pressure eviction ----

  private evictionManager(): EvictionManager {
    const c = this.config;
    const ctx = this.ctx;
    return new EvictionManager({
      thresholds: parseThresholds({
        evictionHard: c.evictionHard ?? {},
        evictionSoft: c.evictionSoft ?? {},
        evictionSoftGracePeriod: c.evictionSoftGracePeriod ?? {},
        evictionMinimumReclaim: c.evictionMinimumReclaim ?? {},
      }),
      pressureTransitionPeriodMs: ms(c.evictionPressureTransitionPeriod, 5 * 60_000),
      maxPodGracePeriodSeconds: c.evictionMaxPodGracePeriod ?? 0,
      localStorageCapacityIsolation: c.localStorageCapacityIsolation ?? true,
      measure: () => hostMeasurements(ctx.rootDir, this.imageFsMount, Date.now()),
      activePods: () => {
        const finished = new Set(this.loop.pods().filter((p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed').map((p) => p.metadata.uid));
        return this.loop.admittedPods().filter((p) => !this.evicted.has(p.metadata.uid!) && !finished.has(p.metadata.uid) && !p.metadata.deletionTimestamp);
      },
      usage: (pods) => podUsages(this.cri!, pods, { rootDir: ctx.rootDir, podLogsDir: ctx.podLogsDir }),
      // Disk signals free dead containers and unused images first (upstream's DeleteAllUnusedContainers and
      // DeleteUnusedImages); memory and pids have nothing the node can free.
      reclaim: (signal) => (signal.startsWith('memory') || signal.startsWith('allocatable') || signal === 'pid.available' ? [] : [
        () => this.containerGC(),
        () => collectImages(this.cri!, {
          highThresholdPercent: 0,
          lowThresholdPercent: 0,
          minAgeMs: ms(c.imageMinimumGCAge, 120_000),
          pinnedImages: this.opts.podInfraContainerImage ? [this.opts.podInfraContainerImage] : [],
        }, this.imageFirstSeen, this.log),
      ]),
      evict: (req) => this.evict(req),
      cleanedUp: (pod) => this.evicted.get(pod.metadata.uid!)?.final !== undefined,
      log: (msg, fields) => this.log(logLine(msg, fields ?? {})),
      nodeEvent: (type, reason, message) => this.opts.reports?.nodeEvent?.(type, reason, message),
    });
  }

  /**
   * Whether the pod was evicted: by this agent, or before it started (an API pod whose status is Failed/Evicted, as
   * upstream never restarts a pod in a terminal phase); the latter is remembered as evicted from now on.
   */
  private evictedBefore(pod: Pod): boolean {
    const uid = pod.metadata.uid!;
    if (this.evicted.has(uid)) return true;
    if (!wasEvicted(pod)) return false;
    const disruptionCondition = pod.status!.conditions?.some((x) => x.type === 'DisruptionTarget') ?? false;
    this.log(logLine('Pod was evicted before, not running it', { pod: podFullName(pod), podUID: uid }));
    this.evicted.set(uid, { req: { pod, gracePeriodSeconds: HARD_EVICTION_GRACE_SECONDS, message: pod.status!.message ?? '', signal: '', disruptionCondition }, reason: pod.status!.reason });
    return true;
  }

  // ---- activeDeadlineSeconds (upstream's activeDeadlineHandler) ----

  /** When the pod's activeDeadlineSeconds runs out (ms), counted from its status' startTime, else its first sync. */
  private activeDeadline(pod: Pod): number | undefined {
    const seconds = pod.spec.activeDeadlineSeconds;
    const uid = pod.metadata.uid!;
    if (seconds === undefined || seconds === null || this.completed.has(uid)) return undefined;
    if (!this.firstSynced.has(uid)) this.firstSynced.set(uid, this.now());
    const fromStatus = pod.status?.startTime ? Date.parse(pod.status.startTime) : NaN;
    return (Number.isNaN(fromStatus) ? this.firstSynced.get(uid)! : fromStatus) + seconds * 1000;
  }

  /** The pod is past its deadline: stopped with its own grace period and reported Failed, never run again. */
  private endForDeadline(pod: Pod): void {
    const uid = pod.metadata.uid!;
    this.evicted.set(uid, { req: { pod, gracePeriodSeconds: gracePeriodSeconds(pod), message: DEADLINE_MESSAGE, signal: '', disruptionCondition: false }, reason: DEADLINE_REASON });
    this.opts.reports?.events(pod, 'Normal', DEADLINE_REASON, DEADLINE_MESSAGE);
    this.log(logLine('Pod exceeded its active deadline, stopping it', { pod: podFullName(pod), podUID: uid }));
  }

  /** Marks the pod evicted and has its worker stop it: one sync at a time per pod, as every other change. */
  private evict(req: EvictionRequest): void {
    const pod = req.pod;
    const uid = pod.metadata.uid!;
    this.evicted.set(uid, { req });
    this.opts.evictionCount?.(req.signal);
    this.opts.reports?.events(pod, 'Warning', EVICTED_REASON, req.message);
    this.log(logLine('Evicting pod', { pod: podFullName(pod), podUID: uid, message: req.message }));
    this.loop.requestSync(uid);
  }

  /**
   * An evicted pod's sync: the first stops its containers with the eviction's grace period and tears down its
   * emptyDir volumes (what a terminated pod's volumes go through upstream); every sync reports it Failed with
   * reason Evicted (node pressure adds a DisruptionTarget condition), and nothing restarts it whatever its restart policy.
   */
  private async syncEvicted(pod: Pod): Promise<{ status: PodStatus; retryAt: number; fingerprint: string }> {
    const uid = pod.metadata.uid!;
    const lifecycle = this.connected();
    const ev = this.evicted.get(uid)!;
    if (!ev.final) {
      const killing = { ...pod };
      gracePeriodOverrides.set(killing, ev.req.gracePeriodSeconds);
      const after = (await lifecycle.kill(uid, killing)) ?? ({} as Partial<PodStatus>);
      fs.rmSync(path.join(podDir(this.ctx, uid), 'volumes', 'kubernetes.io~empty-dir'), { recursive: true, force: true });
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const conditions = [...(after.conditions ?? [])];
      // Node pressure marks the pod a disruption target; a local storage limit does not (upstream 1.33).
      if (ev.req.disruptionCondition) {
        // Evicted before a restart: the condition as it was, so the status does not change.
        const before = pod.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
        conditions.push(before ?? { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: now, reason: 'TerminationByKubelet', message: ev.req.message });
      }
      ev.final = { ...after, phase: 'Failed', reason: ev.reason ?? EVICTED_REASON, message: ev.req.message, conditions };
      if (!ev.reason || ev.reason === EVICTED_REASON) this.log(logLine('Eviction manager: pod is evicted successfully', { pod: podFullName(pod) }));
    }
    const { fingerprints } = await lifecycle.relist();
    return { status: ev.final, retryAt: 0, fingerprint: fingerprints.get(uid) ?? '' };
  }

  // ---- --runonce ----

  private async runOnce(firstUpdate: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), RUN_ONCE_FIRST_UPDATE_MS); });
    const first = await Promise.race([firstUpdate, timeout]);
    clearTimeout(timer);
    if (first === 'timeout') {
      await this.stop();
      throw new Error('runonce failed: no pod manifest update after 1s');
    }
    for (const s of this.sources) s.stop();
    const failures = await runPodsOnce(this.loop.admittedPods(), this.connected(), this.log);
    this.cri?.close();
    if (failures.length) throw new Error(`runonce failed: error running pods: [${failures.join(', ')}]`);
  }
}

const DEADLINE_REASON = 'DeadlineExceeded';
const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';

/** An API pod the status of which says an agent ended it (evicted, or past its deadline; this one before a restart, or another). */
function wasEvicted(pod: Pod): boolean {
  return pod.status?.phase === 'Failed' && (pod.status.reason === EVICTED_REASON || pod.status.reason === DEADLINE_REASON);
}

/** The loop's log lines as the agent's structured entries (an error's `err` becomes the entry's error). */
export function loopLog(log: LogFn): PodSyncLoopLog {
  return (msg, fields = {}, severity, v) => {
    const opts = { ...(severity && severity !== 'I' ? { severity } : {}), ...(v ? { v } : {}) };
    if (severity === 'E' && 'err' in fields) {
      const { err, ...kv } = fields;
      log(logLine(msg, kv, { ...opts, err }));
      return;
    }
    log(logLine(msg, fields, opts));
  };
}
