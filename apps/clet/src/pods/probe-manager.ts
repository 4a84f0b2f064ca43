// Probe workers, one per running container and probe type, as pkg/kubelet/prober's worker: the first attempt
// after initialDelaySeconds from the container's start, then every periodSeconds; a result flips only after
// successThreshold successes or failureThreshold failures in a row. Liveness and readiness wait for the
// startup probe to succeed. A liveness or startup failure asks the pod manager to kill the container (it is
// then restarted per restartPolicy, with the usual back-off); readiness changes ask for a status update.
// Results are counted in prober_probe_total and timed in prober_probe_duration_seconds (/metrics/probes).
import type { CriClient } from '@cl/cri';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Container, Pod } from './api-types';
import { logLine, type LogFn } from './log';
import { runProbe, type ProbeSpec } from './probe-handlers';

export type ProbeType = 'Liveness' | 'Readiness' | 'Startup';

export interface ProbeEvents {
  /** A liveness or startup probe failed failureThreshold times: the container must be killed and restarted. */
  unhealthy(pod: Pod, container: Container, containerID: string, type: ProbeType, graceSeconds: number | undefined, message: string): void;
  /** A readiness or startup result changed: the pod's status should be recomputed. */
  changed(podUID: string): void;
}

interface Worker {
  type: ProbeType;
  spec: ProbeSpec;
  containerID: string;
  timer: NodeJS.Timeout | null;
  successes: number;
  failures: number;
  /** The current result: undefined until the thresholds first decide it. */
  result: boolean | undefined;
  stopped: boolean;
}

const SPEC_FIELD: Record<ProbeType, 'livenessProbe' | 'readinessProbe' | 'startupProbe'> = {
  Liveness: 'livenessProbe',
  Readiness: 'readinessProbe',
  Startup: 'startupProbe',
};

export interface RunningContainer {
  container: Container;
  containerID: string;
  /** When the container started (ms since epoch). */
  startedAt: number;
}

export class ProbeManager {
  private readonly workers = new Map<string, Worker>(); // key: containerID/type
  private readonly podOf = new Map<string, string>(); // worker key -> pod UID
  private readonly total: Counter<string>;
  private readonly duration: Histogram<string>;

  constructor(
    private readonly cri: Pick<CriClient, 'execSync'>,
    registry: Registry,
    private readonly events: ProbeEvents,
    private readonly log: LogFn,
    private readonly now: () => number = Date.now,
  ) {
    this.total = new Counter({
      name: 'prober_probe_total',
      help: 'Cumulative number of a liveness, readiness or startup probe for a container by result.',
      labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'prober_probe_duration_seconds',
      help: 'Duration in seconds for a probe response.',
      labelNames: ['probe_type', 'container', 'pod', 'namespace'],
      registers: [registry],
    });
  }

  /** Starts workers for the pod's running containers that have probes, and stops those of containers gone. */
  sync(pod: Pod, running: RunningContainer[], podIP: string): void {
    const uid = pod.metadata.uid!;
    const live = new Set<string>();
    for (const r of running) {
      for (const type of ['Startup', 'Liveness', 'Readiness'] as ProbeType[]) {
        const spec = r.container[SPEC_FIELD[type]] as ProbeSpec | undefined;
        if (!spec) continue;
        const key = `${r.containerID}/${type}`;
        live.add(key);
        if (this.workers.has(key)) continue;
        const w: Worker = { type, spec, containerID: r.containerID, timer: null, successes: 0, failures: 0, result: undefined, stopped: false };
        this.workers.set(key, w);
        const first = Math.max(0, r.startedAt + (spec.initialDelaySeconds ?? 0) * 1000 - this.now());
        w.timer = setTimeout(() => void this.tick(w, pod, r.container, podIP), first);
      }
    }
    // Workers of this pod's containers that stopped running (or lost their probe) end.
    for (const [key, w] of this.workers) if (this.podOf.get(key) === uid && !live.has(key)) this.stopWorker(key, w);
    for (const key of live) this.podOf.set(key, uid);
  }

  /** Readiness of a container: true without a readiness probe; false until the probe first succeeds. */
  ready(containerID: string): boolean {
    const w = this.workers.get(`${containerID}/Readiness`);
    return w ? w.result === true && this.started(containerID) : this.started(containerID);
  }

  /** Whether the startup probe (if any) has succeeded. */
  started(containerID: string): boolean {
    const w = this.workers.get(`${containerID}/Startup`);
    return w ? w.result === true : true;
  }

  removePod(uid: string): void {
    for (const [key, w] of this.workers) if (this.podOf.get(key) === uid) this.stopWorker(key, w);
  }

  stop(): void {
    for (const [key, w] of this.workers) this.stopWorker(key, w);
  }

  private stopWorker(key: string, w: Worker) {
    w.stopped = true;
    if (w.timer) clearTimeout(w.timer);
    this.workers.delete(key);
    this.podOf.delete(key);
  }

  private async tick(w: Worker, pod: Pod, c: Container, podIP: string): Promise<void> {
    if (w.stopped) return;
    const period = Math.max(1, w.spec.periodSeconds ?? 10) * 1000;
    // Liveness and readiness are held until the container has started (its startup probe succeeded).
    if (w.type !== 'Startup' && !this.started(w.containerID)) {
      w.timer = setTimeout(() => void this.tick(w, pod, c, podIP), period);
      return;
    }
    const where = { container: c.name, pod: pod.metadata.name!, namespace: pod.metadata.namespace! };
    const labels = { ...where, pod_uid: pod.metadata.uid! };
    const begun = process.hrtime.bigint();
    const outcome = await runProbe(w.spec, { containerID: w.containerID, podIP, ports: c.ports ?? [] }, this.cri);
    if (w.stopped) return;
    this.duration.observe({ probe_type: w.type, ...where }, Number(process.hrtime.bigint() - begun) / 1e9);
    // Upstream's label order: probe_type, result, container, pod, namespace, pod_uid.
    this.total.inc({ probe_type: w.type, result: outcome.success ? 'successful' : 'failed', ...labels });
    if (outcome.success) {
      w.failures = 0;
      w.successes++;
    } else {
      w.successes = 0;
      w.failures++;
      this.log(logLine('Probe failed', { probeType: w.type, pod: `${labels.namespace}/${labels.pod}`, podUID: labels.pod_uid, containerName: c.name, probeResult: 'failure', output: outcome.message }, { v: 1 }));
    }
    const before = w.result;
    if (w.successes >= (w.spec.successThreshold ?? 1)) w.result = true;
    else if (w.failures >= (w.spec.failureThreshold ?? 3)) w.result = false;
    if (w.result === false && (w.type === 'Liveness' || w.type === 'Startup')) {
      // The container is restarted; its new instance gets new workers.
      this.stopWorker(`${w.containerID}/${w.type}`, w);
      this.events.unhealthy(pod, c, w.containerID, w.type, w.spec.terminationGracePeriodSeconds, outcome.message);
      return;
    }
    if (before !== w.result && (w.type === 'Readiness' || w.type === 'Startup')) this.events.changed(labels.pod_uid);
    // A succeeded startup probe stops probing (upstream keeps its worker but runs no more attempts).
    if (w.type === 'Startup' && w.result === true) return;
    w.timer = setTimeout(() => void this.tick(w, pod, c, podIP), period);
  }
}
