// The node agent's pod loop: sources -> desired pods -> per-pod workers (one sync at a time per pod,
// pods in parallel) -> CRI. A 1s relist (PLEG) wakes a pod when its runtime state changes; a 2s
// housekeeping kills what is no longer desired; GC and log rotation run on their own periods.
import * as os from 'node:os';
import * as path from 'node:path';
import { CriClient } from '@cl/cri';
import { Registry } from 'prom-client';
import { formatDuration, parseDuration } from '@cl/flags';
import type { CletConfiguration } from '../config/types';
import type { Pod, PodStatus } from './api-types';
import { CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from './decode';
import { collectContainers, collectImages, rotateContainerLogs } from './gc';
import { ImagePuller } from './image-puller';
import { logLine, type LogFn } from './log';
import { PodRuntime, PodRuntimeState, PodSyncState, gracePeriodSeconds, newSyncState } from './pod-runtime';
import { podStatus } from './pod-status';
import { parseQuantity } from './quantity';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID, RuntimeSpecContext, podFullName } from './runtime-spec';
import { ProbeManager, type RunningContainer } from './probe-manager';
import { appArmorAdmission, hostHasAppArmor, sysctlAdmission, type AdmissionRejection } from './security-context';
import { FileSource, HttpSource, PodSource } from './sources';
import type { PodManager, PodManagerOptions } from './index';

type PodSourceName = 'file' | 'http' | 'api';

interface Entry { pod: Pod; ss: PodSyncState; status: Pod['status']; rejected?: { reason: string; message: string } }

/** The first non-loopback IPv4 address (upstream's default node IP), else 127.0.0.1. */
export function defaultNodeIP(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

const ms = (d: string | undefined, dflt: number) => (d ? parseDuration(d) : dflt);

export class CriPodManager implements PodManager {
  private readonly config: CletConfiguration;
  private readonly log: LogFn;
  private cri: CriClient | undefined;
  private runtime: PodRuntime | undefined;
  private readonly sources: PodSource[] = [];
  private readonly sourceSets = new Map<PodSourceName, Pod[]>();
  private readonly seen = new Map<string, string>();
  private readonly entries = new Map<string, Entry>();
  private readonly workers = new Map<string, { running: boolean; again: boolean; done: Promise<void> }>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** Periodic tasks under way; stop() waits for them so no CRI call outlives the manager. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly fingerprints = new Map<string, string>();
  private readonly imageFirstSeen = new Map<string, number>();
  private lastSyncLoop: number;
  private readonly now: () => number;
  private runtimeName = 'containerd';
  private stopped = false;
  private readonly ctx: RuntimeSpecContext;
  private readonly admitters: Array<(pod: Pod) => AdmissionRejection | null>;
  private probes: ProbeManager | undefined;
  private readonly nodeIP: string;
  private firstUpdate: (() => void) | undefined;

  constructor(private readonly opts: PodManagerOptions) {
    this.config = opts.config;
    this.log = opts.log;
    this.nodeIP = opts.nodeIP || defaultNodeIP();
    this.now = opts.now ?? Date.now;
    this.lastSyncLoop = this.now();
    this.ctx = {
      podLogsDir: this.config.podLogsDir || '/var/log/pods',
      containerLogsDir: opts.containerLogsDir ?? '/var/log/containers',
      rootDir: opts.rootDir ?? '/var/lib/clet',
      resolvConf: this.config.resolvConf ?? '/etc/resolv.conf',
      clusterDNS: this.config.clusterDNS ?? [],
      clusterDomain: this.config.clusterDomain ?? '',
      nodeIP: this.nodeIP,
      security: { seccompDefault: this.config.seccompDefault ?? false, seccompProfileRoot: path.join(opts.rootDir ?? '/var/lib/clet', 'seccomp') },
    };
    // Admission beyond the pod count, in upstream's order; an allowlist entry that is not namespaced stops the agent.
    this.admitters = [sysctlAdmission(this.config.allowedUnsafeSysctls ?? []), appArmorAdmission(hostHasAppArmor())];
  }

  async start(): Promise<void> {
    const c = this.config;
    this.cri = await CriClient.connect({
      runtimeEndpoint: c.containerRuntimeEndpoint,
      imageEndpoint: c.imageServiceEndpoint || c.containerRuntimeEndpoint,
      timeoutMs: ms(c.runtimeRequestTimeout, 120_000),
    });
    this.runtimeName = (await this.cri.version()).runtimeName || 'containerd';
    const events = this.opts.reports?.events;
    const puller = new ImagePuller(this.cri, { serialize: c.serializeImagePulls ?? true, qps: c.registryPullQPS ?? 5, burst: c.registryBurst ?? 10 }, this.log, events);
    this.runtime = new PodRuntime(this.cri, puller, this.ctx, this.log, events);
    const cri = this.cri;
    this.probes = new ProbeManager(cri, this.opts.probeMetrics ?? new Registry(), {
      unhealthy: (pod, container, id, type, grace, message) => {
        this.log(logLine(`Container ${container.name} failed ${type.toLowerCase()} probe, will be restarted`, { pod: podFullName(pod), containerID: id, message }));
        const seconds = grace ?? gracePeriodSeconds(pod);
        void cri.stopContainer(id, seconds).catch((e: Error) => this.log(logLine('Failed to kill an unhealthy container', { containerID: id }, { severity: 'E', err: e }))).then(() => this.requestSync(pod.metadata.uid!));
      },
      changed: (uid) => this.requestSync(uid),
    }, this.log);

    const firstUpdate = new Promise<void>((resolve) => { this.firstUpdate = resolve; });
    const onSet = (source: 'file' | 'http', pods: Pod[]) => this.onSourceSet(source, pods);
    if (c.staticPodPath) this.sources.push(new FileSource(c.staticPodPath, this.opts.nodeName, ms(c.fileCheckFrequency, 20_000), onSet, this.log));
    if (c.staticPodURL) {
      this.sources.push(new HttpSource(c.staticPodURL, c.staticPodURLHeader ?? {}, this.opts.nodeName, ms(c.httpCheckFrequency, 20_000), onSet, this.log));
    }
    for (const s of this.sources) s.start();

    if (c.runOnce) {
      await this.runOnce(firstUpdate);
      return;
    }
    const relist = this.opts.relistPeriodMs ?? 1000;
    this.every(relist, () => this.relist());
    this.every(this.opts.housekeepingPeriodMs ?? 2000, () => this.housekeeping());
    this.every(ms(c.syncFrequency, 60_000), () => { for (const uid of this.entries.keys()) this.requestSync(uid); });
    this.every(this.opts.containerGCPeriodMs ?? 60_000, () => this.containerGC());
    this.every(this.opts.imageGCPeriodMs ?? 300_000, () => this.imageGC());
    this.every(ms(c.containerLogMonitorInterval, 10_000), () => this.rotateLogs());
  }

  private every(periodMs: number, fn: () => Promise<void> | void): void {
    let busy = false;
    this.timers.push(setInterval(() => {
      if (busy || this.stopped) return;
      busy = true;
      const run = Promise.resolve().then(fn).catch((e: Error) => this.log(logLine('Periodic task failed', { err: e.message })))
        .finally(() => { busy = false; this.inFlight.delete(run); });
      this.inFlight.add(run);
    }, Math.max(10, periodMs)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sources) s.stop();
    for (const t of this.timers) clearInterval(t);
    for (const t of this.retryTimers.values()) clearTimeout(t);
    this.probes?.stop();
    await Promise.all([...this.workers.values()].map((w) => w.done.catch(() => undefined)));
    await Promise.all([...this.inFlight]);
    this.cri?.close();
  }

  pods(): object[] {
    return [...this.entries.values()].map((e) => ({ ...e.pod, status: e.status ?? e.pod.status }));
  }

  syncLoopHealthy(): Error | null {
    const limit = Math.max(2 * ms(this.config.syncFrequency, 60_000), 5 * 60_000);
    return this.now() - this.lastSyncLoop > limit ? new Error('sync Loop took longer than expected') : null;
  }

  // ---- sources -> desired pods ----

  setApiPods(pods: Pod[]): void {
    this.onSourceSet('api', pods);
  }

  private onSourceSet(source: PodSourceName, pods: Pod[]): void {
    const byName = new Map<string, Pod>();
    for (const p of pods) {
      const full = podFullName(p);
      if (byName.has(full)) {
        this.log(logLine(`Error validating pod ${full} from ${source} due to duplicate pod name ${JSON.stringify(p.metadata.name)}, ignoring`));
        continue;
      }
      byName.set(full, p);
    }
    this.sourceSets.set(source, [...byName.values()]);
    this.reconcileDesired();
    if (source !== 'api') {
      this.opts.reports?.staticPods([...this.entries.values()].map((e) => e.pod).filter((p) => p.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION] !== 'api'));
    }
    this.firstUpdate?.();
  }

  private reconcileDesired(): void {
    const desired = new Map<string, Pod>();
    for (const [source, pods] of this.sourceSets) {
      for (const given of pods) {
        const uid = given.metadata.uid!;
        if (!this.seen.has(uid)) this.seen.set(uid, new Date().toISOString());
        // A copy: API pods are the watch cache's objects, which must not change under it.
        const annotations = { ...given.metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: source, [CONFIG_SEEN_ANNOTATION]: this.seen.get(uid)! };
        desired.set(uid, { ...given, metadata: { ...given.metadata, annotations } });
      }
    }
    for (const uid of [...this.entries.keys()]) {
      if (!desired.has(uid)) {
        this.entries.delete(uid);
        this.seen.delete(uid);
        this.log(logLine('Pod removed from its source, killing it', { podUID: uid }));
        this.probes?.removePod(uid);
        this.requestSync(uid); // the worker finds no entry and kills the pod
      }
    }
    const maxPods = this.config.maxPods ?? 110;
    let admitted = [...this.entries.values()].filter((e) => !e.rejected).length;
    const ordered = [...desired.values()].sort((a, b) => this.seen.get(a.metadata.uid!)!.localeCompare(this.seen.get(b.metadata.uid!)!));
    for (const p of ordered) {
      const uid = p.metadata.uid!;
      const existing = this.entries.get(uid);
      if (existing) {
        // An API pod that changed (deleted, its image or labels edited) is synced at once, as upstream's UPDATE;
        // a static pod changes only through a new uid.
        const changed = existing.pod.metadata.resourceVersion !== p.metadata.resourceVersion;
        existing.pod = p;
        if (changed) this.requestSync(uid);
        continue;
      }
      const e: Entry = { pod: p, ss: newSyncState(), status: p.status };
      const refused = admitted >= maxPods
        ? { reason: 'OutOfpods', message: `Node didn't have enough resource: pods, requested: 1, used: ${admitted}, capacity: ${maxPods}` }
        : this.admitters.map((admit) => admit(p)).find((r) => r !== null);
      if (refused) {
        // Upstream admission: the pod is rejected, never run, and reported Failed.
        e.rejected = refused;
        e.status = { phase: 'Failed', reason: e.rejected.reason, message: e.rejected.message, startTime: e.ss.startTime };
        this.log(logLine('Pod admission denied', { pod: podFullName(p), reason: e.rejected.reason, message: e.rejected.message }));
        this.opts.reports?.status(p, e.status);
      } else {
        admitted++;
      }
      this.entries.set(uid, e);
      if (!e.rejected) this.requestSync(uid);
    }
  }

  // ---- per-pod workers ----

  private requestSync(uid: string): void {
    if (this.stopped) return;
    const w = this.workers.get(uid);
    if (w?.running) {
      w.again = true;
      return;
    }
    const worker = { running: true, again: false, done: Promise.resolve() };
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

  private async syncOne(uid: string): Promise<void> {
    const runtime = this.runtime!;
    const entry = this.entries.get(uid);
    try {
      if (!entry) {
        const st = await runtime.state(uid, false);
        await runtime.kill(null, st);
        return;
      }
      if (entry.pod.metadata.deletionTimestamp) {
        await this.terminate(entry);
        return;
      }
      if (entry.rejected) return;
      // As upstream's pod workers at -v=4: every sync, with the pod it is for.
      this.log(logLine('SyncPod enter', { pod: podFullName(entry.pod), podUID: uid }, { v: 4 }));
      const st = await runtime.sync(entry.pod, entry.ss);
      this.updateStatus(entry, st);
      this.log(logLine('SyncPod exit', { pod: podFullName(entry.pod), podUID: uid, phase: entry.status?.phase }, { v: 4 }));
      this.scheduleRetry(uid, entry.ss.retryAt);
    } catch (e) {
      this.log(logLine('Error syncing pod, skipping', { pod: entry ? podFullName(entry.pod) : uid, podUID: uid }, { severity: 'E', err: e }));
      this.scheduleRetry(uid, Date.now() + 10_000);
    }
  }

  /**
   * A pod the API server is deleting: its containers stop within the grace period it was given
   * (deletionGracePeriodSeconds), then the API server hears it may remove the pod.
   */
  private async terminate(entry: Entry): Promise<void> {
    const runtime = this.runtime!;
    const uid = entry.pod.metadata.uid!;
    this.log(logLine('Killing pod the API server is deleting', { pod: podFullName(entry.pod), podUID: uid, gracePeriod: gracePeriodSeconds(entry.pod) }));
    this.probes?.removePod(uid);
    await runtime.kill(entry.pod, await runtime.state(uid, false));
    this.updateStatus(entry, await runtime.state(uid, false), true);
    this.opts.reports?.terminated(entry.pod);
  }

  /** `terminal`: the pod was stopped for deletion, so its phase is final (upstream's podIsTerminal). */
  private updateStatus(entry: Entry, st: PodRuntimeState, terminal = false): void {
    // Probe workers follow the running containers; their results feed the container's ready and started.
    const pod = entry.pod;
    const running: RunningContainer[] = [];
    for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((i) => i.restartPolicy === 'Always')]) {
      const latest = st.containers.find((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
      if (latest?.state === 'CONTAINER_RUNNING') running.push({ container: c, containerID: latest.id, startedAt: Number(BigInt(latest.startedAt || '0') / 1_000_000n) });
    }
    this.probes?.sync(pod, running, pod.spec.hostNetwork ? this.nodeIP : entry.ss.podIP ?? '');
    entry.status = podStatus(entry.pod, st, entry.ss, { nodeIP: this.nodeIP, runtimeName: this.runtimeName, probes: this.probes });
    if (terminal) entry.status = { ...entry.status, phase: terminalPhase(entry.status) };
    this.opts.reports?.status(entry.pod, entry.status);
    // The relist compares against what the last sync decided on, not what it left: whatever changed
    // since (including a container that exited while the sync ran, and the sync's own starts) earns
    // one more sync, as upstream's PLEG events do.
    const seen = entry.ss.decidedOn ?? st;
    this.fingerprints.set(entry.pod.metadata.uid!, fingerprint(seen.sandboxes, seen.containers));
  }

  private scheduleRetry(uid: string, at: number): void {
    clearTimeout(this.retryTimers.get(uid));
    this.retryTimers.delete(uid);
    if (!at || this.stopped) return;
    this.retryTimers.set(uid, setTimeout(() => { this.retryTimers.delete(uid); this.requestSync(uid); }, Math.max(0, at - Date.now()) + 20));
  }

  // ---- relist, housekeeping, GC ----

  private async relist(): Promise<void> {
    this.lastSyncLoop = this.now();
    const cri = this.cri!;
    const [sandboxes, containers] = await Promise.all([cri.listPodSandbox(), cri.listContainers()]);
    for (const [uid, entry] of this.entries) {
      if (entry.rejected) continue;
      const fp = fingerprint(sandboxes.filter((s) => s.labels[LABEL_POD_UID] === uid), containers.filter((c) => c.labels[LABEL_POD_UID] === uid));
      if (this.fingerprints.get(uid) === fp) continue;
      this.log(logLine('Pod runtime state changed, syncing', { podUID: uid }, { v: 5 }));
      this.requestSync(uid);
    }
  }

  private async housekeeping(): Promise<void> {
    this.log(logLine('SyncLoop (housekeeping)', {}, { v: 4 }));
    if (!this.allSourcesReady()) return;
    const cri = this.cri!;
    const [sandboxes, containers] = await Promise.all([cri.listPodSandbox(), cri.listContainers()]);
    const orphans = new Set<string>();
    for (const s of sandboxes) if (s.state === 'SANDBOX_READY' && s.labels[LABEL_POD_UID]) orphans.add(s.labels[LABEL_POD_UID]);
    for (const c of containers) if (c.state === 'CONTAINER_RUNNING' && c.labels[LABEL_POD_UID]) orphans.add(c.labels[LABEL_POD_UID]);
    for (const uid of orphans) if (!this.entries.has(uid) && !this.workers.get(uid)?.running) this.requestSync(uid);
  }

  private sourceKind(i: number): PodSourceName {
    return this.sources[i] instanceof FileSource ? 'file' : 'http';
  }

  /** Every source has reported its set once: only then may pods be treated as deleted. */
  private allSourcesReady(): boolean {
    return this.sources.every((_, i) => this.sourceSets.has(this.sourceKind(i))) && (!this.opts.reports || this.sourceSets.has('api'));
  }

  private async containerGC(): Promise<void> {
    const ready = this.allSourcesReady();
    await collectContainers(this.cri!, {
      minAgeMs: this.opts.minimumContainerTTLDuration ?? 0,
      maxPerPodContainer: this.opts.maximumDeadContainersPerContainer ?? 1,
      maxContainers: this.opts.maximumDeadContainers ?? -1,
    }, (uid) => !ready || this.entries.has(uid), this.log, {
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

  // ---- --runonce ----

  private async runOnce(firstUpdate: Promise<void>): Promise<void> {
    const timeout = new Promise<'timeout'>((r) => { const t = setTimeout(() => r('timeout'), 1000); this.timers.push(t); });
    if ((await Promise.race([firstUpdate, timeout])) === 'timeout') {
      await this.stop();
      throw new Error('runonce failed: no pod manifest update after 1s');
    }
    for (const s of this.sources) s.stop();
    const failures: string[] = [];
    await Promise.all([...this.entries.values()].filter((e) => !e.rejected).map(async (e) => {
      let delay = 1000;
      for (let i = 0; i < 10; i++) {
        try {
          const st = await this.runtime!.sync(e.pod, e.ss);
          this.updateStatus(e, st);
          const running = e.status?.containerStatuses?.every((cs) => cs.state.running || cs.state.terminated);
          if (running) {
            this.log(logLine('Pod started', { pod: podFullName(e.pod) }));
            return;
          }
        } catch (err) {
          this.log(logLine('Pod failed to start', { pod: podFullName(e.pod), err: (err as Error).message }));
        }
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
      failures.push(`${podFullName(e.pod)}: timeout error: pod containers not running after ${formatDuration(delay - 1000)}`);
    }));
    this.cri?.close();
    if (failures.length) throw new Error(`runonce failed: error running pods: [${failures.join(', ')}]`);
  }
}

/**
 * The phase of a pod stopped for deletion: whatever its restart policy, nothing will run again, so it
 * Succeeded when every container exited 0 and Failed otherwise (upstream's getPhase with podIsTerminal).
 */
function terminalPhase(status: PodStatus): PodStatus['phase'] {
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return status.phase;
  const containers = status.containerStatuses ?? [];
  return containers.length > 0 && containers.every((c) => c.state.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
}

function fingerprint(sandboxes: { id: string; state: string }[], containers: { id: string; state: string }[]): string {
  return [...sandboxes.map((s) => `${s.id}:${s.state}`).sort(), '|', ...containers.map((c) => `${c.id}:${c.state}`).sort()].join(',');
}
