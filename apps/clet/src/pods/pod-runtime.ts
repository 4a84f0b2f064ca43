// One pod against the runtime: read its sandboxes and containers, bring them to what the spec wants
// (upstream SyncPod / computePodActions), and kill it. Stateless about the pod apart from PodSyncState,
// so a restarted agent adopts whatever it finds by the io.kubernetes.pod.uid label.
import { containerFieldPath, noPodEvents, type PodEventFn } from './pod-events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CriError, nanosToDate } from '@cl/cri';
import type { ContainerStatus as CriContainerStatus, CriClient, PodSandbox, PodSandboxConfig } from '@cl/cri';
import { formatDuration } from '@cl/flags';
import type { Container, EphemeralContainer, Pod } from './api-types';
import { Backoff } from './backoff';
import { ImageError, ImagePuller } from './image-puller';
import { logLine, type LogFn } from './log';
import {
  ANN_CONTAINER_HASH, ANN_PRESTOP, ANN_RESTART_COUNT, LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID,
  RuntimeSpecContext, containerConfig,
  containerHash, exists, legacyLogSymlink, podDir, podLogDir, prepareVolumes, sandboxConfig,
} from './runtime-spec';
import { runAsNonRootViolation } from './security-context';
import { runHook, type LifecycleHandler } from './lifecycle-hooks';
import { ApiVolumeStep, type PodVolumeStep, type ResolvedEnv } from '../volumes';

/** What the runtime holds for one pod; sandboxes and containers newest first. */
export interface PodRuntimeState {
  sandboxes: PodSandbox[];
  sandboxIP: string;
  containers: RuntimeContainer[];
}

/** A container's CRI status plus the sandbox it belongs to (which only the list call reports). */
export type RuntimeContainer = CriContainerStatus & { podSandboxId: string };

/** What the agent remembers between syncs of one pod (lost on restart, which upstream tolerates too). */
export interface PodSyncState {
  /** Waiting reason/message per container from the last sync (image errors, back-off, create errors). */
  waiting: Map<string, { reason: string; message: string }>;
  /** Set once nothing will run again (Never/OnFailure done); the sandbox is then stopped. */
  terminal: boolean;
  startTime: string;
  /** When the pod should be synced again because a back-off ends (ms since epoch), or 0. */
  retryAt: number;
  /** The last IP a sandbox of the pod had: status keeps reporting it once the sandbox is stopped. */
  podIP?: string;
  /** The runtime state the last sync based its actions on. */
  decidedOn?: PodRuntimeState;
}

/** What one sync of a pod starts containers with. */
interface RunContext {
  pod: Pod;
  ss: PodSyncState;
  sandboxId: string;
  sbConfig: PodSandboxConfig;
  podIP: string;
  volumes: Map<string, string>;
  freshSandbox: boolean;
}

export function newSyncState(): PodSyncState {
  return { waiting: new Map(), terminal: false, startTime: new Date().toISOString(), retryAt: 0 };
}

const MIN_GRACE_SECONDS = 2;
/** How soon a pod whose volumes or environment could not be set up is tried again (the objects may appear). */
const API_OBJECT_RETRY_MS = 2_000;
const POST_START_BUDGET_SECONDS = 120;

/** A grace period that replaces the pod's for one kill (an eviction's), keyed by the pod object handed to the kill. */
export const gracePeriodOverrides = new WeakMap<Pod, number>();

export function gracePeriodSeconds(pod: Pod): number {
  const override = gracePeriodOverrides.get(pod);
  if (override !== undefined) return override;
  const g = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  return Math.max(MIN_GRACE_SECONDS, g);
}

function isNotFound(e: unknown): boolean {
  return e instanceof CriError && e.code === 5;
}

function byNewest<T extends { createdAt: string }>(a: T, b: T): number {
  const d = BigInt(b.createdAt || '0') - BigInt(a.createdAt || '0');
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}

export function restartCountOf(c: CriContainerStatus): number {
  const n = Number(c.annotations[ANN_RESTART_COUNT] ?? c.metadata?.attempt ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** The sooner of a pending retry time (0: none) and `at`: what a pod's next sync waits for. */
export function sooner(pending: number, at: number): number {
  return pending ? Math.min(pending, at) : at;
}

export function shouldRestart(pod: Pod, exitCode: number): boolean {
  const p = pod.spec.restartPolicy ?? 'Always';
  return p === 'Always' || (p === 'OnFailure' && exitCode !== 0);
}

export class PodRuntime {
  readonly backoff = new Backoff();

  constructor(private readonly cri: CriClient, private readonly images: ImagePuller, private readonly ctx: RuntimeSpecContext,
    private readonly log: LogFn, private readonly events: PodEventFn = noPodEvents,
    private readonly volumeStep: PodVolumeStep = new ApiVolumeStep(undefined)) {}

  /** The pod's sandboxes and containers; `wantIP` false skips PodSandboxStatus (host-network pods use the node IP). */
  async state(uid: string, wantIP = true): Promise<PodRuntimeState> {
    const sel = { labelSelector: { [LABEL_POD_UID]: uid } };
    const [sandboxes, list] = await Promise.all([this.cri.listPodSandbox(sel), this.cri.listContainers(sel)]);
    sandboxes.sort(byNewest);
    const containers: RuntimeContainer[] = [];
    await Promise.all(list.map(async (c) => {
      try {
        containers.push({ ...(await this.cri.containerStatus(c.id)), podSandboxId: c.podSandboxId });
      } catch (e) {
        if (!isNotFound(e)) throw e; // removed between list and status
      }
    }));
    containers.sort(byNewest);
    let sandboxIP = '';
    const ready = sandboxes.find((s) => s.state === 'SANDBOX_READY');
    if (ready && wantIP) {
      try {
        sandboxIP = (await this.cri.podSandboxStatus(ready.id)).status?.network?.ip ?? '';
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    return { sandboxes, sandboxIP, containers };
  }

  /** Brings the pod's containers to the spec; returns the fresh runtime state for status. */
  async sync(pod: Pod, ss: PodSyncState): Promise<PodRuntimeState> {
    const uid = pod.metadata.uid!;
    const wantIP = !pod.spec.hostNetwork;
    // The volumes are set up while the runtime state is read: upstream's volume manager mounts a pod's volumes as soon
    // as the pod is known, beside its worker, and the API-object ones wait on the API server (a token request each),
    // not on the runtime (bench/pod-start --profile: ~40-80 ms of a 30-pod burst's state reads overlap them).
    const volumeSetUp = ss.terminal ? undefined : this.volumeStep.setUp(pod, podDir(this.ctx, uid)).then((dirs) => ({ dirs }), (e: Error) => ({ error: e }));
    let st = await this.state(uid, wantIP);
    ss.decidedOn = st;
    if (!volumeSetUp) { // terminal: nothing is set up or started again
      await this.stopReadySandboxes(st);
      return this.state(uid, wantIP);
    }
    ss.retryAt = 0;
    // Volumes before anything starts, as upstream's WaitForAttachAndMount: a pod whose API-object volumes cannot be
    // written waits in ContainerCreating (FailedMount event) and is tried again; nothing of it is started or restarted.
    const set = await volumeSetUp;
    let apiVolumes: Map<string, string>;
    if ('dirs' in set) {
      apiVolumes = set.dirs;
    } else {
      const message = set.error.message;
      this.log(logLine('Unable to attach or mount volumes', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, err: message }));
      this.events(pod, 'Warning', 'FailedMount', message);
      for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
        if (!st.containers.some((x) => x.labels[LABEL_CONTAINER_NAME] === c.name && x.state === 'CONTAINER_RUNNING')) ss.waiting.set(c.name, { reason: 'ContainerCreating', message });
      }
      ss.retryAt = Date.now() + API_OBJECT_RETRY_MS;
      return st;
    }
    const newest = st.sandboxes[0];
    const readyCount = st.sandboxes.filter((s) => s.state === 'SANDBOX_READY').length;
    const needSandbox = !newest || newest.state !== 'SANDBOX_READY' || readyCount > 1 || (!pod.spec.hostNetwork && !st.sandboxIP);
    const latestOf = (name: string) => st.containers.find((c) => c.labels[LABEL_CONTAINER_NAME] === name);

    let sandboxId = newest?.id ?? '';
    let sbConfig: PodSandboxConfig;
    let freshSandbox = false;
    if (needSandbox) {
      // Never-restart pods whose sandbox died after running are finished, not re-created.
      if (newest && pod.spec.restartPolicy === 'Never' && st.containers.length) {
        ss.terminal = true;
        await this.kill(pod, st);
        return this.state(uid, wantIP);
      }
      if (newest) await this.kill(pod, st);
      const attempt = newest ? (newest.metadata?.attempt ?? 0) + 1 : 0;
      await fs.promises.mkdir(podLogDir(this.ctx, pod), { recursive: true, mode: 0o755 });
      try {
        // In the try: a config that cannot be made (an FQDN too long for the kernel) fails the sandbox as upstream's.
        sbConfig = sandboxConfig(this.ctx, pod, attempt);
        sandboxId = await this.cri.runPodSandbox(sbConfig);
      } catch (e) {
        this.log(logLine('Failed to create pod sandbox', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, err: (e as Error).message }));
        this.events(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${(e as Error).message}`);
        for (const c of pod.spec.containers) ss.waiting.set(c.name, { reason: 'ContainerCreating', message: '' });
        throw new Error(`Failed to create pod sandbox: ${(e as Error).message}`);
      }
      freshSandbox = true;
      if (newest) {
        st = await this.state(uid, wantIP); // containers were just killed: read their final states
      } else {
        // A pod's first sandbox: its containers cannot exist yet, only the IP is new (upstream also
        // asks PodSandboxStatus right after RunPodSandbox). Saves two list calls per pod start.
        const sandboxIP = wantIP ? (await this.cri.podSandboxStatus(sandboxId)).status?.network?.ip ?? '' : '';
        st = { ...st, sandboxIP };
      }
    } else {
      sbConfig = sandboxConfig(this.ctx, pod, newest.metadata?.attempt ?? 0);
    }

    if (st.sandboxIP) ss.podIP = st.sandboxIP;
    const podIP = pod.spec.hostNetwork ? this.ctx.nodeIP : st.sandboxIP;
    let volumes: Map<string, string>;
    try {
      volumes = await prepareVolumes(this.ctx, pod);
      for (const [name, dir] of apiVolumes) volumes.set(name, dir);
    } catch (e) {
      for (const c of pod.spec.containers) ss.waiting.set(c.name, { reason: 'CreateContainerConfigError', message: (e as Error).message });
      throw e;
    }

    const run: RunContext = { pod, ss, sandboxId, sbConfig, podIP, volumes, freshSandbox };
    await this.syncEphemeralContainers(run, st);
    if (!(await this.syncInitContainers(run, st))) {
      for (const c of pod.spec.containers) ss.waiting.set(c.name, { reason: 'PodInitializing', message: '' });
      return this.state(uid, wantIP);
    }
    if (ss.terminal) return this.state(uid, wantIP);

    let anyAlive = false;
    const starts: Promise<void>[] = [];
    for (const c of pod.spec.containers) {
      const latest = latestOf(c.name);
      if (latest && latest.state === 'CONTAINER_RUNNING' && !freshSandbox) {
        if (latest.annotations[ANN_CONTAINER_HASH] === containerHash(c)) {
          ss.waiting.delete(c.name);
          anyAlive = true;
          continue;
        }
        this.log(logLine('Container definition changed, will be restarted', { pod: pod.metadata.name, container: c.name }));
        await this.stopContainer(latest.id, gracePeriodSeconds(pod), latest, run.podIP);
      }
      if (latest && (latest.state === 'CONTAINER_CREATED' || latest.state === 'CONTAINER_UNKNOWN')) {
        await this.stopContainer(latest.id, gracePeriodSeconds(pod));
      }
      if (latest && latest.state === 'CONTAINER_EXITED' && !shouldRestart(pod, latest.exitCode) && latest.podSandboxId === sandboxId) {
        ss.waiting.delete(c.name);
        continue; // finished for good in this sandbox
      }
      if (latest && latest.state === 'CONTAINER_EXITED' && freshSandbox && pod.spec.restartPolicy === 'OnFailure' && latest.exitCode === 0) {
        continue; // a succeeded OnFailure container is not re-run in a new sandbox
      }
      anyAlive = true;
      const go = this.startUnlessBackedOff(run, c, latest && latest.state === 'CONTAINER_EXITED' && !freshSandbox ? latest : undefined, latest);
      if (go) starts.push(go);
    }
    await Promise.all(starts);
    if (!anyAlive) {
      // Nothing runs and nothing will: the pod is done (Succeeded or Failed). Stopping the sandbox also
      // stops restartable init containers, as upstream does once the regular containers are done.
      ss.terminal = true;
      await this.stopReadySandboxes(await this.state(uid, false));
    }
    return this.state(uid, wantIP);
  }

  /**
   * Upstream's ephemeral container step (before the init containers, so that a debugger can be added to a pod whose
   * init containers fail): each one the runtime has never seen is started once, and never again, whatever its exit.
   * One with a target joins the target's process namespace and waits (CreateContainerConfigError) until the target
   * runs in this sandbox.
   */
  private async syncEphemeralContainers(run: RunContext, st: PodRuntimeState): Promise<void> {
    const { pod, ss } = run;
    const starts: Promise<void>[] = [];
    for (const ec of pod.spec.ephemeralContainers ?? []) {
      if (st.containers.some((x) => x.labels[LABEL_CONTAINER_NAME] === ec.name)) continue;
      let target: string | undefined;
      if (ec.targetContainerName) {
        target = st.containers.find((x) => x.labels[LABEL_CONTAINER_NAME] === ec.targetContainerName && x.state === 'CONTAINER_RUNNING' && x.podSandboxId === run.sandboxId)?.id;
        if (!target) {
          const message = `unable to find target container ${ec.targetContainerName}`;
          ss.waiting.set(ec.name, { reason: 'CreateContainerConfigError', message });
          this.events(pod, 'Warning', 'Failed', `Error: ${message}`, containerFieldPath(pod, ec));
          ss.retryAt = sooner(ss.retryAt, Date.now() + API_OBJECT_RETRY_MS);
          continue;
        }
      }
      starts.push(this.startContainer(pod, ec, ss, run.sandboxId, run.sbConfig, 0, run.podIP, run.volumes, target));
    }
    await Promise.all(starts);
  }

  /**
   * Upstream's init container step: init containers run one at a time in spec order, each to exit 0,
   * before any regular container; a restartable one (restartPolicy Always, a "sidecar") only has to be
   * started and is kept running. A failed init container is restarted (with the crash-loop back-off)
   * unless the pod's restartPolicy is Never, which fails the pod. Only instances in the current
   * sandbox count: a new sandbox runs every init container again. Returns true once all are done.
   */
  private async syncInitContainers(run: RunContext, st: PodRuntimeState): Promise<boolean> {
    const { pod, ss, sandboxId } = run;
    for (const c of pod.spec.initContainers ?? []) {
      const mine = st.containers.filter((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
      const latest = mine.find((x) => x.podSandboxId === sandboxId);
      const sidecar = c.restartPolicy === 'Always';
      if (latest?.state === 'CONTAINER_RUNNING') {
        if (latest.annotations[ANN_CONTAINER_HASH] === containerHash(c)) {
          ss.waiting.delete(c.name);
          if (sidecar) continue;
          return false; // still initialising
        }
        await this.stopContainer(latest.id, gracePeriodSeconds(pod));
      } else if (latest?.state === 'CONTAINER_EXITED') {
        if (!sidecar && latest.exitCode === 0) {
          ss.waiting.delete(c.name);
          continue;
        }
        if (!sidecar && pod.spec.restartPolicy === 'Never') {
          this.log(logLine('Init container failed, the pod will not be restarted', { pod: pod.metadata.name, container: c.name, exitCode: latest.exitCode }));
          ss.terminal = true;
          await this.kill(pod, st);
          return true;
        }
      } else if (latest) {
        await this.stopContainer(latest.id, gracePeriodSeconds(pod)); // created or unknown: kill, then start
      }
      const go = this.startUnlessBackedOff(run, c, latest?.state === 'CONTAINER_EXITED' ? latest : undefined, mine[0]);
      if (go) await go;
      if (!sidecar) return false;
      // A started sidecar lets the next init container start in the same sync; one that could not be
      // started (back-off, image) holds the rest.
      if (ss.waiting.has(c.name)) return false;
    }
    return true;
  }

  /**
   * Starts a new instance of `c` unless the crash-loop back-off of its last exit (`exited`) holds it;
   * `previous` is the newest instance in any sandbox, whose restart count the new one continues.
   */
  private startUnlessBackedOff(run: RunContext, c: Container, exited: RuntimeContainer | undefined,
    previous: RuntimeContainer | undefined): Promise<void> | undefined {
    const { pod, ss } = run;
    if (exited) {
      const key = `${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${c.name}_${containerHash(c)}`;
      const finished = nanosToDate(exited.finishedAt)?.getTime() ?? Date.now();
      if (this.backoff.isInBackOffSince(key, finished)) {
        const d = this.backoff.get(key);
        this.events(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`, containerFieldPath(pod, c));
        ss.waiting.set(c.name, {
          reason: 'CrashLoopBackOff',
          message: `back-off ${formatDuration(d)} restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
        });
        const at = finished + d;
        ss.retryAt = sooner(ss.retryAt, at);
        return undefined;
      }
      this.backoff.next(key, finished);
    }
    const restartCount = previous ? restartCountOf(previous) + 1 : 0;
    return this.startContainer(pod, c, ss, run.sandboxId, run.sbConfig, restartCount, run.podIP, run.volumes);
  }

  private async startContainer(pod: Pod, c: Container | EphemeralContainer, ss: PodSyncState, sandboxId: string, sb: PodSandboxConfig,
    restartCount: number, podIP: string, volumes: Map<string, string>, pidTarget?: string): Promise<void> {
    let imageRef: string;
    try {
      imageRef = await this.images.ensureImage(pod, c, sb);
    } catch (e) {
      const reason = e instanceof ImageError ? e.reason : 'ErrImagePull';
      ss.waiting.set(c.name, { reason, message: (e as Error).message });
      if (reason === 'ImagePullBackOff') this.events(pod, 'Normal', 'BackOff', (e as Error).message, containerFieldPath(pod, c));
      else this.events(pod, 'Warning', 'Failed', `Error: ${reason}`, containerFieldPath(pod, c));
      const at = e instanceof ImageError ? e.retryAt : Date.now() + 10_000;
      if (at) ss.retryAt = sooner(ss.retryAt, at);
      return;
    }
    const nonRoot = await this.runAsNonRootViolation(pod, c, imageRef);
    if (nonRoot) {
      ss.waiting.set(c.name, { reason: 'CreateContainerConfigError', message: nonRoot });
      this.events(pod, 'Warning', 'Failed', `Error: ${nonRoot}`, containerFieldPath(pod, c));
      this.log(logLine('Error creating container', { pod: pod.metadata.name, container: c.name }, { severity: 'E', err: nonRoot }));
      return;
    }
    let apiEnv: ResolvedEnv;
    try {
      apiEnv = await this.volumeStep.containerEnv(pod, c);
    } catch (e) {
      const message = (e as Error).message;
      ss.waiting.set(c.name, { reason: 'CreateContainerConfigError', message });
      this.events(pod, 'Warning', 'Failed', `Error: ${message}`, containerFieldPath(pod, c));
      this.log(logLine('Error creating container', { pod: pod.metadata.name, container: c.name }, { severity: 'E', err: message }));
      ss.retryAt = sooner(ss.retryAt, Date.now() + API_OBJECT_RETRY_MS);
      return;
    }
    for (const w of apiEnv.warnings) this.events(pod, 'Warning', w.reason, w.message, containerFieldPath(pod, c));
    let id: string;
    try {
      const cfg = await containerConfig(this.ctx, pod, c, imageRef, restartCount, podIP, volumes, apiEnv, pidTarget);
      id = await this.cri.createContainer(sandboxId, cfg, sb);
    } catch (e) {
      ss.waiting.set(c.name, { reason: 'CreateContainerError', message: (e as Error).message });
      this.events(pod, 'Warning', 'Failed', `Error: ${(e as Error).message}`, containerFieldPath(pod, c));
      this.log(logLine('Failed to create container', { pod: pod.metadata.name, container: c.name, err: (e as Error).message }));
      return;
    }
    this.events(pod, 'Normal', 'Created', `Created container: ${c.name}`, containerFieldPath(pod, c));
    try {
      await this.cri.startContainer(id);
      ss.waiting.delete(c.name);
      this.events(pod, 'Normal', 'Started', `Started container ${c.name}`, containerFieldPath(pod, c));
    } catch (e) {
      ss.waiting.set(c.name, { reason: 'RunContainerError', message: (e as Error).message });
      this.events(pod, 'Warning', 'Failed', `Error: ${(e as Error).message}`, containerFieldPath(pod, c));
      this.log(logLine('Failed to start container', { pod: pod.metadata.name, container: c.name, err: (e as Error).message }));
      return;
    }
    const postStart = (c.lifecycle as { postStart?: LifecycleHandler } | undefined)?.postStart;
    if (postStart) {
      // Upstream waits for postStart without a deadline of its own; the runtime's request timeout bounds it here.
      const failure = await runHook(postStart, pod, c.name, { containerID: id, podIP, ports: c.ports ?? [] }, this.cri, POST_START_BUDGET_SECONDS);
      if (failure) {
        this.log(logLine('PostStartHook failed', { pod: pod.metadata.name, container: c.name }, { severity: 'E', err: failure }));
        await this.stopContainer(id, gracePeriodSeconds(pod));
        ss.waiting.set(c.name, { reason: 'PostStartHookError', message: failure });
        return;
      }
    }
    await this.linkLegacyLog(pod, c, id, restartCount);
  }

  /** runAsNonRoot checked against the user the image runs as (ImageStatus uid/username; neither means root). */
  private async runAsNonRootViolation(pod: Pod, c: Container, imageRef: string): Promise<string | null> {
    const wants = c.securityContext?.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot;
    if (wants !== true) return null;
    const image = await this.cri.imageStatus({ image: imageRef });
    const uid = image?.uid ? Number(image.uid.value) : null;
    return runAsNonRootViolation(pod, c, { uid, username: image?.uid ? '' : (image?.username ?? '') });
  }

  /**
   * The legacy symlink for log shippers, as upstream makes it after StartContainer: only when the log
   * file exists (a dangling link would only wait for GC); failure is logged, never fatal.
   */
  private async linkLegacyLog(pod: Pod, c: Container, id: string, restartCount: number): Promise<void> {
    const target = path.join(podLogDir(this.ctx, pod), c.name, `${restartCount}.log`);
    const link = legacyLogSymlink(this.ctx.containerLogsDir, pod.metadata.name!, pod.metadata.namespace!, c.name, id);
    try {
      if (!(await exists(target))) return;
      await fs.promises.mkdir(this.ctx.containerLogsDir, { recursive: true, mode: 0o755 });
      await fs.promises.symlink(target, link);
    } catch (e) {
      this.log(logLine('Failed to create legacy symbolic link', { path: link, containerID: id, containerLogPath: target, err: (e as Error).message }));
    }
  }

  /**
   * Stops a container; a running one first runs its preStop hook (kept in its annotations, so orphans too), within
   * the grace period, and the runtime gets what is left of it (at least 2 s), as upstream's killContainer.
   */
  private async stopContainer(id: string, graceSeconds: number, running?: CriContainerStatus, podIP = ''): Promise<void> {
    const preStop = running?.state === 'CONTAINER_RUNNING' ? running.annotations[ANN_PRESTOP] : undefined;
    if (preStop) {
      const begun = Date.now();
      const pod = { metadata: { name: running!.labels[LABEL_POD_NAME], namespace: running!.labels[LABEL_POD_NAMESPACE], uid: running!.labels[LABEL_POD_UID] } } as Pod;
      const name = running!.labels[LABEL_CONTAINER_NAME];
      const failure = await Promise.race([
        runHook(JSON.parse(preStop) as LifecycleHandler, pod, name, { containerID: id, podIP, ports: [] }, this.cri, graceSeconds),
        new Promise<string>((r) => setTimeout(() => r(`PreStop hook for Container ${JSON.stringify(name)} did not complete within ${graceSeconds}s`), graceSeconds * 1000).unref()),
      ]);
      if (failure) this.log(logLine('PreStop hook failed', { pod: pod.metadata.name, container: name }, { severity: 'E', err: failure }));
      graceSeconds = Math.max(MIN_GRACE_SECONDS, graceSeconds - Math.floor((Date.now() - begun) / 1000));
    }
    try {
      await this.cri.stopContainer(id, graceSeconds);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async stopReadySandboxes(st: PodRuntimeState): Promise<void> {
    for (const s of st.sandboxes) {
      if (s.state !== 'SANDBOX_READY') continue;
      try {
        await this.cri.stopPodSandbox(s.id);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  /** Stops every running container (in parallel, with the grace period) and then every sandbox. */
  async kill(pod: Pod | null, st: PodRuntimeState): Promise<void> {
    // Without the pod (an orphan) the grace period comes from the container's own annotation.
    const grace = (c: CriContainerStatus) => pod ? gracePeriodSeconds(pod)
      : Math.max(MIN_GRACE_SECONDS, Number(c.annotations['io.kubernetes.pod.terminationGracePeriod'] ?? 30) || 30);
    const podIP = pod?.spec.hostNetwork ? this.ctx.nodeIP : st.sandboxIP;
    const running = st.containers.filter((c) => c.state !== 'CONTAINER_EXITED');
    if (pod) for (const c of running) this.events(pod, 'Normal', 'Killing', `Stopping container ${c.labels[LABEL_CONTAINER_NAME]}`, containerFieldPath(pod, c.labels[LABEL_CONTAINER_NAME]));
    await Promise.all(running.map((c) => this.stopContainer(c.id, grace(c), c, podIP)));
    await this.stopReadySandboxes(st);
  }
}
