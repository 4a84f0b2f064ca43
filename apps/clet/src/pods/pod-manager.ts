// The node agent's pods, wired: the static pod sources and the API server feed the node library's sync loop, whose
// runtime is containerd through CRI (CriPodLifecycle). Around the loop, the chores only a container runtime has:
// container GC, image GC and log rotation, each on its own period; and --runonce, which syncs each pod itself.
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
import { PodRuntime, gracePeriodSeconds } from './pod-runtime';
import { parseQuantity } from './quantity';
import { RuntimeSpecContext, podFullName } from './runtime-spec';
import { ProbeManager } from './probe-manager';
import { appArmorAdmission, hostHasAppArmor, sysctlAdmission, type AdmissionRejection } from './security-context';
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
  private probes: ProbeManager | undefined;
  private lifecycle: CriPodLifecycle | undefined;
  private firstUpdate: (() => void) | undefined;

  constructor(private readonly opts: PodManagerOptions) {
    const c = opts.config;
    this.config = c;
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
    };
    // Admission beyond the pod count, in upstream's order; an allowlist entry that is not namespaced stops the agent.
    this.admit = admitAll([sysctlAdmission(c.allowedUnsafeSysctls ?? []), appArmorAdmission(hostHasAppArmor())]);
    const sources: PodSourceName[] = [];
    if (c.staticPodPath) sources.push('file');
    if (c.staticPodURL) sources.push('http');
    // In API-server mode the API source is expected too: nothing is an orphan before its first set.
    if (opts.reports) sources.push('api');
    const clock = { now: opts.now ?? Date.now, setTimeout: (fn: () => void, t: number) => setTimeout(fn, t), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
    // The loop exists from the start, so pods(), setApiPods and the health check answer before the CRI is
    // connected; it calls its runtime only once start() connected it and started the loop.
    const lifecycle: PodLifecycle<Pod, PodStatus> = {
      sync: (pod) => this.connected().sync(pod),
      kill: (uid, pod) => this.connected().kill(uid, pod),
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
    const puller = new ImagePuller(cri, { serialize: c.serializeImagePulls ?? true, qps: c.registryPullQPS ?? 5, burst: c.registryBurst ?? 10 }, this.log, events);
    this.runtime = new PodRuntime(cri, puller, this.ctx, this.log, events);
    this.probes = new ProbeManager(cri, this.opts.probeMetrics ?? new Registry(), {
      unhealthy: (pod, container, id, type, grace, message) => {
        this.log(logLine(`Container ${container.name} failed ${type.toLowerCase()} probe, will be restarted`, { pod: podFullName(pod), containerID: id, message }));
        const seconds = grace ?? gracePeriodSeconds(pod);
        void cri.stopContainer(id, seconds).catch((e: Error) => this.log(logLine('Failed to kill an unhealthy container', { containerID: id }, { severity: 'E', err: e }))).then(() => this.loop.requestSync(pod.metadata.uid!));
      },
      changed: (uid) => this.loop.requestSync(uid),
    }, this.log);
    this.lifecycle = new CriPodLifecycle({ cri, runtime: this.runtime, probes: this.probes, nodeIP: this.nodeIP, runtimeName, admit: this.admit });

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
