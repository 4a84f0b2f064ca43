// The one interface between the pod sync loop and whatever runs pods: containerd through CRI in the node agent,
// a hollow runtime that runs nothing in the scale tests, or a Node service's own. The loop decides when and
// which pod (sources, admission, one sync at a time per pod, deletion, orphans, retries); the runtime only makes
// one pod match its spec, stops one, and lists what it has. Nothing here knows about containers.
import type { ObjectMeta, Pod, PodStatus } from './types';

/**
 * What the loop reads of a pod (uid, name, namespace, resourceVersion, annotations, deletion); any pod type with
 * these fits, the library's own `Pod` or a runtime's richer one.
 */
export interface PodLike {
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

/** What the loop reads of a status: the phase (and, for a deleted pod's final phase, containerStatuses). */
export interface PodStatusLike {
  phase?: string;
}

/**
 * A sync that failed (a sandbox the runtime refused) but knows the pod's status now: its containers waiting, with
 * the reason. Upstream writes a pod's status before SyncPod acts, so a failing pod still shows why it waits. The loop
 * reports the status, logs the failure and tries again later, as for any other error.
 */
export class PodSyncFailure<S extends PodStatusLike = PodStatus> extends Error {
  constructor(message: string, readonly status: S) {
    super(message);
  }
}

/** What one sync of a pod left. */
export interface PodSyncResult<S extends PodStatusLike = PodStatus> {
  /** The pod's status now; the loop reports it (and shows it in `pods()`). */
  status: S;
  /**
   * When to sync the pod again though nothing changed (ms since the epoch: a crash-loop or image back-off that
   * ends), or 0 for only on a change.
   */
  retryAt: number;
  /**
   * The runtime state this sync acted on, as a string that changes whenever that state changes; `relist()`
   * reports the same string for the same state. Any difference at the next relist syncs the pod again, so a
   * fingerprint of what the sync decided on (not what it left) makes the sync's own changes earn one more sync.
   */
  fingerprint: string;
}

/** One cheap look at everything the runtime holds. */
export interface RuntimeListing {
  /** Each pod's state fingerprint by uid, as `sync` returns it; a pod the runtime holds nothing of is absent (fingerprint ''). */
  fingerprints: Map<string, string>;
  /** The uids with something still running: the housekeeping kills those no source wants. */
  running: Set<string>;
}

/** Why a pod may not run here: it is reported Failed with these, and never synced. */
export interface AdmissionRefusal {
  reason: string;
  message: string;
}

/**
 * What the sync loop needs of a runtime. The loop never syncs or kills one pod twice at once; different pods are
 * synced in parallel, and `relist` runs beside them. A sync or kill that throws is logged and tried again 10 s later.
 */
export interface PodLifecycle<P extends PodLike = Pod, S extends PodStatusLike = PodStatus> {
  /** Makes the pod's containers match its spec (starting, restarting, or leaving them as the restart policy says). */
  sync(pod: P): Promise<PodSyncResult<S>>;
  /**
   * Stops everything of the pod, with the grace period the pod asks for (metadata.deletionGracePeriodSeconds, else
   * spec.terminationGracePeriodSeconds). `pod` is null for a pod no source wants any more, or an orphan known only
   * by its uid: the runtime can forget it. Returns the status after, when the pod is given.
   */
  kill(uid: string, pod: P | null): Promise<S | undefined>;
  /** Fingerprints of all pods and the uids with something running, in one listing (the loop calls it every second). */
  relist(): Promise<RuntimeListing>;
  /** Admission beyond the pod count (the clet's: sysctls, AppArmor); null admits. */
  admit?(pod: P): AdmissionRefusal | null;
}
