// One pass over one Deployment (upstream's syncDeployment after the ReplicaSets are claimed: sync.go, rolling.go,
// recreate.go, progress.go): deleted → status only; paused or resized → scale (proportionally during a rollout)
// and status; otherwise one step of the rollout strategy and the rollout status. Every write goes through this
// object, which keeps the latest Deployment and ReplicaSets it got back, so later writes of the same pass carry
// current resourceVersions instead of failing on the ones the informer had.
import { isAlreadyExists, isNotFound, resourcePath, type EventRecorder, type KubeClient } from '@cl/kube-client';
import type { ControllerLog } from '../controller';
import { controllerOf, controllerRefTo } from '../workloads/controller-ref';
import { errorMessage, objectReference } from '../workloads/object-reference';
import type { OwnWrites } from '../workloads/own-writes';
import { keyOf, replicaSetPath, specReplicas, type Deployment, type Pod, type ReplicaSet } from '../workloads/types';
import {
  calculateDeploymentStatus,
  deploymentComplete,
  deploymentStatusEqual,
  getCondition,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  newCondition,
  PROGRESSING,
  REASONS,
  rolloutStatus,
  setCondition,
  stuckRecheckDelayMs,
} from './deployment-status';
import { maxSurge, RECREATE, ROLLING_UPDATE } from './fenceposts';
import { activeReplicaSets, byRevision, findNewReplicaSet, findOldReplicaSets } from './replica-sets';
import { DESIRED_REPLICAS_ANNOTATION, intAnnotation, maxRevision, REVISION_ANNOTATION, replicasAnnotationsNeedUpdate, setNewReplicaSetAnnotations, setReplicasAnnotations } from './revisions';
import { newReplicaSetReplicas, newReplicaSetTarget, oldPodsRunning, oldReplicaSetScaleDowns, proportionalScale, type ScaleStep } from './rollout-plan';
import { podTemplateHash, POD_TEMPLATE_HASH_LABEL, templatesEqualIgnoringHash } from './template-hash';

export interface DeploymentSyncDeps {
  client: KubeClient;
  /** Where the versions this pass replaces are recorded, so later passes can tell a lagging informer. */
  ownWrites: OwnWrites;
  events: EventRecorder;
  log: ControllerLog;
  now: () => number;
}

interface ReplicaSets {
  newRS: ReplicaSet | undefined;
  oldRSs: ReplicaSet[];
}

export class DeploymentSync {
  /** Set when the Deployment should be looked at again later (a progress deadline to judge). */
  recheckAfterMs: number | undefined;
  private d: Deployment;
  private readonly rsList: ReplicaSet[];

  constructor(
    private readonly deps: DeploymentSyncDeps,
    deployment: Deployment,
    rsList: readonly ReplicaSet[],
    private readonly podsByReplicaSet: ReadonlyMap<string, readonly Pod[]>,
  ) {
    this.d = structuredClone(deployment);
    this.rsList = rsList.map((rs) => structuredClone(rs));
  }

  /** The Deployment as this pass last wrote or read it. */
  get deployment(): Deployment {
    return this.d;
  }

  async run(): Promise<void> {
    const d = this.d;
    if (d.metadata.deletionTimestamp) return this.syncStatusOnly();
    // Paused and resumed Deployments get an Unknown Progressing condition, so a resume does not time out at once.
    await this.checkPausedConditions();
    if (this.d.spec?.paused) return this.syncScale();
    if (await this.isScalingEvent()) return this.syncScale();
    const type = this.d.spec?.strategy?.type ?? ROLLING_UPDATE;
    if (type === RECREATE) return this.rolloutRecreate();
    if (type === ROLLING_UPDATE) return this.rolloutRolling();
    throw new Error(`unexpected deployment strategy type: ${type}`);
  }

  // ----- the three kinds of pass -------------------------------------------------------------------------------

  private async syncStatusOnly(): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSets(false);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS);
  }

  /** sync(): scaling events and paused Deployments; no new ReplicaSet is created. */
  private async syncScale(): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSets(false);
    await this.applySteps(proportionalScale(this.d, newRS, oldRSs));
    if (this.d.spec?.paused) await this.cleanup(oldRSs);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS);
  }

  private async rolloutRolling(): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSets(true);
    if (!newRS) throw new Error('no new replica set');
    const target = newReplicaSetTarget(this.d, [...oldRSs, newRS], newRS);
    if (await this.scaleReplicaSet(newRS, target, false)) return this.syncRolloutStatus(oldRSs, newRS);
    const steps = oldReplicaSetScaleDowns(this.d, [...oldRSs, newRS].map((rs) => this.latest(rs)), activeReplicaSets(oldRSs.map((rs) => this.latest(rs))), this.latest(newRS));
    if (await this.applySteps(steps)) return this.syncRolloutStatus(oldRSs, newRS);
    if (deploymentComplete(this.d, this.d.status ?? {})) await this.cleanup(oldRSs);
    await this.syncRolloutStatus(oldRSs, newRS);
  }

  /** Recreate: every old ReplicaSet to 0, wait until their pods are gone, then the new one at full size. */
  private async rolloutRecreate(): Promise<void> {
    let { newRS, oldRSs } = await this.replicaSets(false);
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) if (await this.scaleReplicaSet(rs, 0, false)) scaledDown = true;
    if (scaledDown) return this.syncRolloutStatus(oldRSs, newRS);
    if (oldPodsRunning(newRS && this.latest(newRS), oldRSs.map((rs) => this.latest(rs)), this.podsByReplicaSet)) return this.syncRolloutStatus(oldRSs, newRS);
    if (!newRS) ({ newRS, oldRSs } = await this.replicaSets(true));
    if (newRS) await this.scaleReplicaSet(newRS, specReplicas(this.d), false);
    if (deploymentComplete(this.d, this.d.status ?? {})) await this.cleanup(oldRSs);
    await this.syncRolloutStatus(oldRSs, newRS);
  }

  // ----- ReplicaSets -------------------------------------------------------------------------------------------

  /** The latest copy of a ReplicaSet this pass has (after its own writes). */
  private latest(rs: ReplicaSet): ReplicaSet {
    return this.rsList.find((r) => r.metadata.uid === rs.metadata.uid) ?? rs;
  }

  private remember(rs: ReplicaSet): ReplicaSet {
    const i = this.rsList.findIndex((r) => r.metadata.uid === rs.metadata.uid);
    if (i >= 0) this.rsList[i] = rs;
    else this.rsList.push(rs);
    return rs;
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked and missing) and all old ones. */
  private async replicaSets(createIfMissing: boolean): Promise<ReplicaSets> {
    const oldRSs = findOldReplicaSets(this.d, this.rsList);
    const newRS = await this.newReplicaSet(oldRSs, createIfMissing);
    return { newRS, oldRSs };
  }

  private replicaAnnotations() {
    const desired = specReplicas(this.d);
    return { desired, max: desired + maxSurge(this.d) };
  }

  /**
   * getNewReplicaSet: the ReplicaSet whose template is the Deployment's, its revision raised above the old ones
   * (a rollback to an old template reuses that ReplicaSet under a new revision), the Deployment's revision
   * following it; or, when asked, a new one named after the template's hash.
   */
  private async newReplicaSet(oldRSs: readonly ReplicaSet[], createIfMissing: boolean): Promise<ReplicaSet | undefined> {
    const d = this.d;
    const existing = findNewReplicaSet(d, this.rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) {
      const copy = structuredClone(existing);
      const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true, this.replicaAnnotations());
      if (annotationsChanged || (copy.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0)) {
        copy.spec = { ...copy.spec, minReadySeconds: d.spec?.minReadySeconds ?? 0 };
        return this.updateReplicaSet(copy);
      }
      let needsUpdate = setDeploymentRevision(d, copy.metadata.annotations?.[REVISION_ANNOTATION]);
      if (hasProgressDeadline(d) && !getCondition(d.status, PROGRESSING)) {
        setCondition((d.status ??= {}), newCondition(PROGRESSING, 'True', REASONS.foundNewReplicaSet, `Found new replica set "${copy.metadata.name}"`, this.deps.now()));
        needsUpdate = true;
      }
      if (needsUpdate) await this.writeStatus();
      return copy;
    }
    if (!createIfMissing) return undefined;
    return this.createNewReplicaSet(oldRSs, newRevision);
  }

  private async createNewReplicaSet(oldRSs: readonly ReplicaSet[], newRevision: number): Promise<ReplicaSet> {
    const d = this.d;
    const template = structuredClone(d.spec?.template ?? {});
    const hash = podTemplateHash(template, d.status?.collisionCount);
    template.metadata = { ...template.metadata, labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    const name = `${d.metadata.name}-${hash}`;
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: d.metadata.namespace, ownerReferences: [controllerRefTo({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: d.metadata })], labels: { ...template.metadata.labels } },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newReplicaSetReplicas(d, [...oldRSs, rs], rs);
    rs.spec!.replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false, this.replicaAnnotations());
    const now = this.deps.now();
    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = await this.deps.client.create<ReplicaSet>(resourcePath({ group: 'apps', version: 'v1', resource: 'replicasets', namespace: d.metadata.namespace }), rs);
    } catch (e) {
      if (isAlreadyExists(e)) {
        // A slow informer, or a hash collision: ours only if we control it and its template is ours.
        const found = await this.deps.client.get<ReplicaSet>(replicaSetPath(rs));
        if (controllerOf(found)?.uid === d.metadata.uid && templatesEqualIgnoringHash(d.spec?.template, found.spec?.template)) {
          created = found;
          alreadyExists = true;
        } else {
          const before = d.status?.collisionCount ?? 0;
          (d.status ??= {}).collisionCount = before + 1;
          await this.writeStatus().then(
            () => this.deps.log('Found a hash collision for deployment - bumping collisionCount to resolve it', { deployment: keyOf(d), oldCollisionCount: before, newCollisionCount: before + 1 }),
            () => undefined,
          );
          throw e;
        }
      } else {
        const msg = `Failed to create new replica set "${name}": ${errorMessage(e)}`;
        if (hasProgressDeadline(d)) {
          setCondition((d.status ??= {}), newCondition(PROGRESSING, 'False', REASONS.failedReplicaSetCreate, msg, now));
          // The bigger problem is reported by the error below.
          await this.writeStatus().catch(() => undefined);
        }
        this.deps.events.event(this.ref(), 'Warning', REASONS.failedReplicaSetCreate, msg);
        throw e;
      }
    }
    this.remember(created);
    if (!alreadyExists && replicas > 0) this.deps.events.event(this.ref(), 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`);
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      setCondition((d.status ??= {}), newCondition(PROGRESSING, 'True', REASONS.newReplicaSetCreated, `Created new replica set "${created.metadata.name}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await this.writeStatus();
    return created;
  }

  private async updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    const updated = await this.deps.client.update<ReplicaSet>(replicaSetPath(rs), { ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' });
    // Recorded once it succeeded: a failed write replaced nothing, and no watch event of it will come.
    this.deps.ownWrites.replacedVersion(rs.metadata.uid, rs.metadata.resourceVersion);
    return this.remember(updated);
  }

  /**
   * scaleReplicaSet: sets the size and the replica annotations and records ScalingReplicaSet. Without
   * `evenIfSameSize` a ReplicaSet of the right size is left alone (scaleReplicaSetAndRecordEvent). True when the
   * size changed.
   */
  private async scaleReplicaSet(rs: ReplicaSet, to: number, evenIfSameSize: boolean): Promise<boolean> {
    const current = this.latest(rs);
    const from = specReplicas(current);
    const resize = from !== to;
    if (!resize && !evenIfSameSize) return false;
    const { desired, max } = this.replicaAnnotations();
    if (!resize && !replicasAnnotationsNeedUpdate(current, desired, max)) return false;
    const copy = structuredClone(current);
    copy.spec = { ...copy.spec, replicas: to };
    setReplicasAnnotations(copy, desired, max);
    const updated = await this.updateReplicaSet(copy);
    if (resize) this.deps.events.event(this.ref(), 'Normal', 'ScalingReplicaSet', `Scaled ${from < to ? 'up' : 'down'} replica set ${updated.metadata.name} from ${from} to ${to}`);
    return resize;
  }

  /** Applies scale steps in order; true when any changed a size. */
  private async applySteps(steps: readonly ScaleStep[]): Promise<boolean> {
    let scaled = false;
    for (const step of steps) if (await this.scaleReplicaSet(step.rs, step.to, step.evenIfSameSize ?? false)) scaled = true;
    return scaled;
  }

  /** isScalingEvent: an active ReplicaSet was sized for another spec.replicas than the Deployment's now. */
  private async isScalingEvent(): Promise<boolean> {
    const { newRS, oldRSs } = await this.replicaSets(false);
    const replicas = specReplicas(this.d);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
      return desired !== undefined && desired !== replicas;
    });
  }

  /**
   * cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit are deleted, lowest revision first, but only
   * those that are empty, want no pods, and whose controller has seen that.
   */
  private async cleanup(oldRSs: readonly ReplicaSet[]): Promise<void> {
    if (!hasRevisionHistoryLimit(this.d)) return;
    const cleanable = oldRSs.map((rs) => this.latest(rs)).filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - (this.d.spec?.revisionHistoryLimit ?? 0);
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, diff)) {
      if ((rs.status?.replicas ?? 0) !== 0 || specReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      await this.deps.client.delete(replicaSetPath(rs)).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
  }

  // ----- Deployment status -------------------------------------------------------------------------------------

  /** checkPausedConditions: Progressing Unknown (DeploymentPaused / DeploymentResumed) as the pause changes. */
  private async checkPausedConditions(): Promise<void> {
    const d = this.d;
    if (!hasProgressDeadline(d)) return;
    const condition = getCondition(d.status, PROGRESSING);
    // A reported timeout is not covered up by a pause.
    if (condition?.reason === REASONS.timedOut) return;
    const pausedShown = condition?.reason === REASONS.paused;
    const now = this.deps.now();
    if (d.spec?.paused && !pausedShown) setCondition((d.status ??= {}), newCondition(PROGRESSING, 'Unknown', REASONS.paused, 'Deployment is paused', now));
    else if (!d.spec?.paused && pausedShown) setCondition((d.status ??= {}), newCondition(PROGRESSING, 'Unknown', REASONS.resumed, 'Deployment is resumed', now));
    else return;
    await this.writeStatus();
  }

  /** syncDeploymentStatus: counts and Available only (scaling and paused passes). */
  private async syncDeploymentStatus(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): Promise<void> {
    const status = calculateDeploymentStatus(this.fresh(allRSs), newRS && this.latest(newRS), this.d, this.deps.now());
    if (deploymentStatusEqual(this.d.status, status)) return;
    this.d.status = status;
    await this.writeStatus();
  }

  /** syncRolloutStatus: counts, Available and Progressing; a stuck rollout is looked at again by its deadline. */
  private async syncRolloutStatus(oldRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
    const now = this.deps.now();
    const status = rolloutStatus(this.fresh([...oldRSs, newRS]), newRS && this.latest(newRS), this.d, now);
    if (deploymentStatusEqual(this.d.status, status)) {
      this.recheckAfterMs = stuckRecheckDelayMs(this.d, status, now);
      return;
    }
    this.d.status = status;
    await this.writeStatus();
  }

  private fresh(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
    return rss.filter((rs): rs is ReplicaSet => !!rs).map((rs) => this.latest(rs));
  }

  /**
   * UpdateStatus of the Deployment as this pass holds it. Upstream's status writes also carry the revision
   * annotation (apps' status strategy keeps metadata from the request); a server that keeps only status gets the
   * annotation through a patch of the Deployment itself.
   */
  private async writeStatus(): Promise<void> {
    const d = this.d;
    const path = deploymentPath(d);
    const wanted = d.metadata.annotations?.[REVISION_ANNOTATION];
    let written = await this.deps.client.update<Deployment>(`${path}/status`, { ...d, apiVersion: 'apps/v1', kind: 'Deployment' });
    this.deps.ownWrites.replacedVersion(d.metadata.uid, d.metadata.resourceVersion);
    if (wanted !== undefined && written.metadata.annotations?.[REVISION_ANNOTATION] !== wanted) {
      this.d = written;
      written = await this.deps.client.patch<Deployment>(path, { metadata: { annotations: { [REVISION_ANNOTATION]: wanted } } }, 'merge');
      this.deps.ownWrites.replacedVersion(d.metadata.uid, this.d.metadata.resourceVersion);
    }
    this.d = written;
  }

  private ref() {
    return objectReference('apps/v1', 'Deployment', this.d);
  }
}

/** SetDeploymentRevision: true when the Deployment's revision annotation changed. */
function setDeploymentRevision(d: Deployment, revision: string | undefined): boolean {
  const annotations = (d.metadata.annotations ??= {});
  if (revision === undefined || annotations[REVISION_ANNOTATION] === revision) return false;
  annotations[REVISION_ANNOTATION] = revision;
  return true;
}



export function deploymentPath(d: Deployment): string {
  return resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: d.metadata.namespace, name: d.metadata.name });
}
