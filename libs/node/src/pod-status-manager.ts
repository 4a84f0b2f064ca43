// Pod status to the API server, as upstream's status manager: the runtime reports what it computed; a PATCH of
// pods/<name>/status (with the pod's uid, so a re-created pod of the same name is never written) goes out only
// when that differs from what the API server holds. Conditions keep their lastTransitionTime while their status
// holds. Failed writes are retried, so an API server restart loses no update. A pod the API server is deleting
// is confirmed deleted (grace 0, uid precondition) once the runtime reports it stopped.
import { Timers } from './timers';
import { statusCode, type ApiClient, type NodeLog, type Pod, type PodCondition, type PodStatus } from './types';

export interface PodStatusManagerOptions {
  client: ApiClient;
  log: NodeLog;
  /** Retry delay after a failed write (upstream resyncs every 10 s). */
  retryMs?: number;
  /** Writes in flight at once. */
  concurrency?: number;
}

interface Wanted {
  /** The pod as the API server last showed it (its name, namespace, uid and status). */
  pod: Pod;
  status: PodStatus;
  /** The runtime stopped it and the API server is deleting it: delete with grace 0 after the status. */
  confirmDeletion: boolean;
}

const podPath = (p: Pod) => `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`;

export class PodStatusManager {
  private readonly wanted = new Map<string, Wanted>();
  private readonly queue = new Set<string>();
  private readonly retrying = new Set<string>();
  /** Pods with a write in flight, and those that changed meanwhile (written again once it returns). */
  private readonly writing = new Set<string>();
  private readonly dirty = new Set<string>();
  private active = 0;
  private readonly timers = new Timers();
  private readonly idle: Array<() => void> = [];
  /** Status writes that reached the API server (for metrics and tests). */
  writes = 0;

  constructor(private readonly o: PodStatusManagerOptions) {}

  /** The runtime's status for an API pod (or for the mirror pod of a static pod). */
  setStatus(apiPod: Pod, status: PodStatus): void {
    const uid = apiPod.metadata.uid!;
    const w = this.wanted.get(uid);
    // The newest copy we know (our own last write can be newer than the watch's).
    const pod = w && newer(w.pod, apiPod) ? w.pod : apiPod;
    // Transitions count from the status last set (written or not, as upstream's status manager), else the pod's.
    this.wanted.set(uid, { pod, status: withTransitions(status, w?.status ?? pod.status), confirmDeletion: w?.confirmDeletion ?? false });
    this.enqueue(uid);
  }

  /** The runtime stopped a pod the API server is deleting: report its last status, then confirm the deletion. */
  terminated(apiPod: Pod): void {
    const uid = apiPod.metadata.uid!;
    const w = this.wanted.get(uid);
    const pod = w && newer(w.pod, apiPod) ? w.pod : apiPod;
    this.wanted.set(uid, { pod, status: w?.status ?? apiPod.status ?? {}, confirmDeletion: true });
    this.enqueue(uid);
  }

  /** The API server's current copy of a pod (from the watch): a status that drifted from ours is written again. */
  observe(apiPod: Pod): void {
    const uid = apiPod.metadata.uid!;
    const w = this.wanted.get(uid);
    if (!w) return;
    w.pod = apiPod;
    if (!contains(apiPod.status, w.status) || w.confirmDeletion) this.enqueue(uid);
  }

  /** The pod left the API server: nothing more to write for it. */
  forget(uid: string): void {
    this.wanted.delete(uid);
    this.queue.delete(uid);
  }

  /** Resolves once nothing is queued or in flight (tests, shutdown). */
  settled(): Promise<void> {
    if (this.active === 0 && this.queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  stop(): void {
    this.timers.stop();
    this.queue.clear();
  }

  private enqueue(uid: string): void {
    if (this.timers.isStopped || this.retrying.has(uid)) return;
    if (this.writing.has(uid)) {
      this.dirty.add(uid);
      return;
    }
    this.queue.add(uid);
    this.pump();
  }

  private pump(): void {
    const limit = this.o.concurrency ?? 4;
    while (this.active < limit && this.queue.size > 0) {
      const uid = this.queue.values().next().value as string;
      this.queue.delete(uid);
      this.active++;
      this.writing.add(uid);
      void this.write(uid).finally(() => {
        this.writing.delete(uid);
        if (this.dirty.delete(uid)) this.queue.add(uid);
        this.active--;
        this.pump();
        if (this.active === 0 && this.queue.size === 0) for (const r of this.idle.splice(0)) r();
      });
    }
  }

  private async write(uid: string): Promise<void> {
    const w = this.wanted.get(uid);
    if (!w) return;
    try {
      if (!contains(w.pod.status, w.status)) {
        const updated = await this.o.client.patch<Pod>(`${podPath(w.pod)}/status`, { metadata: { uid }, status: w.status });
        this.writes++;
        // The entry may have been replaced meanwhile (a newer status, the pod terminated): it gets the copy
        // this write produced unless it already holds a newer one, so the same status is not written twice.
        const current = this.wanted.get(uid);
        if (current && !newer(current.pod, updated)) current.pod = updated;
        this.o.log('Patch status for pod', { pod: `${w.pod.metadata.namespace}/${w.pod.metadata.name}`, podUID: uid, phase: w.status.phase }, 'I');
      }
      if (w.confirmDeletion && w.pod.metadata.deletionTimestamp) {
        await this.o.client.delete(podPath(w.pod), { gracePeriodSeconds: 0, preconditions: { uid } });
        this.o.log('Pod fully terminated and removed from etcd', { pod: `${w.pod.metadata.namespace}/${w.pod.metadata.name}` });
        this.forget(uid);
      }
    } catch (e) {
      const code = statusCode(e);
      // Gone, or a different pod now has the name (uid precondition): there is nothing left to write.
      if (code === 404 || code === 409 || code === 422) {
        this.forget(uid);
        return;
      }
      this.o.log('Failed to update status for pod', { pod: `${w.pod.metadata.namespace}/${w.pod.metadata.name}`, err: (e as Error).message }, 'E');
      this.retrying.add(uid);
      void this.timers.sleep(this.o.retryMs ?? 2000).then(() => {
        this.retrying.delete(uid);
        if (this.wanted.has(uid)) this.enqueue(uid);
      });
    }
  }
}

function newer(a: Pod, b: Pod): boolean {
  return Number(a.metadata.resourceVersion ?? 0) > Number(b.metadata.resourceVersion ?? 0);
}

/** Conditions whose status did not change keep the API server's lastTransitionTime (and probe time). */
function withTransitions(next: PodStatus, current: PodStatus | undefined): PodStatus {
  if (!next.conditions) return next;
  const conditions = next.conditions.map((c) => {
    const before = current?.conditions?.find((b) => b.type === c.type);
    return before && before.status === c.status ? { ...c, lastTransitionTime: before.lastTransitionTime ?? c.lastTransitionTime } : c;
  });
  return { ...next, conditions };
}

const sameCondition = (a: PodCondition, b: PodCondition) =>
  a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '') && (a.lastTransitionTime ?? null) === (b.lastTransitionTime ?? null);

/** Whether the API server's status already says everything ours says (others' conditions may be there too). */
export function contains(api: PodStatus | undefined, ours: PodStatus): boolean {
  if (!api) return Object.keys(ours).length === 0;
  for (const [key, value] of Object.entries(ours)) {
    if (value === undefined) continue;
    if (key === 'conditions') {
      for (const c of value as PodCondition[]) {
        const other = api.conditions?.find((a) => a.type === c.type);
        if (!other || !sameCondition(other, c)) return false;
      }
    } else if (!covers(api[key], value)) {
      return false;
    }
  }
  return true;
}

/**
 * `have` says all that `want` says: same primitives, same array lengths, and every field of `want` present
 * alike in `have`, whatever the key order and whatever defaults the API server added (comparing JSON text
 * instead would see a difference in every defaulted field and write the status forever).
 */
function covers(have: unknown, want: unknown): boolean {
  if (want === undefined) return true;
  if (want === null || typeof want !== 'object') return have === want;
  // An empty list or object is the same as none (the API server may leave either out).
  if (have === undefined && (Array.isArray(want) ? want.length === 0 : Object.values(want).every((v) => v === undefined))) return true;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => covers(have[i], w));
  if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => covers((have as Record<string, unknown>)[k], v));
}
